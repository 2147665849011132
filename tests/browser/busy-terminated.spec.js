// A busy dedicated worker that is terminated, or whose creator goes, keeps its lock until its
// section really stops running (Chromium runs it on 2 s, longer while its creator's thread is
// busy), then releases it: through its sentinel's silence (nested workers end with their parent),
// or, without a sentinel, once it has surely stopped (js/hub/terminated-worker.js). Chromium only:
// the worker's section stamps a SharedArrayBuffer, which needs a cross-origin-isolated page, and
// the insecure origin of the Firefox and WebKit runs cannot be one (playwright.config.js);
// busy.spec.js checks the same order in every engine with a BroadcastChannel.
import { test, expect, call, until, named, report } from './support/fixtures.js';
import { frameOf } from './support/frame-tab.js';
import { clockOf, stampOf, expectAfter, between } from './support/clocks.js';

/**
 * Worker `w` of tab `a` holds `name`, busy in its section (stamping its beat), and tab `b` waits for
 * it. atOnce: the section starts in the callback's first line, before the test can ask; otherwise
 * whileHeld() runs once the lock is granted, before the section starts. The worker's clock is read
 * before it gets busy (./support/clocks.js).
 */
async function busyWorkerWithWaiter(a, b, w, name, { atOnce = false, whileHeld = async () => {} } = {}) {
  const clocks = { worker: await clockOf(a, [w]), waiter: await clockOf(b) };
  await call(a, 'shareBeat', w);
  const busy = await call(a, [w], 'holdBusy', name, 60_000, { atOnce });
  const sectionRuns = () => a.waitForFunction((id) => window.harness.lastBeat(id) !== null, w, { polling: 10 });
  if (atOnce) {
    await sectionRuns();
  } else {
    await call(a, [w], 'granted', busy);
    await whileHeld();
  }
  const waiting = await call(b, 'request', name);
  await until(b, (s) => named(s.pending, name).length === 1, 'the waiter is queued');
  if (!atOnce) {
    await call(a, [w], 'go', busy);
    await sectionRuns();
  }
  return { waiting, clocks };
}

/** Terminates the busy worker (then keeps its creator busy `creatorBusyMs`); the waiter must be granted only after the section's last beat. */
async function terminatedWorkerKeepsItsLockUntilItStops(a, b, w, { waiting, clocks }, label, creatorBusyMs = 0) {
  const terminatedAt = await call(a, 'terminate', w, creatorBusyMs);
  const granted = await call(b, 'granted', waiting);
  // Read after the grant: a section still running then would have stamped a later beat.
  const lastBeat = { at: await call(a, 'lastBeat', w), clock: clocks.worker };
  const entered = { at: granted.at, clock: clocks.waiter };
  report(`${label} terminated -> its section stopped running (last beat)`, between(await stampOf(a, [], terminatedAt), lastBeat));
  report('its section stopped -> lock granted elsewhere', between(lastBeat, entered));
  expectAfter(entered, lastBeat, 'the waiter was granted only after the worker stopped running its section');
  await call(b, 'release', waiting);
  return between(lastBeat, entered);
}

test('a dedicated worker terminated in the middle of a long synchronous critical section releases its lock within the 2.5 s bound', async ({ openTab }) => {
  // A worker killed in the middle of its busy critical section: its sentinel dies with it
  // (nested workers end with their parent), so the lock goes to the waiter within the heartbeat bound.
  const [a, b] = await Promise.all([openTab('plain.html?coi'), openTab('plain.html?coi')]);
  const w = await call(a, 'spawn', '/tests/browser/pages/worker.js?coi');
  const busy = await busyWorkerWithWaiter(a, b, w, 'busy-terminated');
  expect(await terminatedWorkerKeepsItsLockUntilItStops(a, b, w, busy, 'busy worker')).toBeLessThan(2500);
});

