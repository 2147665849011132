// query() while a hub holds new requests back (its startup hold, the reclaim window after a hub
// loss): spec 3.2.2 step 4 takes the snapshot on the lock task queue, after the steps of every
// request made before it, so a request made just before query() is in the snapshot.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MessageChannel } from 'node:worker_threads';
import { createLocalEngine } from '../../../js/engine/index.js';
import { Hub } from '../../../js/hub/hub.js';
import { HubBackend } from '../../../js/browser/hub-backend.js';
import { createLockManager } from '../../../js/api/index.js';

const quiet = () => {};

async function hubAndClient(t, hubOptions) {
  const hub = new Hub(await createLocalEngine(), { log: quiet, ...hubOptions });
  const ports = [];
  const backend = new HubBackend(async () => {
    const { port1, port2 } = new MessageChannel();
    hub.connect(port2);
    ports.push(port1, port2);
    return port1;
  }, { log: quiet });
  t.after(() => {
    hub.stop();
    for (const port of ports) port.close();
  });
  return { hub, locks: createLockManager(backend) };
}

/** Holds `name` until the returned function is called; resolves that function once granted. */
function hold(locks, name) {
  return new Promise((granted) => {
    locks.request(name, () => new Promise((release) => granted(release)));
  });
}

test('a fresh hub\'s startup hold: query() made right after a request sees it held', async (t) => {
  // An origin-wide hub (it announces itself) holds new requests back for STARTUP_HOLD.
  const announce = { postMessage() {}, onmessage: null, close() {} };
  const { locks } = await hubAndClient(t, { announce, liveness: { STARTUP_HOLD: 200 } });
  const held = hold(locks, 'startup');
  try {
    const state = await locks.query();
    assert.deepEqual(state.held.map((l) => l.name), ['startup']);
    assert.deepEqual(state.pending, []);
  } finally {
    (await held)();
  }
});

test('the reclaim window after a hub loss: query() made right after a request sees it, once the window lets it in', async (t) => {
  const { hub, locks } = await hubAndClient(t, { liveness: { RECLAIM_WINDOW: 300 } });
  await locks.query(); // connected and welcomed
  hub.openReclaimWindow();
  const opened = performance.now();
  const held = hold(locks, 'reclaim');
  try {
    const state = await locks.query();
    assert.deepEqual(state.held.map((l) => l.name), ['reclaim']);
    assert.ok(performance.now() - opened >= 250, 'answered after the window closed, with the request in');
  } finally {
    (await held)();
  }
});
