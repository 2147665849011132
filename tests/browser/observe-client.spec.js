// The observeLocks client of the classic polyfill is a file of its own, build/dist/weblocks-observe.js
// next to the hub (issue 29, "Bytes"): a page downloads it only on its first observeLocks() call,
// in a window (a script element), a classic dedicated worker (importScripts) and a module worker
// (import()). The call returns its stop function at once and reports what the lock space holds;
// a deployment that forgot the file gets a NotSupportedError naming it and the fix.
// Written against the engine-neutral tab (support/fixtures.js): it runs in Chromium, Firefox and WebKit.
import { test, expect, call } from './support/fixtures.js';

const OBSERVE_FILE = 'weblocks-observe.js';

async function holdIn(page, name) {
  const id = await call(page, 'request', name);
  await call(page, 'granted', id);
  return id;
}

function downloaded(tab) {
  return tab.evaluate(() => performance.getEntriesByType('resource').map((entry) => entry.name.split('/').pop()));
}

/** In `tab`: observeLocks(names: [name]) until `name` is held; what the call returned and saw. */
function observeInPage(tab, name) {
  return tab.evaluate((n) => new Promise((resolve) => {
    let stop = null;
    stop = window[Symbol.for('weblocks-wasm.observeLocks')]((snapshot) => {
      const held = snapshot.held.map((info) => info.name);
      if (!held.includes(n)) return;
      stop();
      resolve({ stopAtOnce: typeof stop, held });
    }, { names: [n] });
  }), name);
}

/** In `tab`: a dedicated worker of `script` (options) observes `name` until it is held. */
function observeInWorker(tab, script, options, name) {
  return tab.evaluate(({ s, o, n }) => new Promise((resolve, reject) => {
    const worker = new Worker(s, o);
    worker.onmessage = (event) => { worker.terminate(); resolve(event.data); };
    worker.onerror = (event) => reject(new Error(`the worker failed: ${event.message}`));
    worker.postMessage(n);
  }), { s: script, o: options, n: name });
}

test("the classic polyfill's observeLocks loads weblocks-observe.js on its first call only, and reports another tab's lock in a window, a classic worker and a module worker", async ({ openTab }) => {
  const holder = await openTab();
  const held = await holdIn(holder, 'observed');
  const page = await openTab();
  await holdIn(page, 'before-observing');
  expect(await downloaded(page), 'not downloaded before the first observeLocks()').not.toContain(OBSERVE_FILE);
  expect(await observeInPage(page, 'observed')).toEqual({ stopAtOnce: 'function', held: ['observed'] });
  expect(await downloaded(page)).toContain(OBSERVE_FILE);
  expect(await observeInWorker(page, '/tests/browser/pages/observe-classic-worker.js', {}, 'observed'))
    .toEqual({ stopAtOnce: 'function', held: ['observed'] });
  expect(await observeInWorker(page, '/tests/browser/pages/observe-module-worker.js', { type: 'module' }, 'observed'))
    .toEqual({ stopAtOnce: 'function', held: ['observed'] });
  await call(holder, 'release', held);
});

test('weblocks-observe.js missing: observeLocks reports a NotSupportedError naming its URL and the fix, never calls back, and the locks still work', async ({ openTab, servers }) => {
  // /no-observe/ serves everything of build/dist/ but weblocks-observe.js.
  const page = await openTab('deploy.html?polyfill=/no-observe/weblocks-polyfill-sync.js');
  const outcome = await page.evaluate(() => new Promise((resolve) => {
    let calls = 0;
    window.addEventListener('error', (event) => {
      event.preventDefault();
      resolve({ name: event.error?.name, message: event.error?.message, calls, stopAtOnce });
    }, { once: true });
    const stopAtOnce = typeof window[Symbol.for('weblocks-wasm.observeLocks')](() => { calls += 1; });
  }));
  expect(outcome).toMatchObject({ name: 'NotSupportedError', calls: 0, stopAtOnce: 'function' });
  expect(outcome.message).toContain(`observeLocks needs its client, but ${servers.plain}no-observe/${OBSERVE_FILE} could not be loaded`);
  expect(outcome.message).toContain(`Serve ${OBSERVE_FILE} from build/dist/ next to the hub.`);
  const id = await holdIn(page, 'still-works');
  await call(page, 'release', id);
});

test("the ES module polyfill's observeLocks imports its client (js/api/observe-locks.js) on its first call only, and reports another tab's lock", async ({ openTab }) => {
  const holder = await openTab();
  const held = await holdIn(holder, 'observed-by-module');
  const page = await openTab('module.html');
  await holdIn(page, 'before-observing');
  expect(await downloaded(page), 'not imported before the first observeLocks()').not.toContain('observe-locks.js');
  expect(await observeInPage(page, 'observed-by-module')).toEqual({ stopAtOnce: 'function', held: ['observed-by-module'] });
  const files = await downloaded(page);
  expect(files).toContain('observe-locks.js');
  expect(files).not.toContain(OBSERVE_FILE);
  await call(holder, 'release', held);
});
