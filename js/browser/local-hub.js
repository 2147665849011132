// The fallback where the platform offers no hub (no SharedWorker constructor: service workers,
// shared workers created by the app, some mobile browsers; or a browser that refuses the hub's
// SharedWorker in this frame): a hub in this very context, on an engine of its own. It serves this
// context and the dedicated workers it creates, over the same protocol, so nothing else changes.
import { Hub } from '../hub/hub.js';
import { loadHubEngine } from '../hub/load-engine.js';
import { engineWasmUrl } from '../engine/index.js';
import { engineLoadProblem } from '../engine/load-problem.js';

const hubPromises = new Map(); // lock space (null: the default; a storage bucket's name) -> Promise<Hub>
let warned = false;

/** A port to this context's own hub of a lock space (created on first use). */
export async function localHubPort(reason, space = null) {
  if (!warned) {
    warned = true;
    console.warn(`[weblocks] ${reason}: navigator.locks uses an engine in this context, shared only with the workers it creates, not with other tabs.`);
  }
  if (!hubPromises.has(space)) {
    hubPromises.set(space, loadHubEngine({ preferShared: false }).then(
      (engine) => new Hub(engine, { hubId: `local-${Math.random().toString(36).slice(2)}` }),
      (error) => { throw engineLoadError(error); }));
  }
  const hub = await hubPromises.get(space);
  const channel = new MessageChannel();
  hub.connect(channel.port1);
  return channel.port2;
}

function engineLoadError(error) {
  const url = engineWasmUrl({ shared: false }).href;
  return new DOMException(engineLoadProblem(error, {
    who: 'this context',
    policyOf: `this page (${globalThis.location?.href})`,
    otherwise: `Web Locks: the lock engine could not be loaded (${error?.message ?? error}). Serve ${url} (Content-Type application/wasm) next to the polyfill.`,
  }), 'NotSupportedError');
}
