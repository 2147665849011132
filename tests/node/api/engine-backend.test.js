// The engine-backed backend under conditions the behavioural suite cannot set up from script.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createLocalEngine } from '../../../js/engine/index.js';
import { createLockManager, createEngineBackend } from '../../../js/api/index.js';

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
