// A busy holder keeps its lock (spec 4.1: a lock is released only when its callback's promise
// settles, on a steal, or when the agent terminates; native Web Locks keep it through any long
// task). A holder whose callback runs a long synchronous task cannot answer the hub itself; its
// sentinel worker (js/browser/sentinel.js) answers for it. The checker is external: each critical
// section stamps its entry and exit in its own context, the waiter stamps its grant, and the test
// fails if the waiter's section began before the holder's ended.
import { test, expect, call, until, named } from './support/fixtures.js';

// Longer than the hub's dead-context bound (LIVENESS.DEAD_AFTER + TICK = 1.75 s) by far; the issue
// quotes 1.3 s (window) and 1.6 s (worker) as enough to lose the lock before. Longer runs: set
// WEBLOCKS_BUSY_MS.
const TASK_MS = Number(process.env.WEBLOCKS_BUSY_MS ?? 4000);

function report(label, ms) {
  test.info().annotations.push({ type: 'measured', description: `${label}: ${ms.toFixed(1)} ms` });
  console.log(`measured: ${label}: ${ms.toFixed(1)} ms`);
}

async function busyHolderKeepsItsLock(holder, holderPath, waiter, name) {
  const busy = await call(holder, holderPath, 'holdBusy', name, TASK_MS);
  await call(holder, holderPath, 'granted', busy);
  const waiting = await call(waiter, 'request', name);
  await until(waiter, (s) => named(s.pending, name).length === 1, 'the waiter is queued behind the busy holder');
  await call(holder, holderPath, 'go', busy);
  const granted = await call(waiter, 'granted', waiting);
  const section = await call(holder, holderPath, 'section', busy);
  expect(section.enteredAt, 'the busy task ran').not.toBeNull();
  expect(section.exitedAt, 'the busy task ended').not.toBeNull();
  expect(section.exitedAt - section.enteredAt).toBeGreaterThanOrEqual(TASK_MS - 1);
  // The external check: the two critical sections do not overlap.
  expect(granted.at, 'the waiter was granted only after the busy holder left its critical section').toBeGreaterThanOrEqual(section.exitedAt);
  report(`${TASK_MS} ms task: holder left its section -> waiter granted`, granted.at - section.exitedAt);
  expect(await call(holder, holderPath, 'settled', busy)).toEqual({ ok: true });
  expect((await call(holder, holderPath, 'connection')).stats.declaredDead, 'the busy holder was never declared dead').toBe(0);
  await call(waiter, 'release', waiting);
  expect(await call(waiter, 'settled', waiting)).toMatchObject({ ok: true });
}

test(`a tab whose callback runs a ${TASK_MS} ms synchronous task keeps its lock until the callback ends`, async ({ openTab }) => {
  const host = await openTab();
  await call(host, 'query');
  const [a, b] = await Promise.all([openTab(), openTab()]);
  await busyHolderKeepsItsLock(a, [], b, 'busy-window');
});

test(`a dedicated worker whose callback runs a ${TASK_MS} ms synchronous task keeps its lock until the callback ends`, async ({ openTab }) => {
  const host = await openTab();
  await call(host, 'query');
  const [a, b] = await Promise.all([openTab(), openTab()]);
  const w = await call(a, 'spawn', '/tests/browser/pages/worker.js');
  await busyHolderKeepsItsLock(a, [w], b, 'busy-worker');
});

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
