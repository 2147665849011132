// How the polyfill installs: where navigator.locks is missing (or when forced), from the classic
// bundle (<script src>, inline with WEBLOCKS_HUB_URL, importScripts in workers) or the ES module;
// every build reaches the same hub. Without SharedWorker it falls back to an in-context engine.
import { test, expect, call, until, named } from './support/fixtures.js';
import { PROTOCOL_VERSION } from '../../js/hub/protocol.js';
import { INSECURE_HOST } from '../support/insecure-origin.mjs';

async function contend(a, b, name) {
  const held = await call(a, 'request', name);
  await call(a, 'granted', held);
  const waiting = await call(b, 'request', name);
  await until(a, (s) => named(s.pending, name).length === 1, 'the other page waits');
  await call(a, 'release', held);
  await call(b, 'granted', waiting);
  await call(b, 'release', waiting);
  expect(await call(b, 'settled', waiting)).toMatchObject({ ok: true });
}

test('the ES module polyfill and the classic bundle share one hub', async ({ openTab }) => {
  const [modulePage, classicPage] = await Promise.all([openTab('module.html'), openTab()]);
  expect(await call(modulePage, 'info')).toMatchObject({ hasLocks: true, polyfill: true });
  await contend(modulePage, classicPage, 'module-vs-classic');
  expect((await call(modulePage, 'connection')).hubId).toBe((await call(classicPage, 'connection')).hubId);
});

test('the classic bundle injected inline finds the hub through WEBLOCKS_HUB_URL', async ({ openTab }) => {
  const [inline, classic] = await Promise.all([openTab('inline.html'), openTab()]);
  await contend(classic, inline, 'inline');
  expect((await call(inline, 'connection')).hubId).toBe((await call(classic, 'connection')).hubId);
});

test('the polyfill leaves a working native navigator.locks in place unless forced', async ({ driver, servers }) => {
  // A session that keeps the engine's native Web Locks (no removal script), on a secure origin.
  const session = await driver.newSession();
  try {
    const page = await session.open(`${servers.loopback}tests/browser/pages/native.html`);
    await page.waitForFunction(() => typeof window.harness === 'object');
    expect(await page.evaluate(() => [window.isSecureContext, typeof window.nativeLocks])).toEqual([true, 'object']);
    expect(await page.evaluate(() => navigator.locks === window.nativeLocks)).toBe(true);
    expect(await page.evaluate(() => harness.connection())).toBeNull();
    await page.goto(`${servers.loopback}tests/browser/pages/native.html?force`);
    await page.waitForFunction(() => typeof window.harness === 'object');
    expect(await page.evaluate(() => navigator.locks !== window.nativeLocks && String(navigator.locks))).toBe('[object LockManager]');
    const id = await call(page, 'request', 'forced');
    await call(page, 'granted', id);
    expect((await call(page, 'connection')).hubId).toMatch(/^[0-9a-f-]{36}$/);
    await call(page, 'release', id);
  } finally {
    await session.close();
  }
});

test('on plain http at a made-up name mapped to 127.0.0.1 there is no native navigator.locks, and the polyfill installs one that works', async ({ driver, servers }) => {
  // 127.0.0.1 and localhost are secure contexts; an insecure origin is where users need us. The
  // name reaches the test server on 127.0.0.1 (it listens nowhere else) through each engine's
  // mapping (tests/support/insecure-origin.mjs); the page sees the name as its origin.
  const session = await driver.newSession();
  try {
    const page = await session.open(`${servers.insecure}tests/browser/pages/native.html`);
    await page.waitForFunction(() => typeof window.harness === 'object');
    expect(await page.evaluate(() => ({ host: location.hostname, secure: window.isSecureContext, native: typeof window.nativeLocks, LockManager: typeof window.LockManager })))
      .toEqual({ host: INSECURE_HOST, secure: false, native: 'undefined', LockManager: 'function' });
    expect(await call(page, 'info')).toMatchObject({ hasLocks: true, polyfill: true });
    const id = await call(page, 'request', 'insecure');
    await call(page, 'granted', id);
    expect((await call(page, 'connection')).hubId).not.toBeNull();
    await call(page, 'release', id);
    expect(await call(page, 'settled', id)).toMatchObject({ ok: true });
  } finally {
    await session.close();
  }
});

test('without SharedWorker the polyfill uses an engine in the page, says so once, and still serves its workers', async ({ openTab }) => {
  const warnings = [];
  const page = await openTab('no-shared-worker.html');
  page.on('console', (m) => { if (m.type() === 'warning') warnings.push(m.text()); });
  const w = await call(page, 'spawn', '/tests/browser/pages/worker.js');
  const held = await call(page, 'request', 'local');
  await call(page, 'granted', held);
  const fromWorker = await call(page, [w], 'request', 'local');
  await until(page, (s) => named(s.pending, 'local').length === 1, 'the worker waits for its page');
  await call(page, 'release', held);
  await call(page, [w], 'granted', fromWorker);
  await call(page, [w], 'release', fromWorker);
  expect((await call(page, 'connection')).hubId).toMatch(/^local-/);
  expect(warnings.filter((w) => /no SharedWorker/.test(w))).toHaveLength(1);
});

test('the hub as an ES module SharedWorker (the package\'s "./hub" export) serves the same protocol', async ({ openTab }) => {
  // For apps that bundle the hub themselves. (A hub at another URL is another lock space: pick one.)
  const page = await openTab();
  const heard = await page.evaluate((v) => new Promise((resolve, reject) => {
    const worker = new SharedWorker('/js/hub/hub-worker.js', { type: 'module', name: 'weblocks-wasm-hub' });
    const received = [];
    worker.onerror = () => reject(new Error('the module hub did not start'));
    worker.port.onmessage = (event) => {
      received.push(event.data.t);
      if (event.data.t === 'granted') resolve(received);
    };
    worker.port.postMessage({ t: 'hello', v, clientId: 'module-hub-check', key: 'check', lostHub: null, reclaim: [] });
    worker.port.postMessage({ t: 'request', token: 1, name: 'via-module-hub', mode: 'exclusive', wait: 'wait' });
  }), PROTOCOL_VERSION);
  expect(heard).toEqual(['hub', 'welcome', 'granted']);
});

test('the ES module ponyfill shares the hub without touching navigator, and createLocalLockManager is a lock space of its own', async ({ openTab }) => {
  const page = await openTab();
  const outcome = await page.evaluate(async () => {
    const ponyfill = await import('/js/browser/index.js');
    let release;
    const holding = new Promise((resolve) => { release = resolve; });
    let granted;
    const grantedNow = new Promise((resolve) => { granted = resolve; });
    const held = ponyfill.locks.request('ponyfill', (lock) => { granted(lock.mode); return holding; });
    const mode = await grantedNow;
    const blockedForNavigator = await navigator.locks.request('ponyfill', { ifAvailable: true }, (lock) => lock === null);
    const local = ponyfill.createLocalLockManager();
    const freeInLocalSpace = await local.request('ponyfill', { ifAvailable: true }, (lock) => lock !== null);
    release('done');
    return {
      mode,
      result: await held,
      blockedForNavigator,
      freeInLocalSpace,
      distinctFromNavigator: ponyfill.locks !== navigator.locks,
      tag: Object.prototype.toString.call(local),
    };
  });
  expect(outcome).toEqual({
    mode: 'exclusive', result: 'done', blockedForNavigator: true, freeInLocalSpace: true,
    distinctFromNavigator: true, tag: '[object LockManager]',
  });
});
