// weblocks-wasm/remote in every engine: pages on the insecure test name (http://weblocks.test:PORT,
// mapped to loopback) and Node clients share one lock server mounted on the app's own HTTP server,
// which also serves the pages and two fenced endpoints (the external exclusion check). Order is
// proven by events (grants, query() snapshots, the server's stats), never by sleeps.
import { test, expect } from './support/fixtures.js';
import { startApp, openRemotePage, nodeLoop, hold, until, waiting, r } from './support/remote-app.js';
import { openStoppablePage, watchLife } from './support/remote-stopped-page.js';

const test2 = test.extend({
  app: async ({ servers }, use) => {
    let app = null;
    await use(async (options) => (app = await startApp(servers, options)));
    await app?.close();
  },
  openPage: async ({ session }, use) => {
    await use((app, socketPath) => openRemotePage(session, app, socketPath));
  },
});

test2('pages and Node clients loop exclusive sections through the fenced app endpoints: never two inside (external check)', async ({ app, openPage }) => {
  const a = await app();
  const [p1, p2] = [await openPage(a), await openPage(a)];
  const nodes = [a.node(), a.node()];
  await Promise.all([r(p1, 'loop', 'section', 12), r(p2, 'loop', 'section', 12), nodeLoop(a, nodes[0], 'section', 12), nodeLoop(a, nodes[1], 'section', 12)]);
  expect(a.check).toEqual({ inside: 0, violations: 0, sections: 48, refused: 0 });
});

test2('FIFO across pages and Node clients; shared, ifAvailable, steal and signal between them', async ({ app, openPage }) => {
  const a = await app();
  const [p1, p2] = [await openPage(a), await openPage(a)];
  const [n1, n2] = [a.node(), a.node()];
  // FIFO: n1 holds; p1, n2, p2 queue in that order.
  const first = hold(n1, 'fifo');
  await first.granted;
  const q1 = await r(p1, 'request', 'fifo');
  await waiting(a, 'fifo', 1);
  const q2 = hold(n2, 'fifo');
  await waiting(a, 'fifo', 2);
  const q3 = await r(p2, 'request', 'fifo');
  await waiting(a, 'fifo', 3);
  first.release();
  const g1 = await r(p1, 'granted', q1);
  expect(await r(p2, 'state', q3)).toBe('pending');
  r(p1, 'release', q1);
  const g2 = await q2.granted;
  expect(g2.fencingToken).toBeGreaterThan(g1.fencingToken);
  q2.release();
  const g3 = await r(p2, 'granted', q3);
  expect(g3.fencingToken).toBeGreaterThan(g2.fencingToken);
  await r(p2, 'release', q3);
  expect(await r(p2, 'settled', q3)).toMatchObject({ ok: true });

  // Shared: a page and a Node client hold at once.
  const s1 = hold(n1, 'rw', { mode: 'shared' });
  await s1.granted;
  const s2 = await r(p1, 'request', 'rw', { mode: 'shared' });
  expect((await r(p1, 'granted', s2)).mode).toBe('shared');
  expect((await a.lockServer.query('app')).held.filter((l) => l.name === 'rw')).toHaveLength(2);
  // ifAvailable from a page while shared holders hold: an exclusive one gets null, the queue untouched.
  const ia = await r(p2, 'request', 'rw', { ifAvailable: true });
  expect(await r(p2, 'granted', ia)).toBeNull();
  expect(await r(p2, 'settled', ia)).toEqual({ ok: true, value: 'no-lock' });
  s1.release();
  await r(p1, 'release', s2);

  // Steal: a page takes a Node client's lock; the Node request rejects with an AbortError.
  const victim = hold(n2, 'steal');
  await victim.granted;
  const thief = await r(p1, 'request', 'steal', { steal: true });
  await r(p1, 'granted', thief);
  expect(await victim.done).toMatchObject({ ok: false, name: 'AbortError' });
  // Signal: a Node waiter behind the page aborts; the page's release then grants nobody else.
  const controller = new AbortController();
  const aborted = hold(n1, 'steal', { signal: controller.signal });
  await waiting(a, 'steal', 1);
  controller.abort();
  expect(await aborted.done).toMatchObject({ ok: false, name: 'AbortError' });
  await waiting(a, 'steal', 0);
  await r(p1, 'release', thief);
  expect(await r(p1, 'settled', thief)).toMatchObject({ ok: true });
});

