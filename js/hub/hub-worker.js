// The SharedWorker script of the hub: one per origin (per script URL + name: keep both stable
// across deploys, or old and new tabs get separate lock spaces). Loads the lock engine and serves
// every port that connects. Ports that arrive while the engine loads wait: a MessagePort queues
// messages until it is started.
import { Hub } from './hub.js';
import { loadHubEngine } from './load-engine.js';
import { PROTOCOL_VERSION, H, HUB_NAME } from './protocol.js';

const waiting = [];
let hub = null;
let loadError = null;

function refuse(port) {
  port.postMessage({
    t: H.rejected, v: PROTOCOL_VERSION, reason: 'engine',
    message: `The Web Locks hub could not load its lock engine: ${loadError?.message ?? loadError}`,
  });
}

self.addEventListener('connect', (event) => {
  const port = event.ports[0];
  if (hub !== null) hub.connect(port);
  else if (loadError !== null) refuse(port);
  else waiting.push(port);
});

loadHubEngine().then((engine) => {
  const announce = typeof BroadcastChannel === 'function' ? new BroadcastChannel(HUB_NAME) : null;
  hub = new Hub(engine, { announce });
  self.weblocksHub = hub; // for DevTools
  for (const port of waiting.splice(0)) hub.connect(port);
}, (error) => {
  loadError = error;
  console.error(`[weblocks hub] the lock engine failed to load: ${error?.stack ?? error}`);
  for (const port of waiting.splice(0)) refuse(port);
});
