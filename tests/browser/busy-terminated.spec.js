// A busy dedicated worker that is terminated still releases its lock within the heartbeat bound:
// its sentinel dies with it (nested workers end with their parent). Chromium only: the worker's
// section stamps a SharedArrayBuffer, which needs a cross-origin-isolated page, and the insecure
// origin of the Firefox and WebKit runs cannot be one (playwright.config.js).
import { test, expect, call, until, named, report } from './support/fixtures.js';

test('a dedicated worker terminated in the middle of a long synchronous critical section releases its lock within the 2.5 s bound', async ({ openTab }) => {
  // A worker killed in the middle of its busy critical section: its sentinel dies with it
  // (nested workers end with their parent), so the lock goes to the waiter within the heartbeat bound.
  // Isolated pages: the worker's section stamps a SharedArrayBuffer its page reads after the end.
  const [a, b] = await Promise.all([openTab('plain.html?coi'), openTab('plain.html?coi')]);
  const w = await call(a, 'spawn', '/tests/browser/pages/worker.js?coi');
  await call(a, 'shareBeat', w);
  const busy = await call(a, [w], 'holdBusy', 'busy-terminated', 60_000);
  await call(a, [w], 'granted', busy);
  const waiting = await call(b, 'request', 'busy-terminated');
  await until(b, (s) => named(s.pending, 'busy-terminated').length === 1, 'the waiter is queued');
  await call(a, [w], 'go', busy);
  await a.waitForFunction((id) => window.harness.lastBeat(id) !== null, w, { polling: 10 });
  const terminatedAt = await call(a, 'terminate', w);
  const granted = await call(b, 'granted', waiting);
  // terminate() of a busy worker may let it run on a while (Chromium stops a busy worker's script
  // only after a delay): it is still inside its critical section then, and must keep the lock.
  const lastBeat = await call(a, 'lastBeat', w);
  report('busy worker terminated -> its section stopped running (last beat)', lastBeat - terminatedAt);
  report('busy worker\'s section stopped -> lock granted elsewhere', granted.at - lastBeat);
  expect(granted.at, 'the waiter was granted only after the worker stopped running its section').toBeGreaterThan(lastBeat);
  expect(granted.at - lastBeat).toBeLessThan(2500);
  await call(b, 'release', waiting);
});