test2('query() and observeLocks in a page show every client of its space (pages and Node) and nothing of another space', async ({ app, openPage }) => {
  const a = await app();
  const page = await openPage(a, '/locks?space=team');
  const mate = a.node('team');
  const stranger = a.node('other');
  await r(page, 'observe');
  const mine = await r(page, 'request', 'doc');
  await r(page, 'granted', mine);
  const theirs = hold(stranger, 'doc');
  await theirs.granted; // same name, another space: granted at once
  const queued = hold(mate, 'doc');
  const state = await until(async () => { const s = await r(page, 'query'); return s.pending.length === 1 && s; }, 'the mate waits');
  expect(state.held).toHaveLength(1);
  const strangerId = (await a.lockServer.query('other')).held[0].clientId;
  expect([...state.held, ...state.pending].map((l) => l.clientId)).not.toContain(strangerId);
  const seen = await until(async () => { const c = await r(page, 'observed'); return c.some((x) => x.type === 'requested' && x.clientId === state.pending[0].clientId) && c; }, 'observed the mate');
  expect(seen.map((c) => c.clientId)).not.toContain(strangerId);
  await r(page, 'release', mine);
  await queued.granted;
  queued.release();
  theirs.release();
});

test2('a crashed tab\'s lock passes to the next waiter (its socket closes; pings and grace are an hour)', async ({ app, openPage, crashTab }) => {
  const a = await app();
  const page = await openPage(a);
  const held = await r(page, 'request', 'crash');
  await r(page, 'granted', held);
  const next = hold(a.node(), 'crash');
  await waiting(a, 'crash', 1);
  await crashTab(page);
  await next.granted;
  next.release();
  expect(await next.done).toMatchObject({ ok: true });
});

test2('a busy tab (its page script blocked) keeps its lock: the browser answers the server\'s pings by itself', async ({ app, openPage }) => {
  // A ping unanswered when the next one is due counts as a lost connection: every 500 ms, as a
  // loaded CI machine (a core spinning in this page, two other lanes) delayed pongs past 100 ms.
  const a = await app({ pingInterval: 500, grace: 1500 });
  const page = await openPage(a);
  const held = await r(page, 'request', 'busy');
  await r(page, 'granted', held);
  const [{ clientId }] = (await a.lockServer.query('app')).held;
  const pingsBefore = a.lockServer.stats();
  // Ten ping intervals (over three graces) without the page's script running.
  await page.evaluate(() => { const end = Date.now() + 5000; while (Date.now() < end) { /* busy */ } return true; });
  expect(a.lockServer.stats().lost).toBe(pingsBefore.lost);
  expect((await a.lockServer.query('app')).held.map((l) => l.clientId)).toEqual([clientId]);
  await r(page, 'release', held);
  expect(await r(page, 'settled', held)).toMatchObject({ ok: true });
});

