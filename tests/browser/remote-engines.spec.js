// One lock server, three browser engines and Node at once: a Chromium, a Firefox and a WebKit page
// (each on the insecure test name) and two Node clients loop exclusive sections through the app's
// fenced endpoints (the external exclusion check), then queue on one name across all of them and
// are granted in the order they asked (FIFO). Runs in the chromium project, which launches Firefox
// and WebKit itself (support/engines/), so it is listed as Chromium-only in playwright.config.js.
import { test, expect } from './support/fixtures.js';
import { launchFirefox } from './support/engines/firefox.js';
import { launchWebKit } from './support/engines/webkit.js';
import { startApp, openRemotePage, nodeLoop, hold, waiting, r } from './support/remote-app.js';

test('Chromium, Firefox and WebKit pages and Node clients share one lock server: exclusion (external check) and FIFO across all of them', async ({ session, servers }) => {
  test.setTimeout(180_000);
  const app = await startApp(servers);
  const firefox = await launchFirefox();
  const webkit = await launchWebKit(servers);
  const sessions = [];
  try {
    const ffSession = await firefox.newSession();
    const wkSession = await webkit.newSession();
    sessions.push(ffSession, wkSession);
    const chromiumPage = await openRemotePage(session, app);
    const firefoxPage = await openRemotePage(ffSession, app);
    const webkitPage = await openRemotePage(wkSession, app);
    const [n1, n2] = [app.node(), app.node()];

    await Promise.all([
      r(chromiumPage, 'loop', 'section', 10), r(firefoxPage, 'loop', 'section', 10), r(webkitPage, 'loop', 'section', 10),
      nodeLoop(app, n1, 'section', 10), nodeLoop(app, n2, 'section', 10),
    ]);
    expect(app.check).toEqual({ inside: 0, violations: 0, sections: 50, refused: 0 });

    // FIFO: Node 1 holds; Firefox, WebKit, Node 2 and Chromium queue in that order.
    const first = hold(n1, 'fifo');
    await first.granted;
    const ff = await r(firefoxPage, 'request', 'fifo');
    await waiting(app, 'fifo', 1);
    const wk = await r(webkitPage, 'request', 'fifo');
    await waiting(app, 'fifo', 2);
    const nd = hold(n2, 'fifo');
    await waiting(app, 'fifo', 3);
    const ch = await r(chromiumPage, 'request', 'fifo');
    await waiting(app, 'fifo', 4);
    first.release();
    const order = [];
    const tokens = [];
    tokens.push((await r(firefoxPage, 'granted', ff)).fencingToken); order.push('firefox');
    expect(await r(webkitPage, 'state', wk)).toBe('pending');
    await r(firefoxPage, 'release', ff);
    tokens.push((await r(webkitPage, 'granted', wk)).fencingToken); order.push('webkit');
    await r(webkitPage, 'release', wk);
    tokens.push((await nd.granted).fencingToken); order.push('node');
    nd.release();
    tokens.push((await r(chromiumPage, 'granted', ch)).fencingToken); order.push('chromium');
    await r(chromiumPage, 'release', ch);
    expect(order).toEqual(['firefox', 'webkit', 'node', 'chromium']);
    expect([...tokens].sort((a, b) => a - b)).toEqual(tokens);
    expect(await r(chromiumPage, 'settled', ch)).toMatchObject({ ok: true });
  } finally {
    for (const s of sessions) await s.close().catch(() => {});
    await firefox.close().catch(() => {});
    await webkit.close().catch(() => {});
    await app.close();
  }
});
