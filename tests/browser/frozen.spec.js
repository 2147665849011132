// A context keeps its locks while it or its sentinel answers the hub (a page paused in a debugger:
// its sentinel worker still runs). A context whose process stops altogether (page and sentinel
// silent: frozen, SIGSTOP) is declared dead and must not go on believing it holds its locks: when
// it runs again it learns they were released (the request's promise rejects with an AbortError
// that names the reason); its waiting requests are registered again.
// The back/forward cache freezes a page with its port open: the polyfill says bye on pagehide.
import fs from 'node:fs';
import { test, expect, call, until, named } from './support/fixtures.js';
import { stampOf, expectAfter } from './support/clocks.js';

function report(label, text) {
  test.info().annotations.push({ type: 'measured', description: `${label}: ${text}` });
  console.log(`measured: ${label}: ${text}`);
}

test('a tab paused in a debugger keeps its lock, as with native Web Locks: its sentinel answers for it', async ({ openTab, context }) => {
  const host = await openTab();
  const [a, b] = await Promise.all([openTab(), openTab()]);
  const held = await call(a, 'request', 'paused');
  await call(a, 'granted', held);
  const waiting = await call(b, 'request', 'paused');
  await until(host, (s) => named(s.pending, 'paused').length === 1, 'b waits');
  const cdp = await context.newCDPSession(a);
  await cdp.send('Debugger.enable');
  await cdp.send('Debugger.pause');
  // Twice the hub's dead-context bound (DEAD_AFTER + TICK = 1.75 s) with the page's script stopped.
  const pausedAt = await call(b, 'clock');
  let state;
  do {
    state = await call(host, 'query');
    expect(named(state.held, 'paused'), 'the paused tab still holds its lock').toHaveLength(1);
    await new Promise((r) => setTimeout(r, 100));
  } while ((await call(b, 'clock')) - pausedAt < 3500);
  expect(await call(b, 'state', waiting)).toBe('pending');
  await cdp.send('Debugger.resume');
  const releasedAt = await call(a, 'release', held);
  const granted = await call(b, 'granted', waiting);
  expectAfter(await stampOf(b, [], granted.at), await stampOf(a, [], releasedAt), 'the waiter was granted only after the holder released');
  expect(await call(a, 'settled', held)).toMatchObject({ ok: true });
  expect((await call(a, 'connection')).stats.declaredDead).toBe(0);
  await call(b, 'release', waiting);
});

/** The renderer processes this test's browser runs (found under /proc, children of this process tree). */
function rendererPids() {
  const parentOf = new Map();
  const renderers = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      parentOf.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
      if (fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes('--type=renderer')) renderers.push(Number(entry));
    } catch { /* gone */ }
  }
  const ours = (pid) => { for (let p = pid; p > 1; p = parentOf.get(p)) if (p === process.pid) return true; return false; };
  return new Set(renderers.filter(ours));
}

