// The behavioural suite (tests/node/suite/, derived from the spec) on the hub, in every engine, on
// the insecure origin (plain http on the machine's address: no native navigator.locks there) and
// on a cross-origin-isolated one. Case names are collected here from the same suite module, then
// each case runs in the page.
import { test, expect } from './support/fixtures.js';
import { defineLockSuite } from '../node/suite/index.js';

const caseNames = (host) => {
  const names = [];
  defineLockSuite({ test: (name) => names.push(name) }, {
    name: 'SharedWorker hub', endings: ['close', 'terminate'], locks: null, openContext: null,
    observeLocks: () => {}, deadlockDetection: true, ...host,
  });
  return names;
};
// What the page defines; the isolated origin runs them but the argument cases (cases/webidl.js):
// the polyfill's own argument checks, the same in a page of either origin, run on the insecure one.
const names = caseNames({});
const runs = { insecure: names, isolated: caseNames({ webidl: false }) };

for (const origin of ['insecure', 'isolated']) {
  test.describe(`the behavioural suite on the hub (${origin} origin)`, () => {
    let session;
    let page;
    test.beforeAll(async ({ driver, servers }) => {
      session = await driver.newSession(new URL('./pages/remove-native.js', import.meta.url).pathname);
      page = await session.open(`${servers[origin]}tests/browser/pages/suite.html`, (tab) => {
        tab.on('console', (m) => { if (m.type() === 'error') console.log(`[suite page] ${m.text()}`); });
      });
      await page.waitForFunction(() => Array.isArray(window.suiteCases));
      expect(await page.evaluate(() => [window.isSecureContext, window.crossOriginIsolated]))
        .toEqual(origin === 'isolated' ? [true, true] : [false, false]);
      expect(await page.evaluate(() => window.suiteCases)).toEqual(names);
    });
    test.afterAll(async () => { await session?.close(); });
    for (const name of runs[origin]) {
      test(name, async () => {
        const notes = await page.evaluate((n) => window.runSuiteCase(n), name);
        for (const note of notes) test.info().annotations.push({ type: 'note', description: note });
      });
    }
  });
}
