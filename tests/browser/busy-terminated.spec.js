// A busy dedicated worker that is terminated, or whose creator goes, keeps its lock until its
// section really stops running (Chromium runs it on 2 s, longer while its creator's thread is
// busy), then releases it: through its sentinel's silence (nested workers end with their parent),
// or, without a sentinel, once it has surely stopped (js/hub/terminated-worker.js). Chromium only:
// the worker's section stamps a SharedArrayBuffer, which needs a cross-origin-isolated page, and
// the insecure origin of the Firefox and WebKit runs cannot be one (playwright.config.js);
// busy.spec.js checks the same order in every engine with a BroadcastChannel.
import { test, expect, call, until, named, report } from './support/fixtures.js';
import { frameOf } from './support/frame-tab.js';

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

test('a dedicated worker busy from its first lock\'s first line, then terminated, keeps its lock until its section stops running', async ({ openTab }) => {
  // The worker's first request starts its sentinel; the callback blocks the worker's thread before
  // that sentinel could answer, so no sentinel vouches for the worker. After terminate() its
  // silence counts, but the browser may run the busy section on for a while (Chromium: up to 2 s).
  const [a, b] = await Promise.all([openTab('plain.html?coi'), openTab('plain.html?coi')]);
  const w = await call(a, 'spawn', '/tests/browser/pages/worker.js?coi');
  await call(a, 'shareBeat', w);
  await call(a, [w], 'holdBusy', 'busy-first-line', 60_000, { atOnce: true });
  await a.waitForFunction((id) => window.harness.lastBeat(id) !== null, w, { polling: 10 });
  const waiting = await call(b, 'request', 'busy-first-line');
  await until(b, (s) => named(s.pending, 'busy-first-line').length === 1, 'the waiter is queued');
  const terminatedAt = await call(a, 'terminate', w);
  const granted = await call(b, 'granted', waiting);
  const lastBeat = await call(a, 'lastBeat', w);
  report('busy-from-first-line worker terminated -> its section stopped running (last beat)', lastBeat - terminatedAt);
  report('its section stopped -> lock granted elsewhere', granted.at - lastBeat);
  expect(granted.at, 'the waiter was granted only after the worker stopped running its section').toBeGreaterThan(lastBeat);
  await call(b, 'release', waiting);
});

for (const creatorBusyMs of [0, 4000]) {
  const creator = creatorBusyMs === 0 ? '' : `, by a creator that is then busy for ${creatorBusyMs} ms,`;
  test(`a dedicated worker with no sentinel, busy and then terminated${creator} keeps its lock until its section stops running`, async ({ openTab }) => {
  // No sentinel answers for it (none could start: a policy, no Worker): after its creator's
  // terminate() its silence counts, but the browser may run its busy section on (Chromium: until
  // a task on the creator's thread 2 s later, so later still where the creator is busy then).
  const [a, b] = await Promise.all([openTab('plain.html?coi'), openTab('plain.html?coi')]);
  const w = await call(a, 'spawn', '/tests/browser/pages/worker.js?coi&nosentinel');
  await call(a, 'shareBeat', w);
  const busy = await call(a, [w], 'holdBusy', 'busy-no-sentinel', 60_000);
  await call(a, [w], 'granted', busy);
  expect((await call(a, [w], 'backendState')).sentinel, 'the worker has no sentinel').toBeFalsy();
  const waiting = await call(b, 'request', 'busy-no-sentinel');
  await until(b, (s) => named(s.pending, 'busy-no-sentinel').length === 1, 'the waiter is queued');
  await call(a, [w], 'go', busy);
  await a.waitForFunction((id) => window.harness.lastBeat(id) !== null, w, { polling: 10 });
  const terminatedAt = await call(a, 'terminate', w, creatorBusyMs);
  const granted = await call(b, 'granted', waiting);
  const lastBeat = await call(a, 'lastBeat', w);
  report(`busy worker with no sentinel terminated${creator} -> its section stopped running (last beat)`, lastBeat - terminatedAt);
  report('its section stopped -> lock granted elsewhere', granted.at - lastBeat);
  expect(granted.at, 'the waiter was granted only after the worker stopped running its section').toBeGreaterThan(lastBeat);
  await call(b, 'release', waiting);
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
    await call(frame, 'shareBeat', w);
    const busy = await call(frame, [w], 'holdBusy', `busy-frame${which}`, 60_000);
    await call(frame, [w], 'granted', busy);
    const waiting = await call(b, 'request', `busy-frame${which}`);
    await until(b, (s) => named(s.pending, `busy-frame${which}`).length === 1, 'the waiter is queued');
    await call(frame, [w], 'go', busy);
    // The top page keeps the frame's reader of the beat: it outlives the frame.
    await a.evaluate(() => { window.frameLastBeat = document.querySelector('iframe').contentWindow.harness.lastBeat; });
    await a.waitForFunction((id) => window.frameLastBeat(id) !== null, w, { polling: 10 });
    const removedAt = await a.evaluate(() => { document.querySelector('iframe').remove(); return performance.timeOrigin + performance.now(); });
    const granted = await call(b, 'granted', waiting);
    const lastBeat = await a.evaluate((id) => window.frameLastBeat(id), w);
    report(`busy worker${which} of a removed iframe: removed -> its section stopped running (last beat)`, lastBeat - removedAt);
    report('its section stopped -> lock granted elsewhere', granted.at - lastBeat);
    expect(granted.at, 'the waiter was granted only after the worker stopped running its section').toBeGreaterThan(lastBeat);
    await call(b, 'release', waiting);
  });
}
