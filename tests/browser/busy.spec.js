// A busy holder keeps its lock (spec 4.1: a lock is released only when its callback's promise
// settles, on a steal, or when the agent terminates; native Web Locks keep it through any long
// task). A holder whose callback runs a long synchronous task cannot answer the hub itself; its
// sentinel worker (js/browser/sentinel.js) answers for it. The checker is external: each critical
// section stamps its entry and exit in its own context, the waiter stamps its grant, and the test
// fails if the waiter's section began before the holder's ended.
import { test, expect, call, until, named, report } from './support/fixtures.js';
import { TASK_MS, busyHolderKeepsItsLock } from './support/busy-holder.js';

test(`a tab whose callback runs a ${TASK_MS} ms synchronous task keeps its lock until the callback ends`, async ({ openTab }) => {
  const host = await openTab();
  await call(host, 'query');
  const [a, b] = await Promise.all([openTab(), openTab()]);
  await busyHolderKeepsItsLock(a, [], b, 'busy-window');
});

test(`a dedicated worker whose callback runs a ${TASK_MS} ms synchronous task keeps its lock until the callback ends`, async ({ openTab, engine }) => {
  const host = await openTab();
  await call(host, 'query');
  const [a, b] = await Promise.all([openTab(), openTab()]);
  const w = await call(a, 'spawn', '/tests/browser/pages/worker.js');
  await busyHolderKeepsItsLock(a, [w], b, 'busy-worker');
});

test(`a new dedicated worker whose first lock's callback is busy from its first line for ${TASK_MS} ms keeps its lock`, async ({ openTab, engine }) => {
  // The worker's first request: its sentinel is started when it first reaches the hub, and the
  // callback blocks the worker's event loop at once, before the test could do anything else.
  const host = await openTab();
  await call(host, 'query');
  const [a, b] = await Promise.all([openTab(), openTab()]);
  const w = await call(a, 'spawn', '/tests/browser/pages/worker.js');
  const name = 'busy-first-lock';
  const busy = await call(a, [w], 'holdBusy', name, TASK_MS, { atOnce: true });
  await until(b, (s) => named(s.held, name).length === 1, 'the worker holds the lock');
  const waiting = await call(b, 'request', name);
  await until(b, (s) => named(s.pending, name).length === 1, 'the waiter is queued behind the busy holder');
  const granted = await call(b, 'granted', waiting);
  const section = await call(a, [w], 'section', busy);
  expect(section.exitedAt, 'the busy task ended').not.toBeNull();
  expect(granted.at, 'the waiter was granted only after the busy holder left its critical section').toBeGreaterThanOrEqual(section.exitedAt);
  report(`first lock, ${TASK_MS} ms task: holder left its section -> waiter granted`, granted.at - section.exitedAt);
  // A new worker's first grant, from the call (nothing waits for its sentinel: docs/browser.md, Liveness).
  report('a new worker\'s first request -> granted', section.grantedAt - section.requestedAt);
  expect(await call(a, [w], 'settled', busy)).toEqual({ ok: true });
  expect((await call(a, [w], 'connection')).stats.declaredDead, 'the busy holder was never declared dead').toBe(0);
  await call(b, 'release', waiting);
});

test(`a ${TASK_MS} ms synchronous task in the tab that started the hub releases no other tab's lock`, async ({ openTab }) => {
  // WebKit runs a SharedWorker in the web process of the tab that started it and routes its
  // messages through that tab's main thread: while the tab is busy the hub hears no one, and
  // silence it did not hear is no proof of death (docs/browser.md, "The hub's own hearing").
  const host = await openTab();
  await call(host, 'query');
  const [a, b] = await Promise.all([openTab(), openTab()]);
  const name = 'busy-hub-host';
  const held = await call(a, 'request', name);
  await call(a, 'granted', held);
  const waiting = await call(b, 'request', name);
  await until(b, (s) => named(s.pending, name).length === 1, 'the waiter is queued behind the holder');
  const busy = await call(host, 'holdBusy', `${name}-host`, TASK_MS);
  await call(host, 'granted', busy);
  await call(host, 'go', busy);
  let section;
  for (;;) {
    section = await call(host, 'section', busy);
    if (section.exitedAt !== null) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  // Past the busy task, and past the hub's dead-context bound after it: the holder still holds.
  await until(b, (s) => named(s.held, name).length === 1 && named(s.pending, name).length === 1, 'the holder still holds and the waiter still waits');
  expect(await call(a, 'state', held), 'the holder was never told its lock was lost').toBe('held');
  const releasedAt = await call(a, 'release', held);
  const granted = await call(b, 'granted', waiting);
  expect(granted.at, 'the waiter was granted only after the holder released').toBeGreaterThanOrEqual(releasedAt);
  expect(await call(a, 'settled', held)).toMatchObject({ ok: true });
  for (const tab of [a, b]) expect((await call(tab, 'connection')).stats.declaredDead, 'no tab was declared dead').toBe(0);
  expect(await call(host, 'settled', busy)).toEqual({ ok: true });
  await call(b, 'release', waiting);
});

test('a dedicated worker terminated in the middle of a long synchronous critical section has its lock released by the heartbeat', async ({ openTab }) => {
  // Its creator stopped vouching for it (a worker without a sentinel, Firefox) or its sentinel
  // died with it: either way its silence now counts. (That the waiter is granted only after the
  // section stopped running is checked in Chromium, busy-terminated.spec.js: it needs a
  // cross-origin-isolated page.)
  const host = await openTab();
  await call(host, 'query');
  const [a, b] = await Promise.all([openTab(), openTab()]);
  const w = await call(a, 'spawn', '/tests/browser/pages/worker.js');
  const name = 'busy-then-terminated';
  const busy = await call(a, [w], 'holdBusy', name, 60_000);
  await call(a, [w], 'granted', busy);
  const waiting = await call(b, 'request', name);
  await until(b, (s) => named(s.pending, name).length === 1, 'the waiter is queued behind the busy worker');
  await call(a, [w], 'go', busy);
  const terminatedAt = await call(a, 'terminate', w);
  const granted = await call(b, 'granted', waiting);
  report('busy worker terminated -> lock granted elsewhere', granted.at - terminatedAt);
  await call(b, 'release', waiting);
  await until(host, (s) => s.held.length === 0 && s.pending.length === 0, 'nothing is left held or waiting');
});
