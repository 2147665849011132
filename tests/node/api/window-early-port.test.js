// A window makes its port to the hub as the polyfill installs (once its document is parsed), not at
// its first request (context.js):
// the SharedWorker's `connect` event comes through the browser process, and a port made at the
// first request let another tab's later request reach the hub first (spec 3.2.2: a request is
// enqueued when request() runs). The browser case is tests/browser/first-requests.spec.js; here a
// window scope of our own counts the SharedWorkers made and when.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MessageChannel } from 'node:worker_threads';
import { createLocalEngine } from '../../../js/engine/index.js';
import { Hub } from '../../../js/hub/hub.js';
import { createContextBackend } from '../../../js/browser/context.js';
import { createLockManager } from '../../../js/api/index.js';
import { until } from './until.js';
import { fakeWindow } from './fake-window.js';

/**
 * A window whose SharedWorker constructor connects a MessageChannel to the origin's hub (`hub`, or
 * `hub.current` when it is a holder whose hub a test replaces) and records each construction.
 */
function windowOn(hub, ports, { readyState = 'complete' } = {}) {
  const made = [];
  class SharedWorker {
    constructor(url, options) {
      const { port1, port2 } = new MessageChannel();
      made.push({ url: String(url), name: options?.name, hubSide: port2 });
      ports.push(port1, port2);
      (hub.current ?? hub).connect(port2);
      this.port = port1;
    }

    addEventListener() {}
  }
  return { ...fakeWindow(SharedWorker, { readyState }), made };
}

async function space(t) {
  const hub = new Hub(await createLocalEngine(), { hubId: 'only', log: () => {} });
  const ports = [];
  t.after(() => { hub.stop(); for (const port of ports) port.close(); });
  return { hub, ports };
}

test('a window connects to the hub as the polyfill installs (a microtask later), and its first request goes on that port', async (t) => {
  const { hub, ports } = await space(t);
  const { scope, made } = windowOn(hub, ports);
  const backend = createContextBackend({ hubUrl: '/weblocks/weblocks-hub.js', scope });
  await Promise.resolve();
  assert.equal(made.length, 1, 'the SharedWorker is made as the context is set up');
  assert.equal(hub.connections.size, 1, 'the hub has the port before any request');
  assert.equal(backend.port, null, 'no hello yet: the window registers at its first request');
  const locks = createLockManager(backend);
  assert.equal(await locks.request('x', (lock) => lock.name), 'x');
  assert.equal(made.length, 1, 'the first request used the port made at install');
  assert.equal(hub.connections.size, 1);
});

test("a window's port older than 10 s is not used: its first request makes a new one", async (t) => {
  const { hub, ports } = await space(t);
  const { scope, made } = windowOn(hub, ports);
  t.mock.timers.enable({ apis: ['Date'], now: Date.now() });
  const backend = createContextBackend({ hubUrl: '/weblocks/weblocks-hub.js', scope });
  await Promise.resolve();
  t.mock.timers.tick(10_000); // the hub forgets a port that never said hello after 30 s
  const locks = createLockManager(backend);
  const granted = locks.request('x', (lock) => lock.name);
  t.mock.timers.reset();
  assert.equal(await granted, 'x');
  assert.equal(made.length, 2, 'a second SharedWorker was made for the first request');
  await until(() => [...hub.connections].filter((conn) => conn.client !== null).length === 1, 'one connection registered');
});

test('a lock space of a storage bucket (a hub of its own) is not connected before its first request', async (t) => {
  const { hub, ports } = await space(t);
  const { scope, made } = windowOn(hub, ports);
  createContextBackend({ hubUrl: '/weblocks/weblocks-hub.js', scope, space: 'drafts' });
  assert.equal(made.length, 0);
});

