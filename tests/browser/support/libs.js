// Fixtures and helpers for the real-library specs (libs-*.spec.js): their pages (pages/libs/) load
// a published library over the polyfill and expose `window.lib`; these open such a tab, drive it,
// and check that the origin is an insecure one, where the browser offers no Web Locks of its own.
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sirv from 'sirv';
import * as fixtures from './fixtures.js';

const { expect, call } = fixtures;

// The specs need an insecure origin, a way to crash a tab and a way to report a time. Where the
// shared fixtures provide them (their `report` export says so), they are used as they are (every
// engine); otherwise Chromium gets them here: plain http on the machine's non-loopback address,
// Page.crash over CDP.
function machineAddress() {
  for (const addresses of Object.values(os.networkInterfaces())) {
    for (const a of addresses ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  }
  throw new Error('the insecure test origin needs a non-loopback IPv4 address (`hostname -I`): 127.0.0.1 is a secure context');
}

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

export const test = typeof fixtures.report === 'function' ? fixtures.test : fixtures.test.extend({
  servers: [async ({ servers }, use) => {
    const files = sirv(root, { dev: true, dotfiles: false });
    const server = http.createServer((req, res) => {
      res.setHeader('Cache-Control', 'no-store');
      files(req, res, () => { res.writeHead(404); res.end('not found'); });
    });
    const address = machineAddress();
    await new Promise((resolve, reject) => { server.once('error', reject); server.listen(0, address, resolve); });
    await use({ ...servers, insecure: `http://${address}:${server.address().port}/` });
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }, { scope: 'worker' }],
  crashTab: async ({ context }, use) => {
    await use(async (page) => {
      const crashed = new Promise((resolve) => page.once('crash', resolve));
      (await context.newCDPSession(page)).send('Page.crash').catch(() => {}); // never answers: the page is gone
      await crashed;
    });
  },
});

export const report = fixtures.report ?? ((label, ms) => {
  test.info().annotations.push({ type: 'measured', description: `${label}: ${ms.toFixed(1)} ms` });
  console.log(`measured: ${label}: ${ms.toFixed(1)} ms`);
});

export { expect, call };
export const { until, named } = fixtures;

/** Opens pages/libs/<file> and waits for its module (the library) to be loaded. */
export async function openLibTab(openTab, file) {
  const tab = await openTab(`libs/${file}`);
  await tab.waitForFunction(() => typeof window.lib === 'object' && window.lib.ready === true);
  return tab;
}

/** Runs window.lib[method](...args) in the tab and returns its (awaited) result. */
export function lib(tab, method, ...args) {
  return tab.evaluate(([m, a]) => window.lib[m](...a), [method, args]);
}

/** The tab is on an insecure origin (no native navigator.locks) and the library gets the polyfill's. */
export async function expectInsecureOrigin(tab) {
  expect(await lib(tab, 'probeNative'), 'plain http on a non-loopback address: not a secure context, no native Web Locks')
    .toEqual({ window: { isSecureContext: false }, bareWorker: { isSecureContext: false, navigatorLocks: false, LockManager: 'undefined' } });
  expect(await call(tab, 'info'), 'navigator.locks in the page is the polyfill').toMatchObject({ hasLocks: true, polyfill: true });
}

/** A lock name of this test run (the origin's IndexedDB counters outlive a session in some engines). */
export function uniqueName(label) {
  return `${label}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
}
