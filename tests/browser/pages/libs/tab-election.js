// tab-election's Spoke, as published (bundled from node_modules by scripts/build-test-libs.mjs),
// driven by libs-tab-election.spec.js. The Spoke starts a dedicated module worker (the Hub,
// tab-election-hub.js): the workers of all tabs elect one leader with navigator.locks inside the
// workers; the tabs' calls go to the leader's services over BroadcastChannel.
import { Spoke } from '/build/libs/tab-election.js';
import { counter, probeNative } from './common.js';

let spoke = null;
let client = null;
const workerEvents = [];
let onLeader;
const leadership = new Promise((resolve) => { onLeader = resolve; });
let onStarted;
const workerStarted = new Promise((resolve) => { onStarted = resolve; });

window.lib = {
  ready: true,
  probeNative,
  /** Starts this tab's Spoke (and so its Hub worker) for the app `name`. */
  start(name) {
    spoke = new Spoke({ workerUrl: new URL('./tab-election-hub.js', import.meta.url).href, name, version: '1' });
    // What this tab's own worker reports: that it started, and when its Hub became the leader.
    spoke.worker.addEventListener('message', (event) => {
      const m = event.data;
      if (!m || typeof m.type !== 'string') return;
      workerEvents.push(m);
      if (m.type === 'leader') onLeader(m);
      if (m.type === 'started') onStarted(m);
    });
    client = spoke.client('counter');
    return true;
  },
  workerEvents: () => workerEvents.slice(),
  /** Resolves when this tab's worker has loaded and started its Hub: { workerId, at }. */
  workerStarted: () => workerStarted,
  /** Resolves when this tab's worker becomes the leader: { workerId, at }. */
  leadership: () => leadership,
  /** n calls at once to the leader's counter.increment(key): what each returned. */
  increments: (key, n) => Promise.all(Array.from({ length: n }, () => client.increment(key))),
  whoLeads: () => client.whoLeads(),
  counter: (key) => counter.read(key),
  /** The library's own shutdown: Spoke.close() terminates this tab's Hub worker. */
  close() { const at = performance.timeOrigin + performance.now(); spoke.close(); return at; },
};
