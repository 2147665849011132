// The behavioural suite (tests/node/suite/, derived from the spec) on the hub, in Chromium, on a
// plain-http origin and on a cross-origin-isolated one. Case names are collected here from the
// same suite module, then each case runs in the page.
import { test, expect } from './support/fixtures.js';
import { defineLockSuite } from '../node/suite/index.js';

const names = [];
defineLockSuite({ test: (name) => names.push(name) }, {
  name: 'SharedWorker hub', endings: ['close', 'terminate'], locks: null, openContext: null,
});

for (const origin of ['plain', 'isolated']) {
  test.describe(`the behavioural suite on the hub (${origin} origin)`, () => {
    test.use({ origin });
    let page;
    test.beforeAll(async ({ browser, servers }) => {
      const context = await browser.newContext();
      await context.addInitScript({ path: new URL('./pages/remove-native.js', import.meta.url).pathname });
      page = await context.newPage();
      page.on('console', (m) => { if (m.type() === 'error') console.log(`[suite page] ${m.text()}`); });
      await page.goto(`${servers[origin]}tests/browser/pages/suite.html`);
      await page.waitForFunction(() => Array.isArray(window.suiteCases));
      expect(await page.evaluate(() => window.crossOriginIsolated)).toBe(origin === 'isolated');
      expect(await page.evaluate(() => window.suiteCases)).toEqual(names);
    });
    test.afterAll(async () => { await page.context().close(); });
    for (const name of names) {
      test(name, async () => {
        const notes = await page.evaluate((n) => window.runSuiteCase(n), name);
        for (const note of notes) test.info().annotations.push({ type: 'note', description: note });
      });
    }
  });
}
