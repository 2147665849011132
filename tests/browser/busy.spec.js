// A busy holder keeps its lock (spec 4.1: a lock is released only when its callback's promise
// settles, on a steal, or when the agent terminates; native Web Locks keep it through any long
// task). A holder whose callback runs a long synchronous task cannot answer the hub itself; its
// sentinel worker (js/browser/sentinel.js) answers for it. The checker is external: each critical
// section stamps its entry and exit in its own context, the waiter stamps its grant, and the test
// fails if the waiter's section began before the holder's ended.
import { test, expect, call, until, named, report } from './support/fixtures.js';
import { TASK_MS, busyHolderKeepsItsLock } from './support/busy-holder.js';
import { clockOf, stampOf, expectAfter, between } from './support/clocks.js';

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
  const [holderClock, waiterClock] = [await clockOf(a, [w]), await clockOf(b)];
  const name = 'busy-first-lock';
  const busy = await call(a, [w], 'holdBusy', name, TASK_MS, { atOnce: true });
  await until(b, (s) => named(s.held, name).length === 1, 'the worker holds the lock');
  const waiting = await call(b, 'request', name);
  await until(b, (s) => named(s.pending, name).length === 1, 'the waiter is queued behind the busy holder');
  const granted = await call(b, 'granted', waiting);
  const section = await call(a, [w], 'section', busy);
  expect(section.exitedAt, 'the busy task ended').not.toBeNull();
  const [exited, entered] = [{ at: section.exitedAt, clock: holderClock }, { at: granted.at, clock: waiterClock }];
  expectAfter(entered, exited, 'the waiter was granted only after the busy holder left its critical section');
  report(`first lock, ${TASK_MS} ms task: holder left its section -> waiter granted`, between(exited, entered));
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
  expectAfter(await stampOf(b, [], granted.at), await stampOf(a, [], releasedAt), 'the waiter was granted only after the holder released');
  expect(await call(a, 'settled', held)).toMatchObject({ ok: true });
  for (const tab of [a, b]) expect((await call(tab, 'connection')).stats.declaredDead, 'no tab was declared dead').toBe(0);
  expect(await call(host, 'settled', busy)).toEqual({ ok: true });
  await call(b, 'release', waiting);
});

// A busy worker's section posts its clock on a BroadcastChannel every 20 ms (these pages cannot
// share memory: busy-terminated.spec.js proves the same order exactly, in Chromium). The waiter
// hears the stamps; once it is granted, it keeps listening for WORKER_STOP_WINDOW_MS, long enough
// for any stamp the section posted before the grant, or after it, to arrive.
const WORKER_STOP_WINDOW_MS = 1000;

for (const ending of ['terminated', 'its tab closed']) {
  test(`a dedicated worker busy in a long synchronous critical section keeps its lock until the section stops running, when ${ending === 'terminated' ? 'it is terminated' : 'its tab closes'}`, async ({ openTab }) => {
    // Chromium runs a terminated busy worker on 2 s (a worker of a closed tab too); Firefox and
    // WebKit stop it at once. Its sentinel answers while it runs (Chromium, WebKit); a Firefox
    // worker has none, and the hub waits until it has surely stopped (js/hub/terminated-worker.js).
    const host = await openTab();
    await call(host, 'query');
    const [a, b] = await Promise.all([openTab(), openTab()]);
    const w = await call(a, 'spawn', '/tests/browser/pages/worker.js');
    const [workerClock, waiterClock] = [await clockOf(a, [w]), await clockOf(b)];
    const name = `busy-then-${ending === 'terminated' ? 'terminated' : 'orphaned'}`;
    await call(b, 'hearBeats', name);
    const busy = await call(a, [w], 'holdBusy', name, 60_000, { beatChannel: name });
    await call(a, [w], 'granted', busy);
    const waiting = await call(b, 'request', name);
    await until(b, (s) => named(s.pending, name).length === 1, 'the waiter is queued behind the busy worker');
    await call(a, [w], 'go', busy);
    await b.waitForFunction((channel) => window.harness.heardBeat(channel).count > 0, name, { polling: 10 });
    const endedAt = ending === 'terminated' ? await call(a, 'terminate', w) : await b.evaluate(() => performance.timeOrigin + performance.now());
    if (ending !== 'terminated') await a.close();
    const granted = await call(b, 'granted', waiting);
    await b.evaluate((ms) => new Promise((resolve) => { setTimeout(resolve, ms); }), WORKER_STOP_WINDOW_MS);
    const heard = await call(b, 'heardBeat', name);
    const [lastStamp, entered] = [{ at: heard.last, clock: workerClock }, { at: granted.at, clock: waiterClock }];
    report(`busy worker, ${ending} -> its section's last stamp`, between({ at: endedAt, clock: ending === 'terminated' ? await clockOf(a) : waiterClock }, lastStamp));
    report('its last stamp -> lock granted elsewhere', between(lastStamp, entered));
    expectAfter(entered, lastStamp, 'the waiter was granted only after the worker stopped running its section');
    await call(b, 'release', waiting);
    await until(host, (s) => s.held.length === 0 && s.pending.length === 0, 'nothing is left held or waiting');
  });
}
