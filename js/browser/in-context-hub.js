// The in-context fallback itself: a Hub on an engine of its own, in this very context. It is a file
// of its own (build/dist/weblocks-in-context.js, entry classic-in-context.js) that a context loads
// only where the platform offers no hub (local-hub.js), so pages that reach the hub never carry
// the hub and the engine binding.
import { Hub } from '../hub/hub.js';
import { loadHubEngine } from '../hub/load-engine.js';
import { setAssetBase } from '../engine/assets.js';
import { engineWasmUrl } from '../engine/index.js';
import { engineLoadProblem } from '../engine/load-problem.js';

/** A new Hub on an ordinary engine, its wasm next to `assetBase` (the hub's URL). */
export function startInContextHub(assetBase) {
  if (assetBase) setAssetBase(assetBase);
  return loadHubEngine({ preferShared: false }).then(
    (engine) => new Hub(engine, { hubId: `local-${Math.random().toString(36).slice(2)}` }),
    (error) => { throw engineLoadError(error); });
}

function engineLoadError(error) {
  const url = engineWasmUrl({ shared: false }).href;
  return new DOMException(engineLoadProblem(error, {
    who: 'this context',
    policyOf: `this page (${globalThis.location?.href})`,
    otherwise: `Web Locks: the lock engine could not be loaded (${error?.message ?? error}). Serve ${url} (Content-Type application/wasm) next to the polyfill.`,
  }), 'NotSupportedError');
}
