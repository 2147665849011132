// Liveness: a context that goes away releases its locks (spec: agent termination). A clean exit
// (pagehide) tells the hub at once; a crashed renderer says nothing, but the browser closes its
// alive database (js/hub/alive.js); a terminate()d worker says nothing, and the hub's heartbeat
// declares it dead. The hub's host tab is opened first and left alone here
// (hub-loss.spec.js crashes it). Times are reported, and checked against a loose ceiling only.
// Every engine: the crashed tab's process really dies (Chromium: Page.crash; Firefox, WebKit:
// SIGKILL to the tab's own content / web process, see support/engines/).
import { test, expect, call, until, named, report } from './support/fixtures.js';
import { FORBIDS_SENTINEL, openAt } from './support/policy-tabs.js';

// The heartbeat bound by construction (js/hub/protocol.js LIVENESS): DEAD_AFTER + TICK = 1750 ms.
// The ceiling leaves room for a loaded 2-core machine; the measured value is what we report.
const CEILING_MS = 5000;

async function holdAndWait(holder, waiter, name, holderPath = []) {
  const held = await call(holder, holderPath, 'request', name);
  await call(holder, holderPath, 'granted', held);
  const waiting = await call(waiter, 'request', name);
  await until(waiter, (s) => named(s.pending, name).length === 1, 'the waiter is queued');
  return waiting;
}

test('a tab closed while holding a lock releases it at once (pagehide)', async ({ openTab }) => {
  const host = await openTab();
  const [a, b] = await Promise.all([openTab(), openTab()]);
  const waiting = await holdAndWait(a, b, 'closing');
  const closedAt = await call(b, 'clock');
  await a.close();
  const granted = await call(b, 'granted', waiting);
  report('tab closed -> lock granted elsewhere', granted.at - closedAt);
  expect(granted.at - closedAt).toBeLessThan(CEILING_MS);
  await call(b, 'release', waiting);
  // b's release travels on b's port, the host's query on its own: the query may reach the hub first.
  await until(host, (s) => s.held.length === 0 && s.pending.length === 0, 'nothing is left held or pending');
});

/** Resolves once `tab`'s polyfill named its alive database to the hub and the hub handled that (a query after it). */
async function aliveDatabaseWatched(tab) {
  const deadline = Date.now() + 15_000;
  while (await call(tab, 'aliveDatabase') == null) {
    if (Date.now() > deadline) throw new Error('the tab never named an alive database to the hub');
    await new Promise((r) => setTimeout(r, 10));
  }
  await call(tab, 'query'); // handled after the alive message: the port is in order
}

