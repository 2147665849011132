// The back/forward cache, as each engine's own Web Locks treat it (docs/browser.md, "Back/forward
// cache"): a page leaves and comes back; was it restored from the cache (the same document,
// `pageshow` with persisted) or loaded anew? Each case runs on the secure origin (the engine's own
// navigator.locks, no polyfill: bfcache.html loads it only where locks are missing) and on the
// insecure one (the polyfill), and the two must agree. While the page is away, another tab of the
// origin queries the lock space (in Chromium that evicts a cached page that holds a lock).
import { test, expect } from './support/fixtures.js';
import { cachingBrowser, leaveAndReturn } from './support/bfcache.js';

const CASES = {
  'a page that holds nothing': async () => {},
  'a page whose window holds a lock': async (tab) => { await tab.evaluate(() => window.bf.hold('held')); },
  'a page whose dedicated worker holds a lock': async (tab) => {
    await tab.evaluate(async () => { await window.bf.spawn('dedicated'); return window.bf.inWorker('hold', 'held'); });
  },
  'a page whose shared worker holds a lock': async (tab) => {
    await tab.evaluate(async () => { await window.bf.spawn('shared'); return window.bf.inWorker('hold', 'held'); });
  },
  'a page whose window held a lock and released it': async (tab) => {
    await tab.evaluate(async () => { await window.bf.hold('held'); await window.bf.release('held'); return window.bf.quiet(); });
  },
  'a page whose dedicated worker held a lock and released it': async (tab) => {
    await tab.evaluate(async () => { await window.bf.spawn('dedicated'); await window.bf.inWorker('hold', 'held'); await window.bf.inWorker('release', 'held'); return window.bf.quiet(); });
  },
  'a page whose window waits for a lock another tab holds': async (tab, other) => {
    await other.evaluate(() => window.bf.hold('held'));
    await tab.evaluate(() => window.bf.wait('held'));
  },
  'a page whose shared worker held a lock and released it': async (tab) => {
    await tab.evaluate(async () => { await window.bf.spawn('shared'); await window.bf.inWorker('hold', 'held'); await window.bf.inWorker('release', 'held'); return window.bf.quiet(); });
  },
};

// What each engine's own locks do, measured with this spec (docs/browser.md, "Back/forward
// cache"): 'not cached', or 'restored' and how the window's own request ended by then.
const R = 'restored, unsettled';
const NATIVE = {
  chromium: [R, 'not cached', 'not cached', 'not cached', 'restored, ok', R, R, R],
  firefox: [R, 'not cached', 'not cached', 'not cached', 'restored, ok', R, 'not cached', R],
  webkit: [R, 'restored, AbortError', R, R, 'restored, ok', R, 'restored, AbortError', R],
};

// Where the polyfill does not behave as the engine's own locks, with why (a test that cannot pass
// is left out, not counted as passing).
function gap(engine, label) {
  if (engine === 'chromium' && label.includes('shared worker holds')) {
    return 'Chromium evicts the page when another context uses the lock space its shared worker holds in; an app\'s shared worker gets an in-context engine of its own (no SharedWorker constructor there: context.js), a lock space the other tab\'s query() does not reach';
  }
  if (engine === 'firefox' && label === 'a page whose dedicated worker held a lock and released it') {
    return 'Firefox at times does not cache this page with the polyfill although nothing is outstanding (1 run in about 8 before, 2 tries of 1 clean-clone run of 7 on 2026-12-02; cause not found: docs/browser.md, "Back/forward cache"); its other runs pass';
  }
  if (engine === 'chromium' && label.includes('holds a lock')) {
    return 'Chromium keeps a cached page\'s locks until another context uses the lock space, then evicts the page; the polyfill releases them on pagehide and restores the page with an AbortError (not built: docs/browser.md, "Back/forward cache")';
  }
  return null;
}

Object.entries(CASES).forEach(([label, setUp], index) => {
  for (const origin of ['native', 'polyfill']) {
    test(`${origin === 'native' ? 'The engine\'s own locks' : 'The polyfill'}: ${label}, left and gone back to, is cached or not as with the engine\'s own locks`, async ({ engine, session, playwright, launchOptions, servers }) => {
      if (origin === 'polyfill') test.skip(gap(engine, label) !== null, gap(engine, label) ?? '');
      const base = origin === 'native' ? servers.loopback : servers.insecure;
      const page = `${base}tests/browser/pages/bfcache.html?cacheable`;
      const browser = await cachingBrowser({ engine, session, playwright, launchOptions });
      try {
        const other = await browser.open(`${page}&other`);
        const tab = await browser.open(page);
        expect(await tab.evaluate(() => window.bf.native())).toBe(origin === 'native');
        await setUp(tab, other);
        const { restored, lifecycle } = await leaveAndReturn(tab, `${base}tests/browser/pages/bfcache.html?cacheable&away`,
          () => other.evaluate(() => window.bf.query()));
        const seen = restored ? `restored, ${(await tab.evaluate(() => window.bf.outcome('held'))) ?? 'unsettled'}` : 'not cached';
        console.log(`measured [${engine}] ${origin}: ${label}: ${seen} ${JSON.stringify(lifecycle)}`);
        expect(seen).toBe(NATIVE[engine][index]);
      } finally {
        await browser.close();
      }
    });
  }
});
