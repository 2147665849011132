// A waiting request that a context re-registers with a hub outside its reclaim window (a hub past
// its youth, or the window already closed) is handed to the engine at once and may be granted at
// once. The context must come out holding it, and its release must reach the hub. (Found by the
// machine lock space's chaos test: the grant went out before the welcome, the welcome marked the
// request as waiting again, and the release was never sent: the hub kept the lock for good.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createLocalEngine } from '../../../js/engine/index.js';
import { Hub } from '../../../js/hub/hub.js';
import { hubContext } from './hub-context.js';
import { until } from './until.js';

const quiet = () => {};

test('a waiting request granted as it is re-registered outside the reclaim window is released at the end of its callback', async (t) => {
  let hub = new Hub(await createLocalEngine(), { hubId: 'first', log: quiet });
  const ports = [];
  t.after(() => { hub.stop(); for (const port of ports) port.close(); });
  const client = (clientId) => hubContext({ hubNow: () => hub, ports, clientId, options: { liveness: { HUB_SILENT_AFTER: 60_000 } } });
  const holder = client('holder');
  const waiter = client('waiter');
  let letGo;
  const held = holder.locks.request('x', () => new Promise((resolve) => { letGo = resolve; }));
  await until(() => letGo !== undefined, 'the holder holds x');
  let ran = 0;
  // The callback is still running when the welcome arrives (a grant and the welcome come in separate tasks).
  const waited = waiter.locks.request('x', async () => { await new Promise((resolve) => setTimeout(resolve, 20)); ran++; });
  await until(() => hub.engine.snapshot().pending.length === 1 && waiter.backend.hubId === 'first', 'the waiter waits, welcomed by the first hub');

  // The hub is lost; its successor has no reclaim window (RECLAIM_WINDOW 0: as a hub past its
  // youth), and the holder never comes back: the waiter's request is granted as it re-registers.
  hub.stop();
  hub = new Hub(await createLocalEngine(), { hubId: 'second', log: quiet, liveness: { RECLAIM_WINDOW: 0 } });
  waiter.backend.hubLost();
  await waited;
  assert.equal(ran, 1);
  // Its release reaches the hub: nothing of x is left held there.
  await until(() => hub.engine.snapshot().held.length === 0, 'the waiter\'s release reached the hub', 3000);
  letGo();
  await held.catch(() => {});
});
