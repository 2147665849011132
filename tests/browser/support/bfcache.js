// The back/forward cache in the three engines (bfcache.spec.js): a browser whose cache is on, and
// a tab that leaves its page and comes back to it. Playwright starts Chromium with the cache off,
// so Chromium gets a browser of its own here; Firefox's and WebKit's sessions have it on.

/** { open(url) -> tab, close() }: tabs of one lock space, in a browser with the cache on. */
export async function cachingBrowser({ engine, session, playwright, launchOptions }) {
  // A tab is ready once bfcache-page.js has run (WebKit's tab connects from the page's first script).
  const ready = async (tab) => { await tab.waitForFunction(() => typeof window.bf === 'object'); return tab; };
  if (engine !== 'chromium') return { open: async (url) => ready(await session.open(url)), close: async () => {} };
  const browser = await playwright.chromium.launch({ ...launchOptions, ignoreDefaultArgs: ['--disable-back-forward-cache'] });
  const context = await browser.newContext();
  return {
    open: async (url) => { const page = await context.newPage(); await page.goto(url); return ready(page); },
    close: () => browser.close(),
  };
}

/** Polls `fn` in the tab until it gives a truthy value; errors while the tab navigates count as not yet. */
async function settle(tab, fn, label) {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const value = await tab.evaluate(fn).catch(() => null);
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`never reached: ${label}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * Leaves the tab's page (bfcache.html) for `away` and goes back. -> { restored, lifecycle }:
 * restored when the same document came back (its id) with a `pageshow` whose persisted is true.
 */
export async function leaveAndReturn(tab, away, whileAway = async () => {}) {
  const before = await tab.evaluate(() => window.bf.id);
  await tab.goto(away);
  await settle(tab, () => location.search.includes('away') && document.readyState === 'complete', 'the page away loaded');
  await whileAway();
  if (typeof tab.goBack === 'function') await tab.goBack({ waitUntil: 'commit' }); else await tab.back();
  // Back is over once the page shows again: pageshow ends its lifecycle (restored or loaded anew).
  const { id, lifecycle } = await settle(tab, () => !location.search.includes('away') && window.bf
    && /^pageshow/.test(window.bf.lifecycle().at(-1) ?? '') && { id: window.bf.id, lifecycle: window.bf.lifecycle() }, 'the page shown again');
  const restored = id === before && lifecycle.at(-1) === 'pageshow persisted=true';
  return { restored, lifecycle };
}
