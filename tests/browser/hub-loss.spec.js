// Hub loss: the hub SharedWorker lives in the process of one tab (the one that started it: in
// every engine here the specs start it in a tab alone); when that process dies the hub dies with
// it. The other tabs notice, get a fresh hub, and re-register the locks they hold and the requests
// they wait for; the new hub's reclaim window admits nothing new until they have. Mutual exclusion
// holds throughout. Engines differ in what the survivors see (docs/browser.md "Liveness"): in
// Chromium the next `new SharedWorker` gets a fresh hub; in Firefox the old port goes silent;
// WebKit relaunches the dead worker and hands it the survivors' original ports as fresh `connect`
// events. Times are recorded, not asserted.
import { test, expect, call, until, named, report } from './support/fixtures.js';
import { FORBIDS_SENTINEL, openAt } from './support/policy-tabs.js';
import { stampOf as stamp, expectAfter, between } from './support/clocks.js';

// Longer than the survivors' detection of the loss (~1-2 s) plus the new hub's reclaim window (LIVENESS.RECLAIM_WINDOW, 2.5 s).
const BUSY_ACROSS_LOSS_MS = 6000;
// A task that starts at the grant runs while the waiter queues and the test kills the hub (about
// a second more under load).
const BUSY_FROM_FIRST_LINE_MS = 8000;
// The BroadcastChannel a busy holder's section stamps (holdBusy's beatChannel) and its waiter hears:
// proof that the task runs when the hub dies. Started with go() (a timer), it did not yet in
// Firefox, where a background tab's timer fired 0.75-0.99 s after the kill (3 runs of 3).
const BUSY_BEAT = 'busy-across-hub-loss';

// Firefox attaches a SharedWorker made while a page busy across the hub's death has not yet taken
// in that death to the dead hub, and keeps it there as long as its page lives: a survivor or a
// newcomer that connects then never reaches a new hub (docs/browser.md, "Hub loss and reclaim",
// Firefox's dead shared worker). A page cannot close a SharedWorker it made (only its unload does).
const FIREFOX_DEAD_SHARED_WORKER = 'Firefox attaches a SharedWorker made while a page busy across the hub\'s death has not taken in that death to the dead hub, for as long as its page lives (docs/browser.md)';

/**
 * Waits until every page is on a hub other than `oldHubId`, failing at once if two of the
 * `exclusive` handles ([page, handle] on one lock name) are held together: mutual exclusion is
 * checked on the pages' own handle states, which need no hub to answer.
 */
