// The SharedWorker script of the hub: one per origin (per script URL + name: keep both stable
// across deploys, or old and new tabs get separate lock spaces). Loads the lock engine and serves
// every port that connects. Ports that arrive while the engine loads wait: a MessagePort queues
// messages until it is started.
import { Hub } from './hub.js';
import { randomUuid } from '../api/random-id.js';
import { loadHubEngine } from './load-engine.js';
import { takeOver } from './succession.js';
import { PROTOCOL_VERSION, C, H, HUB_NAME } from './protocol.js';
/** @import { HubMessage } from './protocol.js' */
import { engineWasmUrl } from '../engine/index.js';
import { engineLoadProblem } from '../engine/load-problem.js';

const waiting = [];
let hub = null;
let loadError = null;

function refuse(port) {
  const wasm = engineWasmUrl({ shared: false }).href;
  port.postMessage(/** @satisfies {HubMessage} */ ({
    t: H.rejected, v: PROTOCOL_VERSION, reason: 'engine',
    message: engineLoadProblem(loadError, {
      who: 'the lock hub',
      policyOf: `the hub script ${self.location.href}`,
      otherwise: `Web Locks: the lock hub could not load its lock engine (${loadError?.message ?? loadError}). Serve ${wasm} and weblocks-engine-shared.wasm (Content-Type application/wasm) next to the hub script ${self.location.href}.`,
    }),
  }));
  // Ports this context hands its dedicated workers: refused alike, so that they fail at once too.
  port.onmessage = (event) => {
    if (event.data?.t === C.adopt) for (const adopted of event.ports) refuse(adopted);
  };
}

self.addEventListener('connect', (event) => {
  const port = event.ports[0];
  if (hub !== null) hub.connect(port);
  else if (loadError !== null) refuse(port);
  else waiting.push(port);
});

const hubId = randomUuid();
const log = (level, text) => (console[level] ?? console.log).call(console, `[weblocks hub ${hubId.slice(0, 8)}] ${text}`);
// The lock space is this SharedWorker's (its script URL and name): its record (succession.js)
// says whether the hub before this one left clients behind.
Promise.all([loadHubEngine(), takeOver(`${self.name || HUB_NAME} ${self.location.href}`, hubId, { log })]).then(([engine, succession]) => {
  // Announced on the channel named as this SharedWorker: a storage bucket's hub (its own lock
  // space) never disturbs the default one's clients.
  const announce = typeof BroadcastChannel === 'function' ? new BroadcastChannel(self.name || HUB_NAME) : null;
  // The windows' alive databases (alive.js) and the contexts' held markers (held-markers.js) are
  // deleted through this worker's IndexedDB.
  const indexedDB = typeof self.indexedDB === 'object' ? self.indexedDB : null;
  hub = new Hub(engine, { hubId, announce, hearing: new MessageChannel(), succession, indexedDB });
  /** @type {any} */ (self).weblocksHub = hub; // for DevTools
  for (const port of waiting.splice(0)) hub.connect(port);
}, (error) => {
  loadError = error;
  console.error(`[weblocks hub] the lock engine failed to load: ${error?.stack ?? error}`);
  for (const port of waiting.splice(0)) refuse(port);
});
