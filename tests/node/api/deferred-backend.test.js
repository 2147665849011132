// DeferredBackend (js/api/local-backend.js) made with a function: its backend is made on the first
// request or query (the machine lock space's code loads only then: js/node/thread-locks.js), and
// what is asked meanwhile waits for it, in order.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createLocalEngine } from '../../../js/engine/index.js';
import { createLockManager, createEngineBackend, DeferredBackend } from '../../../js/api/index.js';

/** A DeferredBackend whose backend is made by `make` once the test calls open(); counts the makes. */
function gated(make) {
  let open;
  const gate = new Promise((resolve) => { open = resolve; });
  const made = { count: 0 };
  const backend = new DeferredBackend('deferred', () => {
    made.count++;
    return gate.then(make);
  });
  return { backend, made, open };
}

test('nothing is made before the first request; requests made meanwhile are served in order once it is', async () => {
  const engine = await createLocalEngine();
  const { backend, made, open } = gated(() => createEngineBackend(engine, 'deferred'));
  const locks = createLockManager(backend);
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(made.count, 0, 'a LockManager alone makes nothing');
  const order = [];
  const first = locks.request('x', async () => { order.push('first'); });
  const shared = locks.request('x', { mode: 'shared' }, async () => { order.push('shared'); });
  const none = locks.request('x', { ifAvailable: true }, async (lock) => { order.push(`ifAvailable ${lock}`); });
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(made.count, 1, 'made once, on the first request');
  const state = locks.query();
  open();
  await Promise.all([first, shared, none]);
  assert.deepEqual(order, ['first', 'ifAvailable null', 'shared']);
  assert.deepEqual((await state).held.map((info) => info.name), ['x']);
  assert.equal(made.count, 1);
  assert.equal(await locks.request('y', () => 'after'), 'after', 'later requests go straight to it');
});

test('a request aborted while the backend is being made never reaches it', async () => {
  const engine = await createLocalEngine();
  const { backend, open } = gated(() => createEngineBackend(engine, 'deferred'));
  const locks = createLockManager(backend);
  const controller = new AbortController();
  let called = false;
  const aborted = locks.request('x', { signal: controller.signal }, () => { called = true; });
  controller.abort();
  await assert.rejects(aborted, { name: 'AbortError' });
  const kept = locks.request('x', () => 'kept');
  open();
  assert.equal(await kept, 'kept');
  assert.equal(called, false);
  assert.deepEqual(await locks.query(), { held: [], pending: [] });
});

test('a backend that cannot be made rejects every request and query with why', async () => {
  const failure = new Error('cannot load');
  const locks = createLockManager(new DeferredBackend('deferred', () => Promise.reject(failure)));
  await assert.rejects(locks.request('x', () => {}), failure);
  await assert.rejects(locks.request('y', () => {}), failure);
  await assert.rejects(locks.query(), failure);
});

test('what the backend says of a request made while it was being made reaches the lock: its fencing token, why it was lost', async () => {
  let lose = null;
  const remote = {
    request(name, mode, waitMode, listener) {
      queueMicrotask(() => listener.granted(41, { fencingToken: 7 }));
      lose = () => listener.stolen(41, 'lost: the lock space declared this client gone');
      return 41;
    },
    release() {},
    abort: async () => false,
    query: async () => ({ held: [], pending: [] }),
  };
  const { backend, open } = gated(() => remote);
  const locks = createLockManager(backend);
  let token = null;
  const held = locks.request('x', (lock) => {
    token = lock.fencingToken;
    lose();
    return new Promise(() => {});
  });
  open();
  await assert.rejects(held, { name: 'AbortError', message: 'lost: the lock space declared this client gone' });
  assert.equal(token, 7);
});
