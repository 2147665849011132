// Where the observeLocks client bundle (build/dist/weblocks-observe.js) leaves its entry point for
// the classic polyfill (a registered symbol: the two are separate bundles).
export const OBSERVE_KEY = Symbol.for('weblocks-wasm.observe-client');
