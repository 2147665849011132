// A thread terminated while it is inside an engine call holds the engine mutex when it dies. The
// host's closeClientsOfOwner(threadId) must take the mutex over, undo the half-done call, close
// the thread's client, and leave every other client exactly as it was.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Worker } from 'node:worker_threads';
import { once } from 'node:events';
import { compileEngine, createEngineMemory, attachEngine, MODE, WAIT, STATUS } from '../../../js/engine/index.js';

const TRIALS = 20;

test('terminating a thread in the middle of engine calls never leaves the engine locked or inconsistent', async (t) => {
  const module = await compileEngine({ shared: true });
  let diedHoldingTheMutex = 0;
  for (let trial = 0; trial < TRIALS; trial++) {
    const memory = createEngineMemory({ shared: true });
    const engine = await attachEngine({ module, memory, ownerTag: 0 });
    const mine = engine.openClient('survivor');
    const held = engine.request(mine, 'kept', MODE.exclusive, WAIT.wait);
    const worker = new Worker(new URL('./fixtures/busy-worker.js', import.meta.url), { workerData: { module, memory } });
    const threadId = worker.threadId;
    await once(worker, 'message');
    await new Promise((resolve) => setTimeout(resolve, Math.random() * 4)); // a random moment of its loop
    await worker.terminate();

    const mutex = new Int32Array(memory.buffer, engine._engine, 1);
    if (Atomics.load(mutex, 0) !== 0) diedHoldingTheMutex++;
    assert.equal(engine.closeClientsOfOwner(threadId), 1, 'the dead thread had one client');
    assert.equal(Atomics.load(mutex, 0), 0, 'the engine mutex is free again');
    assert.deepEqual(engine.snapshot(), { held: [{ name: 'kept', mode: 'exclusive', clientId: 'survivor' }], pending: [] });
    assert.deepEqual(engine.stats().clients, 1);
    assert.equal(engine.request(mine, 'name-1', MODE.exclusive, WAIT.noWait).status, STATUS.granted, 'the dead thread\'s names are free');
    assert.equal(engine.release(mine, held.id), true);
  }
  t.diagnostic(`${diedHoldingTheMutex} of ${TRIALS} threads died inside an engine call, holding the engine mutex`);
});
