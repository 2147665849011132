// The demo where the polyfill matters: served over plain http on a made-up name that the browser
// maps to 127.0.0.1 (an insecure origin, as the demo's own LAN address is for a phone: no native
// navigator.locks there, so the automatic choice is the polyfill; the server listens on loopback
// only, HOST=loopback), its
// timeline of who held what (a steal, a closed tab, a crashed tab), the per-name queue, names never
// reused, the refresh race in slow motion, the mixed-implementation warning and a phone-width
// layout. Every tab is an engine-neutral tab of the shared fixtures (support/fixtures.js: one
// Playwright project per engine), driven through evaluate() on the page's own DOM, so the same
// steps run in Chromium, Firefox and WebKit. Each step waits for what the page shows, never for a
// fixed time. In WebKit the observer tab is a window of its own (opened from the session's
// launcher page) and its screenshots come from the X server, because WebKit ends the WebDriver
// session when the crashed tab's process dies (support/engines/webkit.js, support/x-screenshot.js).
// Screenshots: test-results/demo-timeline/<engine>-*.png (or $DEMO_SCREENSHOT_DIR)
import { spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test, expect } from './support/fixtures.js';
import { startDemoServer } from '../../scripts/serve.mjs';
import { INSECURE_HOST, insecureUrlOf } from '../support/insecure-origin.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const SCREENSHOTS = process.env.DEMO_SCREENSHOT_DIR ?? path.join(root, 'test-results/demo-timeline');
// The polyfill notices a crashed tab by its hub's liveness check, not at once as the browser does.
const CRASH_DETECTION_TIMEOUT = 25_000;
const DESKTOP = { width: 1280, height: 900 };

