// The shared-memory engine used by several worker_threads at once: each thread attaches its
// own instance (own stack) to one memory, and they all see one lock space.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Worker } from 'node:worker_threads';
import { compileEngine, createEngineMemory, attachEngine, MODE, WAIT, STATUS, EVENT } from '../../../js/engine/index.js';

const contender = new URL('./fixtures/contender-worker.js', import.meta.url);

// Waits (without blocking this thread) until int32[index] >= value. The workers being waited for
// keep this thread's event loop alive.
async function untilAtLeast(int32, index, value) {
  for (let now; (now = Atomics.load(int32, index)) < value;) {
    const wait = Atomics.waitAsync(int32, index, now);
    if (wait.async) await wait.value;
  }
}

function runWorker(workerData) {
  return new Promise((resolve, reject) => {
    const worker = new Worker(contender, { workerData });
    let message;
    worker.on('message', (m) => { message = m; });
    worker.on('error', reject);
    worker.on('exit', (code) => (code === 0 ? resolve(message) : reject(new Error(`worker exited with ${code}`))));
  });
}

test('three threads contending on one name never hold it together and lose no increment', async () => {
  const module = await compileEngine({ shared: true });
  const memory = createEngineMemory({ shared: true });
  const main = await attachEngine({ module, memory });
  const counterBuffer = new SharedArrayBuffer(32);
  const counter = new Int32Array(counterBuffer);
  const iterations = 300;
  // Hold the name until all three threads sleep on their doorbells: the contention is certain.
  const gate = main.openClient('gate');
  const gateLock = main.request(gate, 'counter', MODE.exclusive, WAIT.wait);
  const finished = Promise.all(['t1', 't2', 't3'].map((label) =>
    runWorker({ module, memory, counterBuffer, iterations, name: 'counter', label, threads: 3 })));
  await untilAtLeast(counter, 3, 3);
  assert.equal(main.snapshot().pending.length, 3, 'all three threads wait for the name');
  assert.equal(main.release(gate, gateLock.id), true);
  main.closeClient(gate);
  const results = await finished;

  assert.equal(counter[0], 3 * iterations, 'every increment made inside the lock survived');
  assert.equal(counter[2], 0, 'no two holders were ever inside at once');
  const stacks = new Set([main._out, ...results.map((r) => r.stack)]);
  assert.equal(stacks.size, 4, 'each instance has its own stack and scratch region');
  for (const { stack, stackPointer } of results) {
    // The stack page sits just below the scratch area (js/engine/layout.js: STACK_PAGES = 1).
    assert.ok(stackPointer <= stack && stackPointer > stack - 65536, `stack pointer ${stackPointer} is in its own page below ${stack}`);
  }
  assert.deepEqual(main.snapshot(), { held: [], pending: [] });
  assert.equal(main.stats().clients, 0, 'every worker closed its client');
});

test('a waiter in another thread is woken through its doorbell with Atomics.waitAsync', async () => {
  const module = await compileEngine({ shared: true });
  const memory = createEngineMemory({ shared: true });
  const engine = await attachEngine({ module, memory });
  const holder = engine.openClient('holder');
  const held = engine.request(holder, 'door', MODE.exclusive, WAIT.wait);
  assert.equal(held.status, STATUS.granted);

  const counterBuffer = new SharedArrayBuffer(32);
  const counter = new Int32Array(counterBuffer);
  const finished = runWorker({ module, memory, counterBuffer, iterations: 1, name: 'door', label: 'waiter' });

  // Release only once the worker sleeps in Atomics.waitAsync on its doorbell: only the doorbell can wake it.
  await untilAtLeast(counter, 3, 1);
  assert.deepEqual(engine.snapshot().pending, [{ name: 'door', mode: 'exclusive', clientId: 'waiter' }]);
  assert.equal(engine.release(holder, held.id), true);
  await finished;
  assert.equal(counter[0], 1);
});

test('a later attach joins the engine state instead of re-initializing it', async () => {
  const module = await compileEngine({ shared: true });
  const memory = createEngineMemory({ shared: true });
  const first = await attachEngine({ module, memory });
  const client = first.openClient('first');
  first.request(client, 'kept', MODE.shared, WAIT.wait);
  const second = await attachEngine({ module, memory });
  assert.deepEqual(second.snapshot().held, [{ name: 'kept', mode: 'shared', clientId: 'first' }]);
  const other = second.openClient('second');
  assert.equal(second.request(other, 'kept', MODE.exclusive, WAIT.noWait).status, STATUS.notAvailable);
  assert.equal(first.stats().clients, 2);
});

test('a stolen lock is reported to its holder on another instance of the same memory', async () => {
  const module = await compileEngine({ shared: true });
  const memory = createEngineMemory({ shared: true });
  const one = await attachEngine({ module, memory });
  const two = await attachEngine({ module, memory });
  const a = one.openClient('a');
  const b = two.openClient('b');
  const held = one.request(a, 'n', MODE.exclusive, WAIT.wait);
  const bell = one.doorbell(a);
  const seen = Atomics.load(bell.int32, bell.index);
  const wait = Atomics.waitAsync(bell.int32, bell.index, seen);
  assert.equal(two.request(b, 'n', MODE.exclusive, WAIT.preempt).status, STATUS.granted);
  assert.equal(await wait.value, 'ok');
  assert.deepEqual(one.takeEvents(a), [{ type: EVENT.stolen, id: held.id }]);
  assert.equal(one.release(a, held.id), false, 'a stolen lock is no longer held');
});