// Liveness from the server's WebSocket pings, which the browser answers without the page's script:
// a page put in the background and stopped from running any script (support/remote-stopped-page.js:
// Chromium freezes it, hidden; Firefox's and WebKit's drivers cannot freeze a page, so another tab
// goes in front and the page's process is stopped) keeps its lock for 10 graces of pings every
// 1,000 ms (a ping unanswered when the next is due is a lost connection: 200 ms was short on a
// loaded CI machine, and 500 ms for Firefox's pong in 2 clean-clone runs of about 30; 1,000 ms
// once more, likely a round judged before the busy test process had read the pong, which the
// server no longer does: js/server/index.js, tests/node/remote/liveness.test.js), while a
// Node client waits; the waiter gets the lock only once the page runs again and releases it.
// Chromium closes the frozen page's socket as it thaws it (measured: the page sees a 1006, the
// server a 1001 close frame): the page announced the freeze (frz), so the server keeps the session
// for its grace and the client resumes it. The annotation gives what each engine did.
test2('a hidden tab that runs no script (frozen, or its process stopped) keeps its lock for 10 graces; the waiter gets it when the tab runs again and releases', async ({ app, session, engine }) => {
  test.setTimeout(150_000);
  const grace = 3000;
  const a = await app({ pingInterval: 1000, grace });
  const page = await openStoppablePage(engine, session, a);
  try {
    const { tab } = page;
    const held = await r(tab, 'request', 'hidden');
    await r(tab, 'granted', held);
    const [{ clientId }] = (await a.lockServer.query('app')).held;
    const visibleAs = await watchLife(tab);
    const next = hold(a.node(), 'hidden');
    let nextGranted = false;
    next.granted.then(() => { nextGranted = true; });
    await waiting(a, 'hidden', 1);
    const { lost } = a.lockServer.stats();

    const stopped = await page.stop();
    const stoppedAt = Date.now();
    while (Date.now() - stoppedAt < 10 * grace) {
      const state = await a.lockServer.query('app');
      expect(state.held.map((l) => l.clientId), 'the stopped page still holds its lock').toEqual([clientId]);
      expect(state.pending).toHaveLength(1);
      expect(a.lockServer.stats().lost, 'no connection lost to an unanswered ping').toBe(lost);
      expect(nextGranted).toBe(false);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const resumedAt = Date.now();
    await page.resume();

    // Running again, the page still holds the lock in the same session (Chromium closed its socket
    // as it thawed it: the client resumed the session within the grace), and the Node client waits.
    const after = await r(tab, 'query');
    expect(after.held.map((l) => l.clientId)).toEqual([clientId]);
    expect(after.pending).toHaveLength(1);
    expect(nextGranted).toBe(false);
    const life = await tab.evaluate(() => window.__life);
    const sockets = await tab.evaluate(() => window.__sockets);
    const freeze = life.events.find((e) => e.type === 'freeze');
    const from = freeze ? freeze.at : stoppedAt; // (the page's clock is this machine's)
    const ticksWhileStopped = life.ticks.filter((at) => at > from && at < resumedAt).length;
    const measured = `${page.how}: visibilityState before '${visibleAs}', while stopped '${stopped.hiddenAs}'; page timer ticks (50 ms interval) in the `
      + `${resumedAt - from} ms stopped: ${ticksWhileStopped}; events ${JSON.stringify(life.events.map((e) => `${e.type}:${e.visibility}`))}; `
      + `sockets opened ${sockets.opened}, closes seen by the page ${JSON.stringify(sockets.closes)}`;
    test.info().annotations.push({ type: 'measured', description: measured });
    console.log(`measured [${engine}]: ${measured}`);
    expect(ticksWhileStopped, 'no script of the page ran while it was stopped').toBe(0);
    expect(stopped.hiddenAs, 'the page was hidden').toBe('hidden');
    if (engine === 'chromium') {
      expect(life.events.map((e) => e.type)).toEqual(['visibilitychange', 'freeze', 'resume']);
    }

    await r(tab, 'release', held);
    expect(await r(tab, 'settled', held)).toMatchObject({ ok: true });
    const lock = await next.granted;
    expect(lock.name).toBe('hidden');
    next.release();
    expect(await next.done).toMatchObject({ ok: true });
  } finally {
    await page.close();
  }
});

test2('a page refused by authorize (or from another origin) rejects its requests at once with a named error', async ({ app, openPage }) => {
  const a = await app({ authorize: (req) => (new URL(req.url, 'http://any').searchParams.get('space') === 'no' ? false : 'app') });
  const page = await openPage(a, '/locks?space=no');
  const id = await r(page, 'request', 'x');
  const outcome = await r(page, 'settled', id);
  expect(outcome.ok).toBe(false);
  expect(['NetworkError', 'NotAllowedError']).toContain(outcome.name);
});
