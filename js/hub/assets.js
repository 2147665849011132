// Where the engine's wasm files are. Modules use the engine's default (build/wasm/, found from
// js/engine/index.js with import.meta.url). The classic bundles in build/dist/ carry copies of the
// wasm files next to themselves and set the base to their own script URL.
let base = null;

export function setAssetBase(url) {
  base = url;
}

/** The URL of an engine module, or undefined for the engine's default location. */
export function engineWasmUrl({ shared }) {
  if (base === null) return undefined;
  return new URL(shared ? 'weblocks-engine-shared.wasm' : 'weblocks-engine.wasm', base).href;
}
