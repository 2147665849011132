// The engine-backed backend under conditions the behavioural suite cannot set up from script.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createLocalEngine } from '../../../js/engine/index.js';
import { createLockManager, createEngineBackend } from '../../../js/api/index.js';
import { requestHandle } from '../suite/handle.js';

test('a request the engine has no room for rejects with a QuotaExceededError and disturbs no other lock', async () => {
  const engine = await createLocalEngine();
  const locks = createLockManager(createEngineBackend(engine, 'one'));
  const other = createLockManager(createEngineBackend(engine, 'other'));
  let release;
  const held = other.request('kept', () => new Promise((resolve) => { release = resolve; }));
  engine.setMemoryLimit(engine.stats().memoryBytes + 16 * 1024);
  const results = [];
  let failure = null;
  for (let i = 0; i < 5000 && failure === null; i++) {
    const promise = locks.request(`name-${i}-${'x'.repeat(200)}`, () => new Promise(() => {}));
    promise.catch((error) => { failure = error; });
    results.push(promise);
    await Promise.resolve();
    await Promise.resolve();
  }
  assert.ok(failure instanceof DOMException, `a DOMException, got ${failure}`);
  assert.equal(failure.name, 'QuotaExceededError');
  const state = await other.query();
  assert.deepEqual(state.held.filter((info) => info.clientId === 'other').map((info) => info.name), ['kept']);
  release('still fine');
  assert.equal(await held, 'still fine');
});

test('a lock stolen before its immediate grant reached the holder still rejects the holder with an AbortError (4.1 step 2.4)', async () => {
  // The holder's drain is scheduled before its grant is delivered: a lock it waits for on another
  // name is released first, then it is granted `x` at once, then `x` is stolen, all in one task.
  const engine = await createLocalEngine();
  const holder = createLockManager(createEngineBackend(engine, 'holder'));
  const thief = createLockManager(createEngineBackend(engine, 'thief'));
  const other = requestHandle(thief, 'other');
  await other.granted;
  const waited = holder.request('other', () => 'waited');
  await Promise.resolve();
  const events = [];
  other.release();
  await Promise.resolve(); // the thief's release has run: the holder's drain is scheduled
  const stolenOne = holder.request('x', () => { events.push('holder called back'); return 'holder finished'; });
  const steal = thief.request('x', { steal: true }, () => { events.push('thief called back'); return 'thief finished'; });
  const outcome = await stolenOne.then((value) => `fulfilled with ${value}`, (error) => error.name);
  assert.equal(outcome, 'AbortError');
  assert.equal(await steal, 'thief finished');
  assert.equal(await waited, 'waited');
  assert.equal((await other.settled).ok, true);
  assert.deepEqual(events.sort(), ['holder called back', 'thief called back']);
  const state = await holder.query();
  assert.deepEqual(state.held.concat(state.pending), []);
});

test('a release the engine cannot take yet (STUCK: a dead agent holds its mutex) settles the request only once the lock is released (4.1 step 2.4)', async () => {
  const engine = await createLocalEngine();
  const locks = createLockManager(createEngineBackend(engine));
  const other = createLockManager(createEngineBackend(engine));
  const release = engine.release;
  let refused = 0;
  engine.release = function stuckOnce(...args) {
    if (refused++ === 0) throw Object.assign(new Error('the engine mutex has been held for over 2000 ms'), { code: 'STUCK' });
    return release.apply(this, args);
  };
  assert.equal(await locks.request('x', () => 'done'), 'done');
  assert.equal(refused, 2, 'the release was tried again before the request settled');
  assert.equal(await other.request('x', { ifAvailable: true }, (lock) => lock !== null), true, 'x is free once the request has settled');
});
