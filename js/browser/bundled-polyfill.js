// The polyfill for bundled apps ("./polyfill", "browser" export condition): a loader (loader.js),
// as polyfill.js. The rest (bundled-polyfill-rest.js) is a dynamic import() that Vite, webpack,
// esbuild and Rollup each split into a chunk of its own, loaded only where navigator.locks is
// missing or forced. The whole polyfill at once: bundled-polyfill-sync.js ("./polyfill-sync").
import { installWhereNeeded, restFailure } from './loader.js';
import { prepareContext } from './worker-patch.js';

/** Installs navigator.locks (options: force, hubUrl); returns it, or null where a native one was kept. */
export function install(options = {}) {
  return installWhereNeeded(options, (settings) => import('./bundled-polyfill-rest.js').then((rest) => rest.install(settings)), restFailure('the chunk of weblocks-wasm/polyfill',
    "Serve every chunk of the app's build (and the last deploy's), or import weblocks-wasm/polyfill-sync."), prepareContext);
}

/** navigator.locks after installation: the polyfill's (pending until the rest loads), or the native one it left in place. */
export const locks = install() || globalThis.navigator && globalThis.navigator.locks || null;