test('a dedicated worker busy from its first lock\'s first line, then terminated, keeps its lock until its section stops running', async ({ openTab }) => {
  // A worker starts its sentinel once its first request is answered: here its thread is busy from
  // then on, so no sentinel ever answers for it. Its creator says it ended only once it has surely
  // stopped (Chromium runs it on 2 s after terminate()).
  const [a, b] = await Promise.all([openTab('plain.html?coi'), openTab('plain.html?coi')]);
  const w = await call(a, 'spawn', '/tests/browser/pages/worker.js?coi');
  const busy = await busyWorkerWithWaiter(a, b, w, 'busy-first-line', { atOnce: true });
  await terminatedWorkerKeepsItsLockUntilItStops(a, b, w, busy, 'busy-from-first-line worker');
});

for (const creatorBusyMs of [0, 4000]) {
  const creator = creatorBusyMs === 0 ? '' : `, by a creator that is then busy for ${creatorBusyMs} ms,`;
  test(`a dedicated worker with no sentinel, busy and then terminated${creator} keeps its lock until its section stops running`, async ({ openTab }) => {
    // No sentinel answers for it (none could start: a policy, no Worker): the browser may run its
    // busy section on (Chromium: until a task on the creator's thread 2 s later, so later still
    // where the creator is busy then).
    const [a, b] = await Promise.all([openTab('plain.html?coi'), openTab('plain.html?coi')]);
    const w = await call(a, 'spawn', '/tests/browser/pages/worker.js?coi&nosentinel');
    const busy = await busyWorkerWithWaiter(a, b, w, 'busy-no-sentinel', {
      whileHeld: async () => expect((await call(a, [w], 'backendState')).sentinel, 'the worker has no sentinel').toBeFalsy(),
    });
    await terminatedWorkerKeepsItsLockUntilItStops(a, b, w, busy, `busy worker with no sentinel${creator}`, creatorBusyMs);
  });
}

for (const sentinel of [true, false]) {
  const which = sentinel ? '' : ' with no sentinel';
  test(`a busy dedicated worker${which} of an iframe that is removed keeps its lock until its section stops running`, async ({ openTab }) => {
    // The frame says bye as it goes, and the browser terminates its worker, but a busy one runs on
    // (Chromium: until a task on the frame's thread 2 s later).
    const [a, b] = await Promise.all([openTab('plain.html?coi'), openTab('plain.html?coi')]);
    await a.evaluate(async (url) => {
      const frame = document.createElement('iframe');
      frame.src = url;
      const loaded = new Promise((resolve) => { frame.addEventListener('load', resolve, { once: true }); });
      document.body.appendChild(frame);
      await loaded;
    }, '/tests/browser/pages/plain.html?coi');
    const frame = frameOf(a);
    await frame.waitForFunction(() => typeof window.harness === 'object');
    const w = await call(frame, 'spawn', `/tests/browser/pages/worker.js?coi${sentinel ? '' : '&nosentinel'}`);
    const { waiting, clocks } = await busyWorkerWithWaiter(frame, b, w, `busy-frame${which}`);
    // The top page keeps the frame's reader of the beat: it outlives the frame.
    await a.evaluate(() => { window.frameLastBeat = document.querySelector('iframe').contentWindow.harness.lastBeat; });
    const topClock = await clockOf(a);
    const removedAt = await a.evaluate(() => { document.querySelector('iframe').remove(); return performance.timeOrigin + performance.now(); });
    const granted = await call(b, 'granted', waiting);
    const lastBeat = { at: await a.evaluate((id) => window.frameLastBeat(id), w), clock: clocks.worker };
    const entered = { at: granted.at, clock: clocks.waiter };
    report(`busy worker${which} of a removed iframe: removed -> its section stopped running (last beat)`, between({ at: removedAt, clock: topClock }, lastBeat));
    report('its section stopped -> lock granted elsewhere', between(lastBeat, entered));
    expectAfter(entered, lastBeat, 'the waiter was granted only after the worker stopped running its section');
    await call(b, 'release', waiting);
  });
}