test('a window whose document is still being parsed makes its port once parsing ends, not before', async (t) => {
  // Chromium fired no error for a hub script that 404s when its SharedWorker was made during parsing (context.js).
  const { hub, ports } = await space(t);
  const { scope, made, finishParsing } = windowOn(hub, ports, { readyState: 'loading' });
  const backend = createContextBackend({ hubUrl: '/weblocks/weblocks-hub.js', scope });
  await Promise.resolve();
  assert.equal(made.length, 0, 'nothing made while the document is parsed');
  finishParsing();
  assert.equal(made.length, 1, 'made when parsing ends');
  const locks = createLockManager(backend);
  assert.equal(await locks.request('x', (lock) => lock.name), 'x');
  assert.equal(made.length, 1, 'the first request used it');
});

test('a first request made while the document is parsed connects at once, and parsing\'s end makes no second port', async (t) => {
  const { hub, ports } = await space(t);
  const { scope, made, finishParsing } = windowOn(hub, ports, { readyState: 'loading' });
  const backend = createContextBackend({ hubUrl: '/weblocks/weblocks-hub.js', scope });
  const locks = createLockManager(backend);
  const granted = locks.request('x', (lock) => lock.name);
  await until(() => made.length === 1, 'the first request made its port');
  finishParsing();
  assert.equal(await granted, 'x');
  assert.equal(made.length, 1);
});

test('a window whose hub died after it greeted the window\'s early port, before the first request, registers with the hub that serves the origin now', async (t) => {
  // The hub ran in a tab that crashed: the early port goes silent, and no close event says so. The
  // first hello's silence makes the window ask which hub serves the origin (a fresh connection's
  // greeting), not wait for the hub-loss timeouts (HUB_SILENT_AFTER + PROBE_TIMEOUT).
  const { hub: first, ports } = await space(t);
  const origin = { current: first };
  const { scope, made } = windowOn(origin, ports);
  const backend = createContextBackend({ hubUrl: '/weblocks/weblocks-hub.js', scope });
  const logged = [];
  backend.log = (level, text) => logged.push(text);
  await until(() => made.length === 1, 'the early port is made');
  await new Promise((resolve) => setTimeout(resolve, 20)); // its greeting arrives
  first.stop();
  made[0].hubSide.onmessage = null; // the hub is gone: nothing it was sent is read
  const second = new Hub(await createLocalEngine(), { hubId: 'second', log: () => {} });
  t.after(() => second.stop());
  origin.current = second;
  const locks = createLockManager(backend);
  assert.equal(await locks.request('x', (lock) => lock.name), 'x');
  assert.equal(backend.hubId, 'second', 'granted by the hub that serves the origin now');
  assert.equal(made.length, 2, 'one fresh connection: the question, then used for the hello');
  assert.deepEqual(logged, ['the lock hub was replaced; re-registering 1 locks and requests with the new one'], 'told by the question, not by the hub-loss timeouts');
});

test('a window whose first hello its live hub answers late asks which hub serves, hears the same one, and goes on', async (t) => {
  const { hub, ports } = await space(t);
  const { scope, made } = windowOn(hub, ports);
  const backend = createContextBackend({ hubUrl: '/weblocks/weblocks-hub.js', scope });
  const logged = [];
  backend.log = (level, text) => logged.push(text);
  await until(() => made.length === 1, 'the early port is made');
  await new Promise((resolve) => setTimeout(resolve, 20));
  // The hub reads the early port only after the identity question was answered (a busy hub).
  const hubSide = made[0].hubSide;
  const read = hubSide.onmessage;
  const held = [];
  hubSide.onmessage = (event) => held.push(event);
  const locks = createLockManager(backend);
  const granted = locks.request('x', (lock) => lock.name);
  await until(() => made.length === 2, 'the window asked which hub serves the origin');
  await new Promise((resolve) => setTimeout(resolve, 20)); // the question's greeting: the same hub
  hubSide.onmessage = read;
  for (const event of held) read(event);
  assert.equal(await granted, 'x');
  assert.equal(backend.hubId, 'only');
  assert.equal(backend.stats.hubLosses, 0);
  assert.deepEqual(logged, []);
  assert.equal([...hub.connections].filter((conn) => conn.client !== null).length, 1, 'registered once, on the early port');
});
