// The loader (js/browser/loader.js; issue 49): a page pays for the polyfill only where it is
// needed. Each test opens loader.html in a session of its own under a run prefix of its own
// (support/server.mjs LOADER_RUN), so the server can list every file the page asked for.
import { test, expect } from './support/fixtures.js';

let runs = 0;
const runId = (what) => `${what}-${process.pid}-${++runs}`;

for (const variant of ['classic', 'module']) {
  const query = variant === 'module' ? '?module' : '';
  // The files of the loader itself: the classic bundle, or the ES module loader's own graph (unbundled).
  const loaderFiles = variant === 'module'
    ? ['/js/browser/polyfill.js', '/js/browser/loader.js', '/js/browser/pending-locks.js', '/js/browser/worker-patch.js']
    : ['/build/dist/weblocks-polyfill.js'];

  test(`${variant} loader: a secure page with native locks downloads nothing but the loader, and keeps the native navigator.locks`, async ({ driver, servers }) => {
    const run = runId(`native-${variant}`);
    const session = await driver.newSession();
    try {
      const page = await session.open(`${servers.loopback}loader-run/${run}/tests/browser/pages/loader.html${query}`);
      await page.waitForFunction(() => typeof window.outcomeB === 'object');
      expect(await page.evaluate(() => window.firstLine)).toEqual({ secure: true, pending: false });
      // The native LockManager serves every request (no polyfill was installed, none loaded).
      expect(await page.evaluate(() => String(navigator.locks) === '[object LockManager]' && window[Symbol.for('weblocks-wasm.pending')] === undefined)).toBe(true);
      await page.evaluate(() => window.afterA);
      await page.evaluate(() => window.releaseA());
      expect(await page.evaluate(() => Promise.all([window.outcomeA, window.outcomeB, window.outcomeIfAvailable]))).toEqual(['A undefined', 'B done', 'not available']);
      const pageFiles = ['/tests/browser/pages/loader.html', '/tests/browser/pages/loader-first-line.js', ...(variant === 'module' ? ['/tests/browser/pages/loader-module.js'] : [])];
      expect(servers.requestsOf(run).sort()).toEqual([...pageFiles, ...loaderFiles].sort());
    } finally {
      await session.close();
    }
  });

  test(`${variant} loader: on an insecure page, requests made before the rest loads are served in order, query() answers truly, and a worker created then shares the lock space`, async ({ driver, servers }) => {
    const run = runId(`order-${variant}`);
    const session = await driver.newSession();
    try {
      const page = await session.open(`${servers.insecure}loader-run/${run}/tests/browser/pages/loader.html${query}`);
      await page.waitForFunction(() => typeof window.outcomeB === 'object');
      // Made while navigator.locks was still the loader's pending one: the test means something.
      expect(await page.evaluate(() => window.firstLine)).toEqual({ secure: false, pending: true });
      await page.evaluate(() => window.afterA);
      expect(await page.evaluate(() => window.isInstalled())).toBe(true);
      expect(await page.evaluate(() => window.outcomeIfAvailable)).toBe('not available');
      expect(await page.evaluate(() => window.snapshot)).toEqual({ held: ['x exclusive'], pending: ['x exclusive'] });
      expect(await page.evaluate(() => window.workerSaw)).toBe('held elsewhere');
      expect(await page.evaluate(() => window.order)).toEqual(['A']);
      await page.evaluate(() => window.releaseA());
      expect(await page.evaluate(() => Promise.all([window.outcomeA, window.outcomeB]))).toEqual(['A undefined', 'B done']);
      expect(await page.evaluate(() => window.order)).toEqual(['A', 'B']);
      expect(await page.evaluate(() => window.reported)).toEqual([]);
      expect(servers.requestsOf(run)).toContain(variant === 'module' ? '/js/browser/polyfill-rest.js' : '/build/dist/weblocks-polyfill-sync.js');
    } finally {
      await session.close();
    }
  });
}

for (const variant of ['classic', 'module']) {
  test(`${variant} loader: a missing rest (a 404 after a deploy) fails every request made meanwhile and after, at once, naming the file and the fix`, async ({ driver, servers }) => {
    const run = runId(`no-rest-${variant}`);
    const session = await driver.newSession();
    try {
      const base = `${servers.insecure}loader-run-no-rest/${run}/`;
      const page = await session.open(`${base}tests/browser/pages/loader.html${variant === 'module' ? '?module' : ''}`);
      await page.waitForFunction(() => typeof window.outcomeB === 'object');
      expect(await page.evaluate(() => window.firstLine)).toEqual({ secure: false, pending: true });
      const outcomes = await page.evaluate(() => Promise.all([window.outcomeA, window.outcomeB, window.outcomeIfAvailable, window.snapshot]));
      const rest = variant === 'module' ? `${base}js/browser/polyfill-rest.js` : `${base}build/dist/weblocks-polyfill-sync.js`;
      const fix = variant === 'module' ? "Serve the package's js/ folder whole, of one version." : 'Serve it next to weblocks-polyfill.js (a module worker imports it itself).';
      for (const outcome of outcomes) {
        expect(outcome).toContain(`NotSupportedError: Web Locks: the rest of the polyfill, ${rest}, could not be loaded`);
        expect(outcome).toContain(fix);
      }
      expect(outcomes.map((outcome) => outcome.split(' ')[0])).toEqual(['A', 'B', 'NotSupportedError:', 'NotSupportedError:']);
      // Said loudly too: reported on the page (reportError), once.
      const reported = await page.evaluate(() => window.reported);
      expect(reported.filter((message) => message.startsWith('Web Locks: the rest of the polyfill'))).toEqual([outcomes[2].slice('NotSupportedError: '.length)]);
      // The worker created in the first line (classic loader, the rest loaded at once there) fails its script, naming the file.
      expect(await page.evaluate(() => window.workerSaw)).toContain(`NotSupportedError: Web Locks: the rest of the polyfill, ${base}build/dist/weblocks-polyfill-sync.js, could not be loaded`);
      // A later call fails with the same error, at once.
      expect(await page.evaluate(() => navigator.locks.request('later', () => 'granted').catch((error) => error.name))).toBe('NotSupportedError');
      expect(servers.requestsOf(run).filter((file) => file.includes('weblocks-hub'))).toEqual([]);
    } finally {
      await session.close();
    }
  });
}
