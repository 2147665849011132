// Where the engine's wasm files are served: next to the hub script. The browser entries set the
// base (the classic bundles: their own URL; the ES modules: the hub's URL). Unset (Node), the
// engine loads the package's own build/dist/ files.
let base = null;

export function setAssetBase(url) {
  base = url;
}

export function assetBase() {
  return base;
}

/** The URL of an engine module, or undefined for the engine's default location. */
export function engineWasmUrl({ shared }) {
  return servedNextToHub(shared ? 'weblocks-engine-shared.wasm' : 'weblocks-engine.wasm');
}

/** The in-context fallback's script (js/browser/classic-in-context.js), served next to the hub. */
export function inContextScriptUrl() {
  return servedNextToHub('weblocks-in-context.js');
}

/** The observeLocks client's script (js/browser/classic-observe.js), served next to the hub. */
export function observeScriptUrl() {
  return servedNextToHub('weblocks-observe.js');
}

/** The URL of a build/dist/ file served next to the hub, or undefined where no base is set. */
function servedNextToHub(file) {
  return base === null ? undefined : new URL(file, base).href;
}