/** Polls fn(arg) in the tab until it returns something truthy; returns it. */
async function until(tab, fn, arg, label, timeout = 15_000) {
  const deadline = Date.now() + timeout;
  for (;;) {
    const value = await tab.evaluate(fn, arg);
    if (value) return value;
    if (Date.now() > deadline) {
      const shown = await tab.evaluate(() => document.body.innerText.slice(0, 3000)).catch(() => '(unreadable)');
      throw new Error(`never reached: ${label}\nThe tab shows:\n${shown}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Opens the demo page in a new tab of `session`, sized to `viewport`, and waits until it is ready.
 * `ownWindow`: in WebKit a window of its own, which can be captured after a crash (see above).
 */
async function openDemo(session, base, { viewport = DESKTOP, ownWindow = false } = {}) {
  const errors = [];
  const listen = (tab) => tab.on('pageerror', (error) => errors.push(String(error?.stack ?? error)));
  const url = new URL(base);
  url.pathname = url.pathname.replace(/\/$/, '/index.html'); // a page path: WebKit's remote tabs need one
  const tab = await session.open(url.href, listen, { ownWindow });
  tab.errors = errors;
  await tab.setViewportSize(viewport);
  await until(tab, () => document.body.dataset.ready === 'true', null, 'the page is ready');
  tab.name = await tab.evaluate(() => document.querySelector('[data-testid="self-name"]').textContent);
  return tab;
}

/** Fills this tab's request form and submits it; returns the new entry's request id. */
async function request(tab, { name = 'resource', mode = 'exclusive', steal = false } = {}) {
  await tab.bringToFront?.();
  return tab.evaluate(({ name, mode, steal }) => {
    const panel = document.querySelector('[data-testid="tab-controls"]');
    const set = (id, value) => { const input = panel.querySelector(`[data-testid="${id}"]`); if (input.type === 'checkbox') input.checked = value; else input.value = value; };
    set('lock-name', name); set('lock-mode', mode); set('steal', steal); set('if-available', false); set('timeout', '');
    const before = panel.querySelectorAll('[data-testid="request-entry"]').length;
    panel.querySelector('[data-testid="request"]').click();
    return Math.max(before, ...[...panel.querySelectorAll('[data-testid="request-entry"]')].map((li) => Number(li.dataset.requestId)));
  }, { name, mode, steal });
}

const entryState = (tab, id) => until(tab, (i) => document.querySelector(`[data-testid="tab-controls"] [data-request-id="${i}"]`)?.dataset.state, id, `request ${id} has a state`);
async function waitEntry(tab, id, state) {
  await until(tab, ([i, s]) => document.querySelector(`[data-testid="tab-controls"] [data-request-id="${i}"]`)?.dataset.state === s, [id, state], `${tab.name}: request ${id} is ${state}`);
}

/** The timeline as this tab draws it: lanes, bars and marks from the DOM's data attributes. */
const readTimeline = (tab) => tab.evaluate(() => ({
  lanes: [...document.querySelectorAll('[data-testid="timeline-lane"]')].map((el) => ({ lane: el.dataset.lane, ended: el.dataset.ended })),
  bars: [...document.querySelectorAll('[data-testid="timeline-bar"]')].map((el) => ({ ...el.dataset })),
  marks: [...document.querySelectorAll('[data-testid="timeline-mark"]')].map((el) => ({ ...el.dataset })),
}));

/** The per-name queue: holders and waiters (in queue order) of one lock name. */
const readQueue = (tab, lock) => tab.evaluate((name) => {
  const queue = [...document.querySelectorAll('[data-testid="queue"]')].find((el) => el.dataset.lock === name);
  return queue ? {
    holders: [...queue.querySelectorAll('[data-testid="queue-holder"]')].map((el) => el.dataset.context),
    waiters: [...queue.querySelectorAll('[data-testid="queue-waiter"]')].map((el) => el.dataset.context),
  } : null;
}, lock);

/** The demo's page on the insecure origin: the loopback server under the name mapped to 127.0.0.1. */
const insecureBase = (server) => insecureUrlOf(server.loopbackUrl);

test.describe('the demo on an insecure origin', () => {
  test.describe.configure({ mode: 'serial', timeout: 120_000 });
  let server;
  let session;
  let engine;
  let queued = []; // the previous test's tabs still open: [waiter1, waiter2]
  let queuedIds = []; // their request ids for "resource"
  let names = {}; // the names the four tabs of the steal test took: { T1, T2, T3, T4 }
  const shot = (tab, name) => tab.screenshot({ path: path.join(SCREENSHOTS, `${engine}-${name}.png`), fullPage: true });

  // One session (one lock space) for the tests of this group, which go on from each other.
  test.beforeAll(async ({ engine: name, driver, servers }) => {
    engine = name;
    server = await startDemoServer({ port: 0, host: 'loopback', remote: servers.remote });
    session = await driver.newSession();
  });
  test.afterAll(async () => {
    await session?.close();
    await server?.close();
  });

  test('the demo on a plain-http name mapped to 127.0.0.1 is an insecure context, and its page runs the polyfill by itself', async () => {
    expect(new URL(insecureBase(server)).hostname).toBe(INSECURE_HOST);
    const tab = await openDemo(session, insecureBase(server), { ownWindow: true });
    expect(await tab.evaluate(() => isSecureContext)).toBe(false);
    const status = await until(tab, () => {
      const el = document.querySelector('[data-testid="implementation"]');
      return el.dataset.hub === 'connected' && { kind: el.dataset.kind, text: el.textContent };
    }, null, 'the polyfill\'s hub is connected');
    expect(status.kind).toBe('polyfill');
    expect(status.text).toContain('native locks absent here');
    expect(tab.name).toBe('Tab 1');
    session.first = tab; // the observer of the next test (the hub runs in its process: it started it)
  });

  test('a steal and a closed tab leave their marks on the timeline, the lock moves on in queue order, and no name is reused', async () => {
    const url = insecureBase(server);
    const observer = session.first;
    const [waiter1, waiter2, stealer] = [await openDemo(session, url), await openDemo(session, url), await openDemo(session, url)];
    // Each tab takes the next number (a WebKit run once skipped one: a page load of the driver's own
    // consumed it), so the names are read, and checked to be new and in opening order.
    const [T1, T2, T3, T4] = [observer, waiter1, waiter2, stealer].map((t) => t.name);
    const numbers = [T1, T2, T3, T4].map((name) => Number(/^Tab (\d+)$/.exec(name)?.[1]));
    expect(T1).toBe(T1);
    for (let i = 1; i < numbers.length; i++) expect(numbers[i]).toBeGreaterThan(numbers[i - 1]);
    names = { T1, T2, T3, T4 };

    const held = await request(observer);
    await waitEntry(observer, held, 'held');
    const first = await request(waiter1);
    await waitEntry(waiter1, first, 'pending');
    // Queue one at a time, each once the queue view shows the previous one waiting: the order is known.
    await until(observer, () => document.querySelectorAll('[data-testid="queue"][data-lock="resource"] [data-testid="queue-waiter"]').length === 1, null, 'one waiter queued');
    const second = await request(waiter2);
    await waitEntry(waiter2, second, 'pending');
    await until(observer, () => document.querySelectorAll('[data-testid="queue"][data-lock="resource"] [data-testid="queue-waiter"]').length === 2, null, 'two waiters queued');
    expect(await readQueue(observer, 'resource')).toEqual({ holders: [T1], waiters: [T2, T3] });
    await shot(observer, '1-queue');

    // Tab 4 steals: Tab 1's request is rejected (AbortError), the queue stays as it was.
    const stolen = await request(stealer, { steal: true });
    await waitEntry(stealer, stolen, 'held');
    await waitEntry(observer, held, 'stolen');
    await until(observer, (lane) => [...document.querySelectorAll('[data-testid="timeline-mark"]')].some((m) => m.dataset.kind === 'steal' && m.dataset.lane === lane),
      T4, `the steal mark on ${T4}'s lane`);
    await until(observer, (name) => document.querySelector('[data-testid="queue"][data-lock="resource"] [data-testid="queue-holder"]')?.dataset.context === name, T4, `${T4} holds resource`);
    let timeline = await readTimeline(observer);
    expect(timeline.marks).toEqual(expect.arrayContaining([
      expect.objectContaining({ lane: T4, kind: 'steal', lock: 'resource' }),
      expect.objectContaining({ lane: T1, kind: 'stolen', lock: 'resource' }),
    ]));
    expect(await readQueue(observer, 'resource')).toEqual({ holders: [T4], waiters: [T2, T3] });
    await shot(observer, '2-after-steal');

    // Tab 4 closes (pagehide: it says goodbye): the first in the queue, Tab 2, gets the lock.
    await stealer.close({ runBeforeUnload: false });
    await waitEntry(waiter1, first, 'held');
    await until(observer, (lane) => document.querySelector(`[data-testid="timeline-lane"][data-lane="${lane}"]`)?.dataset.ended === 'closed', T4, `${T4}'s lane ends "closed"`);
    await until(observer, (name) => document.querySelector('[data-testid="queue"][data-lock="resource"] [data-testid="queue-holder"]')?.dataset.context === name, T2, `${T2} holds resource`);
    await shot(observer, '3-after-close');

    const heldSoFar = (await readTimeline(observer)).bars.filter((b) => b.lock === 'resource' && b.status === 'held')
      .sort((x, y) => Number(x.start) - Number(y.start)).map((b) => b.lane);
    expect(heldSoFar, 'held by Tab 1, then Tab 4 (the steal), then Tab 2 (first in the queue)').toEqual([T1, T4, T2]);

    // A new tab gets a new name: the closed tab's number is not reused.
    const late = await openDemo(session, url);
    const lateNumber = Number(/^Tab (\d+)$/.exec(late.name)?.[1]);
    expect(lateNumber).toBeGreaterThan(numbers.at(-1));
    await late.close();
    for (const tab of [observer, waiter1, waiter2]) expect(tab.errors).toEqual([]);
    // The tabs' own name locks make a cycle of contexts (each holds its name and waits for the
    // others'): the lock space reports it as a possible deadlock, and the demo shows none of it.
    await until(observer, () => Number(document.querySelector('[data-testid="deadlock-reports"]').dataset.ignored ?? 0) > 0, null, 'a cycle of the demo\'s name locks was reported and set aside');
    expect(await observer.evaluate(() => document.querySelectorAll('[data-testid="deadlock-report"]').length), 'no deadlock shown').toBe(0);
    queued = [waiter1, waiter2];
    queuedIds = [first, second];
  });

  test('a crashed tab leaves its mark on the timeline, and its lock goes to the next in the queue', async () => {
    const observer = session.first;
    const [waiter1, waiter2] = queued;
    const [, second] = queuedIds;
    const { T1, T2, T3, T4 } = names;
    // Tab 2 crashes (no pagehide, no goodbye): the lock manager frees its lock and Tab 3 gets it.
    await session.crash(waiter1);
    await until(observer, (lane) => document.querySelector(`[data-testid="timeline-lane"][data-lane="${lane}"]`)?.dataset.ended === 'crashed',
      T2, `${T2}'s lane ends "crashed"`, CRASH_DETECTION_TIMEOUT);
    await waitEntry(waiter2, second, 'held');
    await until(observer, (name) => document.querySelector('[data-testid="queue"][data-lock="resource"] [data-testid="queue-holder"]')?.dataset.context === name, T3, `${T3} holds resource`);
    // The bars close once the observer re-reads after the crash.
    await until(observer, ([open, closed]) => {
      const bars = [...document.querySelectorAll('[data-testid="timeline-bar"][data-lock="resource"][data-status="held"]')];
      return bars.some((b) => b.dataset.lane === open && b.dataset.open === 'true') && !bars.some((b) => b.dataset.lane === closed && b.dataset.open === 'true');
    }, [T3, T2], `${T3}'s held bar open, ${T2}'s closed`);
    await shot(observer, '4-after-crash');

    const timeline = await readTimeline(observer);
    expect(timeline.lanes).toEqual(expect.arrayContaining([
      { lane: T4, ended: 'closed' }, { lane: T2, ended: 'crashed' }, { lane: T3, ended: '' }, { lane: T1, ended: '' },
    ]));
    expect(timeline.marks).toEqual(expect.arrayContaining([
      expect.objectContaining({ lane: T4, kind: 'closed' }), expect.objectContaining({ lane: T2, kind: 'crashed' }),
    ]));
    // Who held resource, in the order they got it: Tab 1, Tab 4 (the steal), Tab 2, Tab 3 (FIFO).
    const heldOrder = timeline.bars.filter((b) => b.lock === 'resource' && b.status === 'held')
      .sort((a, b) => Number(a.start) - Number(b.start)).map((b) => b.lane);
    expect(heldOrder).toEqual([T1, T4, T2, T3]);
    // Waiting bars of both waiters were drawn while they queued.
    expect(timeline.bars.filter((b) => b.lock === 'resource' && b.status === 'pending').map((b) => b.lane)).toEqual(expect.arrayContaining([T2, T3]));

    for (const tab of [observer, waiter2]) expect(tab.errors).toEqual([]);
    await waiter2.close();
    queued = [];
  });

  test('the refresh race in slow motion: the others queue on the lock while one tab refreshes, and exactly one refresh runs', async () => {
    const url = insecureBase(server);
    for (const tab of queued) await tab.close(); // left open where the crash test did not run
    const tabs = [session.first, await openDemo(session, url), await openDemo(session, url)];
    const [starter] = tabs;
    await starter.bringToFront?.();
    await starter.evaluate(() => {
      document.querySelector('[data-testid="race-use-lock"]').checked = true;
      document.querySelector('[data-testid="race-slow"]').checked = true;
      document.querySelector('[data-testid="race-run"]').click();
    });
    // While the first refresh is in flight (2.5 s), the other two wait in the lock's queue.
    const waiting = await until(starter, () => {
      const queue = document.querySelector('[data-testid="queue"][data-lock="refresh-token"]');
      const waiters = queue ? queue.querySelectorAll('[data-testid="queue-waiter"]').length : 0;
      return waiters === 2 && waiters;
    }, null, 'two tabs waiting for refresh-token in the queue view');
    expect(waiting).toBe(2);
    await shot(starter, '5-race-queue');
    // At least these three tabs' outcomes: a demo tab of an earlier test that WebKit has not closed
    // yet joins the round too (Tab 1, 4, 7 and 8 in clean-clone run AG: 4 outcomes, 1 refresh).
    const summary = await until(starter, () => {
      const el = document.querySelector('[data-testid="race-summary"]');
      const outcomes = Number(el.dataset.outcomes);
      return outcomes >= 3 && el.querySelectorAll('[data-testid="race-outcome"]').length === outcomes && el.dataset.refreshesReceived && { ...el.dataset };
    }, null, 'all three outcomes and the server\'s count', 20_000);
    expect(summary.refreshesReceived).toBe('1');
    expect(summary.revoked).toBe('false');
    for (const tab of tabs) {
      expect(await until(tab, () => document.querySelector('[data-testid="race-own"]').dataset.apiStatus, null, 'this tab\'s API status')).toBe('200');
      expect(tab.errors).toEqual([]);
    }
    const timeline = await readTimeline(starter);
    expect(timeline.bars.filter((b) => b.lock === 'refresh-token' && b.status === 'pending').length).toBeGreaterThanOrEqual(2);
    await shot(starter, '6-race-done');
    for (const tab of tabs) await tab.close();
  });

  test('at phone width (390 px) nothing overflows sideways', async ({ driver }) => {
    // The last test of the group: its session is closed first (WebKitWebDriver runs one session at a time).
    await session.close();
    session = null;
    const phone = await driver.newSession();
    try {
      const url = insecureBase(server);
      const viewport = { width: 390, height: 844 };
      const [a, b] = [await openDemo(phone, url, { viewport, ownWindow: true }), await openDemo(phone, url, { viewport })];
      const id = await request(a, { name: 'a-rather-long-lock-name-for-a-phone' });
      await waitEntry(a, id, 'held');
      await waitEntry(b, await request(b, { name: 'a-rather-long-lock-name-for-a-phone' }), 'pending');
      await until(a, () => document.querySelectorAll('[data-testid="lock-row"]').length === 2, null, 'both rows in the table');
      await a.bringToFront?.();
      const widths = await a.evaluate(() => ({ page: document.documentElement.scrollWidth, viewport: innerWidth }));
      expect(widths.page, 'the page is no wider than the phone').toBeLessThanOrEqual(widths.viewport);
      await a.screenshot({ path: path.join(SCREENSHOTS, `${engine}-7-phone.png`), fullPage: true });
    } finally {
      await phone.close();
    }
  });
});

