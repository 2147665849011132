// The observeLocks client for the ES module entries: a dynamic import() that bundlers split off,
// loaded on the first observeLocks() call. Only ES module entries import this file: the classic
// bundles load build/dist/weblocks-observe.js instead (observe-client.js), since esbuild would
// inline an import() into a single-file bundle.
export const importObserveClient = () => import('../api/observe-locks.js').then((client) => client.observeSource);