/** The hub's verdict on `clientId`, heard by `tab` (listenForVerdicts first). */
async function verdictOn(tab, clientId) {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const verdict = (await call(tab, 'verdicts')).find((v) => v.clientId === clientId);
    if (verdict !== undefined) return verdict;
    if (Date.now() > deadline) throw new Error(`the hub announced no verdict on ${clientId}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

test('a tab whose process crashed while holding a lock has it released through the browser closing its alive database', async ({ openTab, crashTab }) => {
  const host = await openTab();
  await call(host, 'query'); // the hub starts now, in the host's process (WebKit: always the starter's)
  // Isolated pages (COOP + COEP) of the same origin run in processes of their own in Chromium;
  // Firefox and WebKit give every tab its own process anyway: the crash cannot take the hub
  // (hosted with `host`) down with it.
  const [a, b] = await Promise.all([openTab('plain.html?coi'), openTab('plain.html?coi')]);
  const waiting = await holdAndWait(a, b, 'crashing');
  await aliveDatabaseWatched(a);
  const { clientId } = await call(a, 'connection');
  await call(b, 'listenForVerdicts');
  const askedAt = await call(b, 'clock');
  await crashTab(a);
  const crashedAt = await call(b, 'clock');
  const granted = await call(b, 'granted', waiting);
  report('crash asked -> process dead', crashedAt - askedAt);
  report('crash asked -> lock granted elsewhere', granted.at - askedAt);
  report('tab process crashed -> lock granted elsewhere', granted.at - crashedAt);
  expect(granted.at - crashedAt).toBeLessThan(CEILING_MS);
  // The hub's own connection to its succession record was untouched (nothing cleared the origin's
  // storage): the browser's word decided, without waiting for silence (js/hub/alive.js).
  expect(await verdictOn(b, clientId), 'the hub released it because the browser closed its alive database while the origin\'s storage stayed').toMatchObject({ cause: 'alive-database-closed', dead: true, confirmedBy: 'storage' });
  const state = await call(host, 'query');
  expect(named(state.held, 'crashing')).toHaveLength(1);
  const connection = await call(b, 'connection');
  expect(connection.stats, 'the hub itself survived').toMatchObject({ hubLosses: 0 });
  await call(b, 'release', waiting);
});

test('a tab whose sentinel never answered (a policy forbids it), crashed while holding a lock, has it released through its alive database', async ({ session, servers, crashTab, engine }) => {
  // Silence proves nothing of such a tab (js/hub/hub.js silenceProvesNothing): the browser closing
  // its alive database does, whether or not its sentinel ever answered (js/hub/alive.js).
  const base = await servers.withPolicy(FORBIDS_SENTINEL);
  const open = (file) => openAt(session, base, file);
  const host = await open('plain.html');
  await call(host, 'query');
  const [a, b] = [await open('plain.html?coi'), await open('plain.html?coi')];
  const waiting = await holdAndWait(a, b, 'unwatched');
  await aliveDatabaseWatched(a);
  expect((await call(a, 'backendState')).sentinel, `the policy keeps the sentinel from starting (${engine})`).toMatchObject({ answered: false });
  const { clientId } = await call(a, 'connection');
  await call(b, 'listenForVerdicts');
  await crashTab(a);
  const crashedAt = await call(b, 'clock');
  const granted = await call(b, 'granted', waiting);
  report('tab without a sentinel crashed -> lock granted elsewhere', granted.at - crashedAt);
  expect(await verdictOn(b, clientId)).toMatchObject({ cause: 'alive-database-closed', dead: true, confirmedBy: 'storage' });
  await call(b, 'release', waiting);
});

test('a dedicated worker terminated while holding a lock has it released by the heartbeat', async ({ openTab }) => {
  const [a, b] = await Promise.all([openTab(), openTab()]);
  const w = await call(a, 'spawn', '/tests/browser/pages/worker.js');
  const waiting = await holdAndWait(a, b, 'terminated', [w]);
  const terminatedAt = await call(a, 'terminate', w);
  const granted = await call(b, 'granted', waiting);
  report('worker terminated -> lock granted elsewhere', granted.at - terminatedAt);
  expect(granted.at - terminatedAt).toBeLessThan(CEILING_MS);
  await call(b, 'release', waiting);
});

test('a dedicated worker terminated behind the polyfill\'s back has its lock released by the heartbeat, or in Firefox with its creator', async ({ openTab, engine }) => {
  // A terminate() the polyfill does not see (the browser's own, called through a reference taken
  // before the polyfill loaded). Where the worker has a sentinel, the sentinel dies with it and
  // the heartbeat tells. A Firefox worker has none: its creator vouches for it while it lives (a
  // silent worker is a busy one), so its lock goes when the creator does (docs/browser.md).
  const host = await openTab();
  await call(host, 'query');
  const [a, b] = await Promise.all([openTab(), openTab()]);
  const w = await call(a, 'spawn', '/tests/browser/pages/worker.js');
  const waiting = await holdAndWait(a, b, 'terminated-natively', [w]);
  if (engine !== 'firefox') {
    // The heartbeat counts a worker's silence once its sentinel has answered the hub (it starts
    // after the worker's first request is answered; until then a silent worker may be busy, and
    // keeps its locks until it says bye or its creator goes: docs/browser.md, Liveness).
    await expect.poll(async () => (await call(a, [w], 'backendState'))?.sentinel?.answered, { message: 'the worker\'s sentinel answered the hub', timeout: 15_000 }).toBe(true);
    await call(a, [w], 'query');
  }
  const terminatedAt = await call(a, 'terminateNatively', w);
  if (engine === 'firefox') {
    await a.close();
    const granted = await call(b, 'granted', waiting);
    report('worker terminated natively, its creator closed -> lock granted elsewhere', granted.at - terminatedAt);
  } else {
    const granted = await call(b, 'granted', waiting);
    report('worker terminated natively -> lock granted elsewhere (heartbeat)', granted.at - terminatedAt);
    expect(granted.at - terminatedAt).toBeLessThan(CEILING_MS);
  }
  await call(b, 'release', waiting);
  await until(host, (s) => s.held.length === 0 && s.pending.length === 0, 'nothing is left held or waiting');
});

test('a tab that reloads while holding a lock releases it, and the reloaded page can take it again', async ({ openTab }) => {
  const [a, b] = await Promise.all([openTab(), openTab()]);
  const waiting = await holdAndWait(a, b, 'reloading');
  await a.reload();
  await a.waitForFunction(() => typeof window.harness === 'object');
  await call(b, 'granted', waiting);
  const again = await call(a, 'request', 'reloading');
  await until(b, (s) => named(s.pending, 'reloading').length === 1, 'the reloaded page waits');
  await call(b, 'release', waiting);
  await call(a, 'granted', again);
  await call(a, 'release', again);
});

test('a tab that navigates to another same-origin page while holding a lock releases it', async ({ openTab, servers }) => {
  const [a, b] = await Promise.all([openTab(), openTab()]);
  const waiting = await holdAndWait(a, b, 'navigating');
  await a.goto(`${servers.plain}tests/browser/pages/plain.html?next`);
  await call(b, 'granted', waiting);
  const state = await call(a, 'query');
  expect(named(state.held, 'navigating')).toHaveLength(1);
  await call(b, 'release', waiting);
});