test('tabs on native locks and on the polyfill get distinct names, and each warns that they are separate lock spaces', async ({ engine, driver, servers }) => {
  const server = await startDemoServer({ port: 0, host: 'loopback', remote: servers.remote });
  const session = await driver.newSession(); // no init script: this test needs the native locks
  try {
    // 127.0.0.1 is a secure context: native locks exist, and ?impl=polyfill forces the polyfill.
    const native = await openDemo(session, `${server.loopbackUrl}?impl=native`);
    const polyfill = await openDemo(session, `${server.loopbackUrl}?impl=polyfill`, { ownWindow: true });
    expect(native.name).not.toBe(polyfill.name);
    const [a, b] = [await request(native), await request(polyfill)];
    await waitEntry(native, a, 'held');
    await waitEntry(polyfill, b, 'held'); // both "exclusive": two lock spaces
    for (const [tab, other] of [[native, polyfill], [polyfill, native]]) {
      const warning = await until(tab, () => {
        const el = document.querySelector('[data-testid="mixed-warning"]');
        return !el.hidden && { others: el.dataset.others, text: el.textContent };
      }, null, `${tab.name} warns about the other implementation`);
      expect(warning.others).toBe(other.name);
      expect(warning.text).toContain('separate lock spaces');
    }
    await polyfill.screenshot({ path: path.join(SCREENSHOTS, `${engine}-8-mixed-warning.png`), fullPage: true });
  } finally {
    await session.close();
    await server.close();
  }
});

test('a taken port is reported in one plain sentence, not a stack trace', async () => {
  const holder = net.createServer();
  await new Promise((resolve) => holder.listen(0, '127.0.0.1', resolve));
  const { port } = holder.address();
  try {
    const child = spawn(process.execPath, [path.join(root, 'scripts/serve.mjs')], { env: { ...process.env, PORT: String(port), HOST: 'loopback' } });
    let stderr = '';
    child.stderr.on('data', (chunk) => { stderr += chunk; });
    const code = await new Promise((resolve) => child.on('exit', resolve));
    expect(code).toBe(1);
    expect(stderr.trim()).toBe(`The demo server cannot start: port ${port} is already in use on 127.0.0.1 (is another demo server still running?). `
      + 'Stop it, or pick other ports: PORT=8300 bash scripts/demo.sh (PORT=0: any free ports).');
  } finally {
    holder.close();
  }
});
