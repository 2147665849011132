// Helpers for the real-library specs (libs-*.spec.js): their pages (pages/libs/) load a published
// library over the polyfill and expose `window.lib`; these open such a tab, drive it, and check
// that the origin is an insecure one, where the browser offers no Web Locks of its own.
import { test, expect, call, until, named, report } from './fixtures.js';

// The insecure origin (`test.use({ origin: 'insecure' })`), crashTab and report come from the
// shared fixtures, in every engine.
export { test, expect, call, until, named, report };

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
