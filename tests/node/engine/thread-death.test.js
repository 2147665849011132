// A thread that dies while holding a lock: the host closes the clients of that thread (by owner
// tag) and the waiters in other threads are granted, woken through their doorbells.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Worker } from 'node:worker_threads';
import { once } from 'node:events';
import { compileEngine, createEngineMemory, attachEngine, MODE, WAIT, STATUS, EVENT } from '../../../js/engine/index.js';

test('closing the clients of a terminated thread releases its lock and wakes the waiter', async () => {
  const module = await compileEngine({ shared: true });
  const memory = createEngineMemory({ shared: true });
  const engine = await attachEngine({ module, memory });
  const worker = new Worker(new URL('./fixtures/holder-worker.js', import.meta.url), {
    workerData: { module, memory, name: 'orphan' },
  });
  const [{ status, threadId }] = await once(worker, 'message');
  assert.equal(status, STATUS.granted);

  const waiter = engine.openClient('waiter');
  const pending = engine.request(waiter, 'orphan', MODE.exclusive, WAIT.wait);
  assert.equal(pending.status, STATUS.queued);
  const bell = engine.doorbell(waiter);
  const woken = Atomics.waitAsync(bell.int32, bell.index, Atomics.load(bell.int32, bell.index));
  assert.equal(woken.async, true);

  await worker.terminate();
  assert.deepEqual(engine.snapshot().held, [{ name: 'orphan', mode: 'exclusive', clientId: `holder-${threadId}` }],
    'the engine cannot know a thread died: its host tells it');
  assert.equal(engine.closeClientsOfOwner(threadId), 1);
  assert.equal(await woken.value, 'ok');
  assert.deepEqual(engine.takeEvents(waiter), [{ type: EVENT.granted, id: pending.id }]);
  assert.deepEqual(engine.snapshot().held, [{ name: 'orphan', mode: 'exclusive', clientId: 'waiter' }]);
});
