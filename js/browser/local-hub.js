// The fallback where no SharedWorker can be reached (no SharedWorker constructor: service workers,
// shared workers created by the app, some mobile browsers; or a dedicated worker whose creator did
// not answer): a hub in this very context, on an engine of its own. It serves this context and the
// dedicated workers it creates, over the same protocol, so nothing else changes.
import { Hub } from '../hub/hub.js';
import { loadHubEngine } from '../hub/load-engine.js';

let hubPromise = null;
let warned = false;

/** A port to this context's own hub (created on first use). */
export async function localHubPort(reason) {
  if (!warned) {
    warned = true;
    console.warn(`[weblocks] ${reason}: navigator.locks uses an engine in this context, shared only with the workers it creates, not with other tabs.`);
  }
  if (hubPromise === null) hubPromise = loadHubEngine({ preferShared: false }).then((engine) => new Hub(engine, { hubId: `local-${Math.random().toString(36).slice(2)}` }));
  const hub = await hubPromise;
  const channel = new MessageChannel();
  hub.connect(channel.port1);
  return channel.port2;
}