async function recoverWithoutOverlap(pages, oldHubId, exclusive, timeoutMs = 20_000) {
  const started = Date.now();
  const deadline = started + timeoutMs;
  for (;;) {
    const states = await Promise.all(exclusive.map(([page, id]) => call(page, 'state', id)));
    expect(states.filter((s) => s === 'held').length,
      `one holder at most after the hub died (states ${JSON.stringify(states)}, ${Date.now() - started} ms after the kill)`).toBeLessThanOrEqual(1);
    const connections = await Promise.all(pages.map((page) => call(page, 'connection')));
    if (connections.every((c) => c.hubId !== null && c.hubId !== oldHubId)) return connections;
    if (Date.now() > deadline) throw new Error(`not every page reached a new hub within ${timeoutMs} ms: ${JSON.stringify(connections)}; states ${JSON.stringify(states)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Polls until `waiter` hears the busy section's stamps (BUSY_BEAT): proof that its task runs. */
async function theTaskRuns(waiter, who) {
  await expect.poll(async () => (await call(waiter, 'heardBeat', BUSY_BEAT)).count, { message: `the busy ${who}'s task runs` }).toBeGreaterThan(0);
}

/** `holder` ([page, path]) takes `name` with a callback busy from its first line; resolves to the handle once it runs. */
async function busyFromFirstLine([page, path], name, waiter, who) {
  await call(waiter, 'hearBeats', BUSY_BEAT);
  const busy = await call(page, path, 'holdBusy', name, BUSY_FROM_FIRST_LINE_MS, { atOnce: true, beatChannel: BUSY_BEAT });
  await theTaskRuns(waiter, who);
  return busy;
}

// Pages whose sentinel's script comes 30 s late (server.mjs, /slow-sentinel/): it surely has not
// answered during the test. The host starts the hub; a and b are isolated pages.
const SLOW_SENTINEL_PAGE = 'deploy.html?polyfill=/slow-sentinel/weblocks-polyfill-sync.js';
async function slowSentinelTabs(openTab) {
  const host = await openTab(SLOW_SENTINEL_PAGE);
  await call(host, 'query');
  const [a, b] = [await openTab(`${SLOW_SENTINEL_PAGE}&coi`), await openTab(`${SLOW_SENTINEL_PAGE}&coi`)];
  return { host, a, b };
}

/** The host (with the hub) and pages a and b; a has a dedicated worker `w` that has no sentinel. */
async function workerWithoutSentinel(openTab) {
  const host = await openTab();
  await call(host, 'query');
  // A worker of the host's too: Firefox's killHubProcess finds the hub's process as the one with
  // the most worker threads (the host's: hub, sentinel, this worker; a's: its sentinel, its worker).
  await call(host, 'spawn', '/tests/browser/pages/worker.js');
  const [a, b] = await Promise.all([openTab('plain.html?coi'), openTab('plain.html?coi')]);
  const w = await call(a, 'spawn', '/tests/browser/pages/worker.js?coi&nosentinel');
  expect((await call(a, [w], 'backendState')).sentinel, 'the worker has no sentinel').toBeNull();
  return { host, a, b, w };
}

/**
 * `holder` ([page, path to its worker, or []]) holds `name` as its busy handle `busy`: the waiter
 * queues for it, the holder's task starts, and the hub's process dies. The waiter must be granted
 * only after the holder left its critical section, and the holder's result must be accepted.
 * Resolves to the ms from that exit to the grant.
 */
async function busyAcrossHubLoss({ holder: [page, path], busy, name, waiter, host, killHubProcess, who, running = false }) {
  const waiting = await call(waiter, 'request', name);
  await until(waiter, (s) => named(s.pending, name).length === 1, `the waiter is queued behind the busy ${who}`);
  const { hubId } = await call(waiter, 'connection');
  // running: the task runs already (busy from its callback's first line: the caller heard its beats).
  if (!running) {
    await call(waiter, 'hearBeats', BUSY_BEAT);
    await call(page, path, 'go', busy);
    await theTaskRuns(waiter, who);
  }
  await killHubProcess(host);
  const granted = await call(waiter, 'granted', waiting);
  expect((await call(waiter, 'connection')).hubId, 'the waiter was granted by a new hub: the kill took the hub down').not.toBe(hubId);
  const section = await call(page, path, 'section', busy);
  expect(section.exitedAt, 'the busy task ended').not.toBeNull();
  const [exited, entered] = [await stamp(page, path, section.exitedAt), await stamp(waiter, [], granted.at)];
  expectAfter(entered, exited, `the waiter was granted only after the busy ${who} left its critical section`);
  expect(await call(page, path, 'settled', busy), `the ${who}'s callback result was accepted`).toEqual({ ok: true });
  await call(waiter, 'release', waiting);
  return between(exited, entered);
}

test('when the hub\'s process dies, the tabs that hold and wait re-register with a new hub in order, with no overlap', async ({ openTab, killHubProcess }) => {
  // The host alone creates the hub, in its own process; the others are pages of the same origin
  // in processes of their own (isolated pages in Chromium; every tab in Firefox and WebKit), so
  // the kill takes down the host and the hub only.
  const host = await openTab();
  await call(host, 'query');
  const [a, b] = await Promise.all([openTab('plain.html?coi'), openTab('plain.html?coi')]);
  const held = await call(a, 'request', 'survivor');
  await call(a, 'granted', held);
  const sharedA = await call(a, 'request', 'readers', { mode: 'shared' });
  const sharedB = await call(b, 'request', 'readers', { mode: 'shared' });
  await Promise.all([call(a, 'granted', sharedA), call(b, 'granted', sharedB)]);
  const waiting = await call(b, 'request', 'survivor');
  const hostHeld = await call(host, 'request', 'host-only');
  await call(host, 'granted', hostHeld);
  await until(a, (s) => named(s.pending, 'survivor').length === 1, 'b waits behind a');
  const before = await call(a, 'connection');

  await killHubProcess(host);
  const crashedAt = await call(a, 'clock');

  const [afterA, afterB] = await recoverWithoutOverlap([a, b], before.hubId, [[a, held], [b, waiting]]);
  report('hub process killed -> holder and waiter on a new hub', (await call(a, 'clock')) - crashedAt);
  expect(afterA.hubId).toBe(afterB.hubId);
  // One loss each, in every engine (in WebKit: the relaunched hub's greeting on the old port, or
  // the identity check's fresh connection, whichever comes first; the other is then only a question).
  expect(afterA.stats.hubLosses, 'hub losses seen by a').toBe(1);
  expect(afterB.stats.hubLosses, 'hub losses seen by b').toBe(1);

  // A newcomer during or after the window queues behind what was re-registered.
  const c = await openTab('plain.html?coi');
  const late = await call(c, 'request', 'survivor');
  const state = await until(c, (s) => named(s.pending, 'survivor').length === 2, 'b and c wait');
  expect(await call(a, 'state', held)).toBe('held');
  expect(named(state.held, 'survivor')).toEqual([{ name: 'survivor', mode: 'exclusive', clientId: afterA.clientId }]);
  expect(named(state.pending, 'survivor').map((l) => l.clientId)).toEqual([afterB.clientId, (await call(c, 'connection')).clientId]);
  expect(named(state.held, 'readers').map((l) => l.clientId).sort()).toEqual([afterA.clientId, afterB.clientId].sort());
  expect(named(state.held, 'host-only'), 'the crashed tab\'s lock is gone').toEqual([]);
  report('hub process killed -> state re-registered and visible', (await call(a, 'clock')) - crashedAt);

  // Order is proven by the states (b waits while a holds, c while b holds); the clocks add that
  // no grant came before the release it needed (within the processes' clock skew, above).
  expect(await call(b, 'state', waiting)).toBe('pending');
  const releasedA = await stamp(a, [], await call(a, 'release', held));
  const grantedB = await stamp(b, [], (await call(b, 'granted', waiting)).at);
  expectAfter(grantedB, releasedA, 'b was granted only after a released');
  expect(await call(c, 'state', late)).toBe('pending');
  const releasedB = await stamp(b, [], await call(b, 'release', waiting));
  const grantedC = await stamp(c, [], (await call(c, 'granted', late)).at);
  expectAfter(grantedC, releasedB, 'c was granted only after b released');
  await call(c, 'release', late);
  for (const [page, id] of [[a, held], [b, waiting], [c, late]]) expect(await call(page, 'settled', id)).toMatchObject({ ok: true });
  await call(a, 'release', sharedA);
  await call(b, 'release', sharedB);
  expect(await call(a, 'settled', sharedA)).toMatchObject({ ok: true });
});

test('a tab that opens right after the hub died, before the survivors noticed, still waits for the lock a survivor holds', async ({ openTab, killHubProcess }) => {
  const host = await openTab();
  await call(host, 'query');
  const a = await openTab('plain.html?coi');
  const held = await call(a, 'request', 'contested');
  await call(a, 'granted', held);
  const before = await call(a, 'connection');

  await killHubProcess(host);
  // The newcomer creates the new hub at once. The hub announces itself; `a` answers that it held
  // locks under another hub (and its sentinel answers too, from its own thread: the first answer
  // counts), so the new hub opens its reclaim window before granting anything.
  const newcomer = await openTab('plain.html?coi');
  const crashedAt = await call(a, 'clock');
  const late = await call(newcomer, 'request', 'contested');
  const [after] = await recoverWithoutOverlap([a, newcomer], before.hubId, [[a, held], [newcomer, late]]);
  report('newcomer started a hub -> survivor on it', (await call(a, 'clock')) - crashedAt);
  expect(after.hubId).toBe((await call(newcomer, 'connection')).hubId);
  expect(await call(a, 'state', held)).toBe('held');
  const state = await until(newcomer, (s) => named(s.pending, 'contested').length === 1, 'the newcomer waits');
  expect(named(state.held, 'contested')).toEqual([{ name: 'contested', mode: 'exclusive', clientId: after.clientId }]);
  expect(await call(newcomer, 'state', late)).toBe('pending');
  const released = await stamp(a, [], await call(a, 'release', held));
  const granted = await stamp(newcomer, [], (await call(newcomer, 'granted', late)).at);
  expectAfter(granted, released, 'the newcomer was granted only after the survivor released');
  await call(newcomer, 'release', late);
  expect(await call(a, 'settled', held)).toMatchObject({ ok: true });
});

for (const taskMs of [2500, 6000]) {
  test(`a tab that opens right after the hub died, while the survivor that holds the lock is busy in its callback (${taskMs / 1000} s), is granted only after the survivor left its section`, async ({ openTab, killHubProcess, engine }) => {
    // The newcomer starts the next hub at once, within a second of the old hub's last ping: the
    // busy survivor cannot answer the announcement, and its sentinel has not found its hub silent
    // yet. Its sentinel answers the announcement anyway (js/browser/sentinel-worker.js); before it
    // did, the start-up hold (100 ms) closed with no answer and the newcomer was granted the lock
    // about 1.7 s before the survivor left its section (Chromium, 3 runs of 3), the survivor's
    // reclaim then refused as stolen: the same refusal as the case above's rare failure under load.
    // Without the fix this failed in Chromium only (WebKit passed before too).
    // 6 s: longer than the newcomer waits for an answer. WebKit runs the next hub in the busy
    // survivor's process, deaf until its task ends: the newcomer connects again twice with no
    // answer, and the hub reads its three hellos at once. It took a later one as the context
    // resuming, forgot the request, and refused it sent again (token reused); or moved the context
    // onto a port it had left. The newcomer then waited for ever, the lock free (CI run K; 3 runs
    // of 4 in WebKit with this case, before js/hub/resume.js and the hellos' `attempt`).
    // Firefox: the newcomer's `new SharedWorker` joins the dead hub (FIREFOX_DEAD_SHARED_WORKER):
    // left out rather than counted as a pass.
    test.skip(engine === 'firefox', FIREFOX_DEAD_SHARED_WORKER);
    // Pages in processes of their own: Firefox and WebKit put isolated pages in one process, where
    // the survivor's task would block the newcomer's page too.
    const page = engine === 'chromium' ? 'plain.html?coi' : 'plain.html';
    const host = await openTab();
    await call(host, 'query');
    const [a, observer] = [await openTab(page), await openTab(page)];
    await call(observer, 'hearBeats', 'busy-survivor');
    // Its sentinel runs and answers the hub before the task: it is what speaks for the survivor.
    const first = await call(a, 'request', 'first');
    await call(a, 'granted', first);
    await expect.poll(async () => (await call(a, 'backendState')).sentinel?.answered, { message: 'the survivor\'s sentinel answered the hub', timeout: 15_000 }).toBe(true);
    const { hubId } = await call(a, 'connection');
    const name = 'busy-survivor';
    // Busy from its callback's first line (a background tab's timer may fire a second late), its
    // section stamping a channel the observer hears: the task surely runs when the hub dies.
    const busy = await call(a, 'holdBusy', name, taskMs, { atOnce: true, beatChannel: 'busy-survivor' });
    await expect.poll(async () => (await call(observer, 'heardBeat', 'busy-survivor')).count, { message: 'the survivor\'s task runs' }).toBeGreaterThan(0);
    await killHubProcess(host);
    const newcomer = await openTab(page);
    const late = await call(newcomer, 'request', name);
    const granted = await call(newcomer, 'granted', late);
    expect((await call(newcomer, 'connection')).hubId, 'a new hub granted it').not.toBe(hubId);
    const section = await call(a, 'section', busy);
    expect(section.exitedAt, 'the busy task ended').not.toBeNull();
    const [exited, entered] = [await stamp(a, [], section.exitedAt), await stamp(newcomer, [], granted.at)];
    expectAfter(entered, exited, 'the newcomer was granted only after the busy survivor left its critical section');
    expect(await call(a, 'settled', busy), 'the survivor\'s callback result was accepted').toEqual({ ok: true });
    report(`newcomer started the next hub while the survivor was busy (${taskMs / 1000} s): survivor left its section -> newcomer granted`, between(exited, entered));
    await call(newcomer, 'release', late);
    await call(a, 'release', first);
    expect(await call(a, 'settled', first)).toMatchObject({ ok: true });
  });
}

test('a tab whose port to the hub was made before the hub died gets its first lock from a new hub', async ({ openTab, killHubProcess }) => {
  // A window makes its port to the hub as the polyfill installs (js/browser/context.js), before
  // its first request. The hub dies in between: the first request must not wait on that port for ever.
  const host = await openTab();
  await call(host, 'query');
  const a = await openTab('plain.html?coi');
  expect((await call(a, 'backendState')).hubId, 'a has not registered yet').toBeNull();
  const hubId = (await call(host, 'connection')).hubId;
  await killHubProcess(host);
  const killedAt = await call(a, 'clock');
  const first = await call(a, 'request', 'first');
  const granted = await call(a, 'granted', first);
  report('hub killed before a tab\'s first request -> its first grant', granted.at - killedAt);
  const after = await call(a, 'connection');
  expect(after.hubId, 'granted by a new hub').not.toBe(hubId);
  expect(named((await call(a, 'query')).held, 'first')).toEqual([{ name: 'first', mode: 'exclusive', clientId: after.clientId }]);
  await call(a, 'release', first);
});

test('when the hub\'s process dies while a holder is busy in its callback, the holder keeps its lock until its callback ends', async ({ openTab, killHubProcess, engine }) => {
  // Firefox: the waiter's reconnection joins the dead hub (FIREFOX_DEAD_SHARED_WORKER).
  test.skip(engine === 'firefox', FIREFOX_DEAD_SHARED_WORKER);
  // The holder cannot hear the new hub's announcement nor re-register until its task ends; the
  // waiter re-registers at once. The checker is external: the holder's section stamps its entry
  // and exit, and the waiter's grant must come after the exit.
  const host = await openTab();
  await call(host, 'query');
  const [a, b] = await Promise.all([openTab('plain.html?coi'), openTab('plain.html?coi')]);
  const name = 'busy-across-hub-loss';
  const busy = await call(a, 'holdBusy', name, BUSY_ACROSS_LOSS_MS, { beatChannel: BUSY_BEAT });
  await call(a, 'granted', busy);
  // What speaks for the busy holder after the loss is its sentinel: running, and handed its hub,
  // before the holder's task takes the thread. Not waited for, the sentinel had not even read its
  // first message by then in 2 runs of 25 (Chromium starts a page's worker only when the page's
  // thread is free): the holder then had no one to speak for it, and the waiter was granted 2.4 s
  // before the holder left its section (docs/browser.md, "Hub loss and reclaim", what remains).
  await expect.poll(async () => (await call(a, 'backendState')).sentinel?.answered, { message: 'the holder\'s sentinel answered the hub', timeout: 15_000 }).toBe(true);
  const after = await busyAcrossHubLoss({ holder: [a, []], busy, name, waiter: b, host, killHubProcess, who: 'holder' });
  report(`hub killed during a ${BUSY_ACROSS_LOSS_MS} ms task: holder left its section -> waiter granted`, after);
});

test('when the hub\'s process dies while a holder that has no sentinel (a policy forbids it) is busy in its callback, the holder keeps its lock until its callback ends', async ({ session, servers, killHubProcess, engine }) => {
  test.skip(engine === 'firefox', FIREFOX_DEAD_SHARED_WORKER);
  // Nothing answers for this holder while its task runs: not its sentinel (forbidden), not the
  // holder itself. What the next hub waits for is its held marker (js/browser/held-marker.js), a
  // database the browser holds open for it however busy it is.
  const base = await servers.withPolicy(FORBIDS_SENTINEL);
  const open = (file) => openAt(session, base, file);
  const host = await open('plain.html');
  await call(host, 'query');
  const [a, b] = [await open('plain.html?coi'), await open('plain.html?coi')];
  const name = 'busy-with-no-one-to-speak';
  const busy = await call(a, 'holdBusy', name, BUSY_ACROSS_LOSS_MS, { beatChannel: BUSY_BEAT });
  await call(a, 'granted', busy);
  // The browser's refusal comes as the sentinel's `error` event, after the grant in Firefox (seen
  // once in a full run): the marker is opened then, which is this case's premise.
  await expect.poll(async () => (await call(a, 'backendState')).sentinel, { message: `the policy keeps the sentinel from starting (${engine})`, timeout: 15_000 }).toMatchObject({ failed: true, answered: false });
  const after = await busyAcrossHubLoss({ holder: [a, []], busy, name, waiter: b, host, killHubProcess, who: 'holder' });
  report(`hub killed during a ${BUSY_ACROSS_LOSS_MS} ms task with no sentinel: holder left its section -> waiter granted`, after);
});

test('when the hub\'s process dies while a holder whose sentinel has not answered yet is busy in its callback, the holder keeps its lock until its callback ends', async ({ openTab, killHubProcess, engine }) => {
  test.skip(engine === 'firefox', FIREFOX_DEAD_SHARED_WORKER);
  // A context starts its sentinel after its first answer (js/browser/hub-backend.js
  // sendSentinelSoon), and a busy window cannot start a worker (Chromium): a holder busy soon after
  // its first grant has no sentinel yet. Its held marker, open until the sentinel answers, is what
  // the next hub waits for. Here the sentinel surely has not answered when the task starts.
  const { host, a, b } = await slowSentinelTabs(openTab);
  const name = 'busy-before-its-sentinel-answered';
  const busy = await call(a, 'holdBusy', name, BUSY_ACROSS_LOSS_MS, { beatChannel: BUSY_BEAT });
  await call(a, 'granted', busy);
  const { hubId } = await call(a, 'connection');
  await expect.poll(async () => (await b.evaluate(() => indexedDB.databases())).map((d) => d.name).filter((n) => n.startsWith(`weblocks-held:${hubId} `)).length,
    { message: 'the holder\'s marker is open under its hub', timeout: 15_000 }).toBe(1);
  expect((await call(a, 'backendState')).sentinel, 'its sentinel has not answered').toMatchObject({ answered: false, failed: false });
  const after = await busyAcrossHubLoss({ holder: [a, []], busy, name, waiter: b, host, killHubProcess, who: 'holder' });
  report(`hub killed during a ${BUSY_ACROSS_LOSS_MS} ms task before the sentinel answered: holder left its section -> waiter granted`, after);
});

test('when the hub\'s process dies while a page is busy from the first line of its first callback, before its sentinel answered, the page keeps its lock until its callback ends', async ({ openTab, killHubProcess, engine }) => {
  test.skip(engine === 'firefox', FIREFOX_DEAD_SHARED_WORKER);
  // The page's first request: its marker is opened at the welcome that carries the grant, and an
  // open made just before a long task reached the browser's storage only after that task
  // (Chromium: neither listed during it), so the next hub waited for nothing. The grant now waits
  // for the marker to be open (js/browser/held-marker.js afterOpened).
  const { host, a, b } = await slowSentinelTabs(openTab);
  expect((await call(a, 'backendState')).sentinel, 'its sentinel has not answered').toMatchObject({ answered: false, failed: false });
  expect((await call(a, 'connection')).hubId, 'the page has not reached the hub yet').toBeNull();
  const name = 'busy-from-its-first-line-before-its-sentinel-answered';
  const busy = await busyFromFirstLine([a, []], name, b, 'holder');
  const after = await busyAcrossHubLoss({ holder: [a, []], busy, name, waiter: b, host, killHubProcess, who: 'holder', running: true });
  report(`hub killed during a ${BUSY_FROM_FIRST_LINE_MS} ms task from the first line of a page's first callback, sentinel not answered: holder left its section -> waiter granted`, after);
});

test('when the hub\'s process dies while a dedicated worker that has no sentinel is busy in its callback, the worker keeps its lock until its callback ends', async ({ openTab, killHubProcess }) => {
  // As a Firefox dedicated worker always is (js/browser/sentinel.js): its creator vouches for it
  // at a live hub, but cannot re-register the worker's locks for it after a loss. Its held marker
  // is what the next hub waits for. Firefox, before the grant waited for the marker to be open: the
  // waiter was granted 1.7-2.3 s before the worker left its section in 3 runs of 5 (the next hub
  // did not find the marker: docs/browser.md, Firefox's dead shared worker).
  const { host, a, b, w } = await workerWithoutSentinel(openTab);
  const name = 'busy-worker-across-hub-loss';
  const busy = await call(a, [w], 'holdBusy', name, BUSY_ACROSS_LOSS_MS, { beatChannel: BUSY_BEAT });
  await call(a, [w], 'granted', busy);
  const after = await busyAcrossHubLoss({ holder: [a, [w]], busy, name, waiter: b, host, killHubProcess, who: 'worker' });
  report(`hub killed during a worker's ${BUSY_ACROSS_LOSS_MS} ms task with no sentinel: worker left its section -> waiter granted`, after);
});

test('when the hub\'s process dies while a dedicated worker that has no sentinel is busy from its callback\'s first line, the worker keeps its lock until its callback ends', async ({ openTab, killHubProcess }) => {
  // The callback is busy at once, a round trip after the request: the held marker the worker
  // opened with its request had not reached the browser's storage yet (Firefox: 130 ms and more
  // after the open, under load) and the next hub did not find it, unless the grant waits for the
  // marker to exist (js/browser/held-marker.js afterOpened). Firefox failed 2 runs of 10 of the
  // case above under load before that (the new hub listed no marker), Chromium and WebKit run it too.
  const { host, a, b, w } = await workerWithoutSentinel(openTab);
  const name = 'busy-worker-from-first-line-across-hub-loss';
  const busy = await busyFromFirstLine([a, [w]], name, b, 'worker');
  const after = await busyAcrossHubLoss({ holder: [a, [w]], busy, name, waiter: b, host, killHubProcess, who: 'worker', running: true });
  report(`hub killed during a worker's ${BUSY_FROM_FIRST_LINE_MS} ms task from its callback's first line, no sentinel: worker left its section -> waiter granted`, after);
});

test('a tab that only observes locks keeps hearing changes after the hub\'s process dies', async ({ openTab, killHubProcess }) => {
  const host = await openTab();
  await call(host, 'query');
  const [observer, holder] = await Promise.all([openTab('plain.html?coi'), openTab('plain.html?coi')]);
  // The observer holds and waits for nothing: its observeLocks is all it has on the hub.
  await observer.evaluate(() => {
    window.heardHeld = [];
    window[Symbol.for('weblocks-wasm.observeLocks')]((snapshot) => {
      window.heardHeld.push(snapshot.held.map((info) => info.name).sort().join(','));
    });
  });
  const heard = () => observer.evaluate(() => window.heardHeld.at(-1) ?? null);
  const before = await call(holder, 'request', 'before-loss');
  await call(holder, 'granted', before);
  await expect.poll(heard, { message: 'the observer hears the lock taken before the loss' }).toBe('before-loss');
  const { hubId } = await call(holder, 'connection');

  await killHubProcess(host);
  // The holder re-registers with a new hub (it holds a lock), then takes another there.
  const after = await call(holder, 'request', 'after-loss');
  await call(holder, 'granted', after);
  expect((await call(holder, 'connection')).hubId, 'the holder is on a new hub').not.toBe(hubId);
  await expect.poll(heard, { message: 'the observer hears the lock taken on the new hub', timeout: 30_000 }).toBe('after-loss,before-loss');
  await call(holder, 'release', after);
  await call(holder, 'release', before);
});
