// A context declared dead while in fact alive (frozen, throttled, paused) must not go on believing
// it holds its locks: when it runs again it learns they were released, as a stolen holder does
// (the request's promise rejects with an AbortError); its waiting requests are registered again.
// The back/forward cache freezes a page with its port open: the polyfill says bye on pagehide.
import { test, expect, call, until, named } from './support/fixtures.js';

function report(label, text) {
  test.info().annotations.push({ type: 'measured', description: `${label}: ${text}` });
  console.log(`measured: ${label}: ${text}`);
}

test('a tab that stops answering (paused in a debugger) is declared dead, its lock goes to the next waiter, and when it runs again its promise rejects with an AbortError', async ({ openTab, context }) => {
  const host = await openTab();
  const [a, b] = await Promise.all([openTab(), openTab()]);
  const held = await call(a, 'request', 'frozen');
  await call(a, 'granted', held);
  const bHolds = await call(b, 'request', 'later');
  await call(b, 'granted', bHolds);
  const aWaits = await call(a, 'request', 'later');
  const waiting = await call(b, 'request', 'frozen');
  await until(host, (s) => named(s.pending, 'frozen').length === 1 && named(s.pending, 'later').length === 1, 'both wait');
  const aId = (await call(a, 'connection')).clientId;

  const cdp = await context.newCDPSession(a);
  // Pausing its JavaScript silences the page the way a frozen or starved one is silent (CDP's
  // Page.setWebLifecycleState 'frozen' does not stop a visible page's tasks in this Chromium).
  await cdp.send('Debugger.enable');
  await cdp.send('Debugger.pause');
  const frozenAt = await call(b, 'clock');
  const granted = await call(b, 'granted', waiting);
  report('paused tab declared dead -> lock granted elsewhere', `${(granted.at - frozenAt).toFixed(1)} ms`);
  await cdp.send('Debugger.resume');

  expect(await call(a, 'settled', held)).toMatchObject({ ok: false, name: 'AbortError' });
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

test('a tab that leaves while holding a lock releases it, whether or not the back/forward cache keeps the page, and on return it knows it no longer holds it', async ({ playwright, servers }) => {
  // Playwright turns the back/forward cache off by default; this browser has it on.
  const browser = await playwright.chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    ignoreDefaultArgs: ['--disable-back-forward-cache'],
  });
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