test('a tab whose process is stopped (SIGSTOP: page and sentinel silent) is declared dead, its lock goes to the next waiter, and when it runs again its promise rejects with an AbortError that says why', async ({ openTab }) => {
  const host = await openTab();
  const b = await openTab('plain.html?coi');
  // An isolated page runs in a process of its own: stopping it stops the page and its sentinel only.
  const a = await openTab('plain.html?coi');
  // Its process: the renderer that burns the CPU while the page runs a 600 ms busy loop.
  const cpu = (pid) => { const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').slice(0).split(') ')[1].split(' '); return Number(f[11]) + Number(f[12]); };
  // On a machine busy with other work the margin may be unclear once: up to three tries.
  let burnt;
  for (let attempt = 0; attempt < 3; attempt++) {
    const pids = [...rendererPids()];
    const before = new Map(pids.map((pid) => [pid, cpu(pid)]));
    await a.evaluate(() => { const end = performance.now() + 1000; while (performance.now() < end) { /* busy */ } });
    burnt = pids.map((pid) => [pid, cpu(pid) - before.get(pid)]).sort((x, y) => y[1] - x[1]);
    if (burnt[0][1] > 2 * (burnt[1]?.[1] ?? 0) + 10) break;
  }
  expect(burnt[0][1], `one renderer ran the busy loop (clock ticks: ${JSON.stringify(burnt)})`).toBeGreaterThan(2 * (burnt[1]?.[1] ?? 0) + 10);
  const fresh = [burnt[0][0]];
  const held = await call(a, 'request', 'frozen');
  await call(a, 'granted', held);
  const bHolds = await call(b, 'request', 'later');
  await call(b, 'granted', bHolds);
  const aWaits = await call(a, 'request', 'later');
  const waiting = await call(b, 'request', 'frozen');
  await until(host, (s) => named(s.pending, 'frozen').length === 1 && named(s.pending, 'later').length === 1, 'both wait');
  const aId = (await call(a, 'connection')).clientId;

  for (const pid of fresh) process.kill(pid, 'SIGSTOP');
  let granted;
  try {
    const frozenAt = await call(b, 'clock');
    granted = await call(b, 'granted', waiting);
    report('stopped tab declared dead -> lock granted elsewhere', `${(granted.at - frozenAt).toFixed(1)} ms`);
  } finally {
    for (const pid of fresh) process.kill(pid, 'SIGCONT');
  }
  const settled = await call(a, 'settled', held);
  expect(settled).toMatchObject({ ok: false, name: 'AbortError' });
  expect(settled.message).toContain('declared it dead');
  expect((await call(a, 'connection')).stats.declaredDead).toBe(1);
  // Its waiting request was registered again and is served in turn.
  const state = await until(host, (s) => named(s.pending, 'later').some((l) => l.clientId === aId), 'a waits again');
  expect(named(state.held, 'frozen')).toEqual([{ name: 'frozen', mode: 'exclusive', clientId: (await call(b, 'connection')).clientId }]);
  await call(b, 'release', bHolds);
  await call(a, 'granted', aWaits);
  await call(a, 'release', aWaits);
  await call(b, 'release', waiting);
  expect(await call(a, 'settled', aWaits)).toMatchObject({ ok: true });
});

test('a tab that leaves while holding a lock releases it, whether or not the back/forward cache keeps the page, and on return it knows it no longer holds it', async ({ playwright, servers, launchOptions }) => {
  // Playwright turns the back/forward cache off by default; this browser (the project's own
  // launch options otherwise: playwright.config.js) has it on.
  const browser = await playwright.chromium.launch({ ...launchOptions, ignoreDefaultArgs: ['--disable-back-forward-cache'] });
  try {
    const context = await browser.newContext();
    await context.addInitScript({ path: new URL('./pages/remove-native.js', import.meta.url).pathname });
    const open = async (url) => {
      const page = await context.newPage();
      await page.goto(url);
      await page.waitForFunction(() => typeof window.harness === 'object');
      return page;
    };
    const base = `${servers.plain}tests/browser/pages/`;
    const b = await open(`${base}plain.html`);
    const a = await open(`${base}plain.html?first`);
    const held = await call(a, 'request', 'bfcache');
    await call(a, 'granted', held);
    const waiting = await call(b, 'request', 'bfcache');
    await until(b, (s) => named(s.pending, 'bfcache').length === 1, 'b waits');
    await a.goto(`${base}plain.html?second`);
    await call(b, 'granted', waiting);
    await a.goBack({ waitUntil: 'commit' });
    await a.waitForFunction(() => typeof window.harness === 'object');
    const lifecycle = await call(a, 'lifecycle');
    const restored = lifecycle.includes('pageshow persisted=true');
    report('back/forward cache', restored ? 'page restored from the cache' : `page not cached (reloaded): ${JSON.stringify(lifecycle)}`);
    if (restored) {
      // Restored: the lock it held was released on pagehide; the promise says so.
      expect(await call(a, 'settled', held)).toMatchObject({ ok: false, name: 'AbortError' });
    }
    const state = await call(a, 'query');
    expect(named(state.held, 'bfcache')).toEqual([{ name: 'bfcache', mode: 'exclusive', clientId: (await call(b, 'connection')).clientId }]);
    const again = await call(a, 'request', 'bfcache');
    await until(b, (s) => named(s.pending, 'bfcache').length === 1, 'the returned page waits');
    await call(b, 'release', waiting);
    await call(a, 'granted', again);
    await call(a, 'release', again);
  } finally {
    await browser.close();
  }
});
