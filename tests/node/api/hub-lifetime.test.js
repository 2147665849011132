// The hub's SharedWorker is asked for with `extendedLifetime` (Chromium 148+ keeps it running after
// its last page unloads: a reload of the only tab finds it running). A SharedWorker asked for with
// another setting than the running one's gets `error` and never connects (measured in Chromium 156,
// both ways). A page that meets a hub started the other way (by another version of this package)
// asks that way at once (context.js startHub). The browser case is
// tests/browser/hub-lifetime.spec.js; here a window scope of our own models the rule.
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
 * A window whose SharedWorker constructor connects to `origin.hub`, unless `origin.extended` (the
 * running hub's setting) differs from the one asked for: then `error` fires and nothing connects.
 * `origin.knowsOption: false`: a browser without the option (Firefox, WebKit).
 */
function windowOn(origin, ports) {
  const made = [];
  class SharedWorker {
    constructor(url, options) {
      const { port1, port2 } = new MessageChannel();
      // A browser that knows the option reads it (WebIDL); one that does not starts the hub either way.
      const asked = origin.knowsOption === false ? origin.extended : options?.extendedLifetime === true;
      const refused = origin.hub === null || asked !== origin.extended;
      made.push({ extended: asked, refused });
      this.listeners = [];
      this.port = port1;
      if (refused) {
        port2.close(); // what is posted to a refused worker goes nowhere
        setTimeout(() => { for (const listener of this.listeners) listener(new Event('error')); }, 1);
      } else {
        ports.push(port1, port2);
        origin.hub.connect(port2);
      }
    }

    addEventListener(type, listener) { if (type === 'error') this.listeners.push(listener); }
  }
  // The hub script itself: fine, or missing (diagnose.js fetches it after both ways failed).
  const fetch = async () => (origin.scriptMissing
    ? { ok: false, status: 404, statusText: 'Not Found', headers: new Map() }
    : { ok: true, status: 200, headers: new Map([['content-type', 'text/javascript']]) });
  return { scope: fakeWindow(SharedWorker, { fetch }).scope, made };
}

async function startHub(t, hubId) {
  const hub = new Hub(await createLocalEngine(), { hubId, log: () => {} });
  t.after(() => hub.stop());
  return hub;
}

function portsClosedAfter(t) {
  const ports = [];
  t.after(() => { for (const port of ports) port.close(); });
  return ports;
}

test('a window asks for the hub with extendedLifetime, and is served by a hub started that way', async (t) => {
  const origin = { hub: await startHub(t, 'only'), extended: true };
  const { scope, made } = windowOn(origin, portsClosedAfter(t));
  const locks = createLockManager(createContextBackend({ hubUrl: '/weblocks/weblocks-hub.js', scope }));
  assert.equal(await locks.request('x', (lock) => lock.name), 'x');
  assert.deepEqual(made, [{ extended: true, refused: false }]);
});

for (const when of ['after', 'before']) {
  test(`a window whose first request comes ${when} its early port was refused is served by a hub started without extendedLifetime`, async (t) => {
    const origin = { hub: await startHub(t, 'plain'), extended: false };
    const { scope, made } = windowOn(origin, portsClosedAfter(t));
    const backend = createContextBackend({ hubUrl: '/weblocks/weblocks-hub.js', scope });
    const locks = createLockManager(backend);
    let granted;
    if (when === 'before') granted = locks.request('x', (lock) => lock.name);
    await until(() => made.length >= 1, 'the early port is made');
    await new Promise((resolve) => setTimeout(resolve, 10)); // its error has fired
    if (when === 'after') {
      assert.deepEqual(made.map((m) => m.extended), [true, false], 'the early port made again the other way, before any request');
      granted = locks.request('x', (lock) => lock.name);
    }
    assert.equal(await granted, 'x');
    assert.equal(backend.hubId, 'plain');
    assert.deepEqual(made, [{ extended: true, refused: true }, { extended: false, refused: false }]);
    assert.equal(backend.failure, null);
  });
}

test('after a hub loss, a window reconnects at once to a successor started the other way, and asks that way from then on', async (t) => {
  const origin = { hub: await startHub(t, 'first'), extended: false };
  const { scope, made } = windowOn(origin, portsClosedAfter(t));
  t.mock.timers.enable({ apis: ['Date'], now: Date.now() });
  const backend = createContextBackend({ hubUrl: '/weblocks/weblocks-hub.js', scope });
  const locks = createLockManager(backend);
  assert.equal(await locks.request('x', (lock) => lock.name), 'x');
  assert.equal(backend.hubId, 'first');
  // Later (the other way's refusal is not recent): the hub dies, and a page asking with
  // extendedLifetime starts the next one.
  t.mock.timers.tick(10_000);
  origin.hub.stop();
  origin.hub = await startHub(t, 'second');
  origin.extended = true;
  const logged = [];
  backend.log = (level, text) => logged.push(text);
  backend.hubLost(); // as the liveness checks find it
  assert.equal(await locks.request('y', (lock) => lock.name), 'y');
  assert.equal(backend.hubId, 'second');
  assert.deepEqual(made.slice(2), [{ extended: false, refused: true }, { extended: true, refused: false }], 'refused once, then at once the other way');
  assert.equal(logged.length, 1, `one hub loss told, no timeouts: ${logged.join('; ')}`);
  assert.equal(backend.stats.hubLosses, 1);
});

test('a hub script refused both ways fails every request with the deployment error, after one try each way', async (t) => {
  const origin = { hub: null, extended: true, scriptMissing: true };
  const { scope, made } = windowOn(origin, portsClosedAfter(t));
  const locks = createLockManager(createContextBackend({ hubUrl: '/weblocks/weblocks-hub.js', scope }));
  await assert.rejects(locks.request('x', () => {}), (error) => error.name === 'NotSupportedError'
    && /weblocks-hub\.js could not be loaded \(it answered 404 Not Found\)/.test(error.message));
  assert.deepEqual(made, [{ extended: true, refused: true }, { extended: false, refused: true }]);
});

test('a hub script that loads but is refused both ways (the browser allows no SharedWorker here) is the platform\'s refusal, after one try each way', async (t) => {
  const origin = { hub: null, extended: true };
  const { scope, made } = windowOn(origin, portsClosedAfter(t));
  const locks = createLockManager(createContextBackend({ hubUrl: '/weblocks/weblocks-hub.js', scope, requireHub: true }));
  await assert.rejects(locks.request('x', () => {}), (error) => error.name === 'NotSupportedError'
    && /the browser refused to start the lock hub \/weblocks\/weblocks-hub\.js in this context/.test(error.message));
  assert.deepEqual(made, [{ extended: true, refused: true }, { extended: false, refused: true }]);
});

test('in a browser that does not know the option, a hub script that is missing is diagnosed after one try', async (t) => {
  const origin = { hub: null, extended: true, scriptMissing: true, knowsOption: false };
  const { scope, made } = windowOn(origin, portsClosedAfter(t));
  const locks = createLockManager(createContextBackend({ hubUrl: '/weblocks/weblocks-hub.js', scope }));
  await assert.rejects(locks.request('x', () => {}), (error) => error.name === 'NotSupportedError' && /answered 404 Not Found/.test(error.message));
  assert.equal(made.length, 1);
});
