// Exhaustion: requests, names, clients and huge names until the engine's memory cannot grow.
// Every failure must be a clean EngineError NO_MEMORY that changed nothing (same snapshot, same
// stats, no events to anyone), and service must resume once memory is freed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as api from '../../../js/engine/index.js';

const { MODE, WAIT, STATUS } = api;
const PAGE = 65536;

// An engine whose memory may grow to only `pages` wasm pages (the binding takes 2 per attach).
async function smallEngine(pages) {
  const module = await api.compileEngine({ shared: false });
  const memory = new WebAssembly.Memory({ initial: 4, maximum: pages });
  return api.attachEngine({ module, memory });
}

// What is cheap to read at every step (a snapshot larger than all free memory fails with
// NO_MEMORY at exhaustion; snapshots are compared after frees).
function stateOf(engine, clients) {
  return { stats: engine.stats(), events: clients.map((c) => engine.takeEvents(c)) };
}

// Runs fn until it throws; asserts the throw is a NO_MEMORY that changed nothing. Returns how many calls succeeded.
function fillUntilNoMemory(engine, clients, fn, limit = 1e6) {
  for (let i = 0; i < limit; i++) {
    const before = stateOf(engine, clients);
    try {
      fn(i);
    } catch (error) {
      assert.ok(error instanceof api.EngineError, `a clean engine error, not ${error}`);
      assert.equal(error.code, 'NO_MEMORY');
      assert.deepEqual(stateOf(engine, clients), before, 'a failed call changed nothing');
      return i;
    }
  }
  assert.fail(`memory never ran out after ${limit} calls`);
}

test('requests on new names until memory cannot grow fail with NO_MEMORY and disturb nobody', async () => {
  const engine = await smallEngine(4 + 2 + 8);
  const bystander = engine.openClient('bystander');
  const filler = engine.openClient('filler');
  const kept = engine.request(bystander, 'kept', MODE.exclusive, WAIT.wait);
  const waiting = engine.request(filler, 'kept', MODE.exclusive, WAIT.wait);
  assert.equal(waiting.status, STATUS.queued);
  const ids = [];
  const count = fillUntilNoMemory(engine, [bystander, filler], (i) => ids.push(engine.request(filler, `name-${i}`, MODE.exclusive, WAIT.wait).id));
  assert.ok(count > 100, `${count} requests fit`);
  assert.equal(engine.stats().memoryBytes <= 8 * PAGE, true);

  // The bystander's lock and the queued request are intact: releasing hands it over. (Most locks
  // are released first: at the maximum, a snapshot has only the memory released locks freed.)
  const released = ids.splice(0, ids.length - 100);
  for (const id of released) assert.equal(engine.release(filler, id), true);
  const { held, pending } = engine.snapshot();
  assert.deepEqual(held.map((l) => `${l.clientId}:${l.name}`), ['bystander:kept', ...ids.map((_, i) => `filler:name-${i + released.length}`)]);
  assert.deepEqual(pending, [{ name: 'kept', mode: 'exclusive', clientId: 'filler' }]);
  assert.equal(engine.release(bystander, kept.id), true);
  assert.deepEqual(engine.takeEvents(filler), [{ type: api.EVENT.granted, id: waiting.id }]);

  // Service resumes once memory is freed: the bystander, which kept its lock all along, takes
  // about as many new names as the filler released (not all: the filler keeps 100 names and its
  // inbox room for them). Its event inbox grows a 256-byte segment at a time, which the freed and
  // merged pieces hold; an inbox in one block that doubled stopped at 512 of 923 (docs/reliability.md,
  // Finding 4). Once every client has closed, the engine takes exactly as many requests as at first.
  let again = 0;
  try {
    for (; again < released.length; again++) assert.equal(engine.request(bystander, `again-${again}`, MODE.shared, WAIT.wait).status, STATUS.granted);
  } catch (error) {
    assert.equal(error.code, 'NO_MEMORY');
  }
  assert.ok(again >= 0.9 * released.length, `${again} of ${released.length} freed entries could be used again`);
  engine.closeClient(filler);
  engine.closeClient(bystander);
  assert.deepEqual(engine.snapshot(), { held: [], pending: [] });
  assert.equal(engine.stats().entries, 0);
  const fresh = engine.openClient('fresh');
  const refill = fillUntilNoMemory(engine, [fresh], (i) => engine.request(fresh, `name-${i}`, MODE.exclusive, WAIT.wait));
  assert.ok(refill >= count, `the whole capacity is back: ${refill} requests fit again, ${count} at first`);
});

test('queued requests on one name until memory runs out keep their order and all get granted after', async () => {
  const engine = await smallEngine(4 + 2 + 8);
  const holder = engine.openClient('holder');
  const waiter = engine.openClient('waiter');
  const first = engine.request(holder, 'one', MODE.exclusive, WAIT.wait);
  const queued = [];
  const count = fillUntilNoMemory(engine, [holder, waiter], () => queued.push(engine.request(waiter, 'one', MODE.shared, WAIT.wait).id));
  assert.ok(count > 100, `${count} requests queued`);
  assert.equal(engine.abort(waiter, queued.pop()), true, 'an abort frees memory');
  assert.equal(engine.stats().entries, 1 + count - 1);
  engine.release(holder, first.id);
  const granted = engine.takeEvents(waiter).map((e) => e.id);
  assert.deepEqual(granted, queued, 'every queued shared request is granted, in order');
  assert.equal(engine.request(holder, 'one', MODE.exclusive, WAIT.noWait).status, STATUS.notAvailable);
  engine.closeClient(waiter);
  assert.equal(engine.request(holder, 'one', MODE.exclusive, WAIT.noWait).status, STATUS.granted);
});

test('opening clients until memory runs out fails cleanly, and closing some lets new ones open', async () => {
  const engine = await smallEngine(4 + 2 + 8);
  const clients = [];
  const count = fillUntilNoMemory(engine, [], (i) => clients.push(engine.openClient(`client-${i}-${'c'.repeat(64)}`, i % 5)));
  assert.ok(count > 100, `${count} clients opened`);
  assert.equal(engine.stats().clients, count);
  const closed = engine.closeClientsOfOwner(3);
  assert.ok(closed > 0);
  for (let i = 0; i < closed; i++) engine.openClient(`client-new-${i}-${'c'.repeat(64)}`);
  assert.equal(engine.stats().clients, count);
});

test('a name larger than all memory fails with NO_MEMORY; the same client then works normally', async () => {
  const engine = await smallEngine(4 + 2 + 8);
  const a = engine.openClient('A');
  const b = engine.openClient('B');
  const held = engine.request(b, 'x', MODE.exclusive, WAIT.wait);
  const before = { snapshot: engine.snapshot(), ...stateOf(engine, [a, b]) };
  assert.throws(() => engine.request(a, 'y'.repeat(1 << 20), MODE.exclusive, WAIT.wait), { code: 'NO_MEMORY' });
  assert.deepEqual({ snapshot: engine.snapshot(), ...stateOf(engine, [a, b]) }, before);
  assert.equal(engine.request(a, 'x', MODE.exclusive, WAIT.wait).status, STATUS.queued);
  assert.equal(engine.release(b, held.id), true);
  assert.equal(engine.takeEvents(a).length, 1);
});

test('a name bigger than the engine\'s memory cap fails with NO_MEMORY; once the cap is lifted it is held and reported intact', async () => {
  const engine = await api.createLocalEngine();
  const a = engine.openClient('A');
  engine.setMemoryLimit(engine.stats().memoryBytes);
  const huge = `${'\uD800'}${'h'.repeat((1 << 21) - 2)}${'\uDFFF'}`;   // 2M code units, lone surrogates at both ends
  assert.throws(() => engine.request(a, huge, MODE.exclusive, WAIT.wait), { code: 'NO_MEMORY' });
  assert.deepEqual(engine.snapshot(), { held: [], pending: [] });
  engine.setMemoryLimit(0);
  const granted = engine.request(a, huge, MODE.exclusive, WAIT.wait);
  assert.equal(granted.status, STATUS.granted);
  const [lock] = engine.snapshot().held;
  assert.equal(lock.name.length, huge.length);
  assert.ok(lock.name === huge, 'the name comes back unchanged');
  assert.equal(engine.request(a, huge, MODE.exclusive, WAIT.noWait).status, STATUS.notAvailable);
  assert.equal(engine.release(a, granted.id), true);
  assert.equal(engine.stats().names, 0);
});

test('a snapshot larger than the scratch page is taken from the memory released locks freed, at the maximum; one larger than all free memory fails cleanly', async () => {
  const engine = await smallEngine(4 + 2 + 8);
  const client = engine.openClient('client');
  const other = engine.openClient('other');
  const long = 'x'.repeat(1000);
  const ids = [];
  fillUntilNoMemory(engine, [client, other], (i) => ids.push(engine.request(client, `${long}-${i}`, MODE.exclusive, WAIT.wait).id));
  // The engine grows in chunks of 4 pages: what is left below the maximum is taken by others
  // (another instance's stack and scratch, say).
  engine.memory.grow(14 - engine.memory.buffer.byteLength / PAGE);
  const waiting = engine.request(other, `${long}-0`, MODE.exclusive, WAIT.wait);

  // Every lock held: the snapshot (about 2 KiB a lock) is larger than all free memory.
  const before = stateOf(engine, [client, other]);
  assert.throws(() => engine.snapshot(), (error) => error instanceof api.EngineError && error.code === 'NO_MEMORY');
  assert.deepEqual(stateOf(engine, [client, other]), before, 'the failed snapshot changed nothing');

  // Every other lock released: what is left is still larger than the 64 KiB scratch page, and
  // no freed block alone is that large.
  const kept = [];
  ids.forEach((id, i) => {
    if (i % 2 === 0) kept.push(i);
    else assert.equal(engine.release(client, id), true);
  });
  const { held, pending } = engine.snapshot();
  assert.deepEqual(held.map((l) => l.name), kept.map((i) => `${long}-${i}`), 'every remaining lock, in grant order');
  assert.ok(held.every((l) => l.clientId === 'client' && l.mode === 'exclusive'));
  assert.deepEqual(pending, [{ name: `${long}-0`, mode: 'exclusive', clientId: 'other' }]);
  assert.ok(held.length * (12 + 2 * (long.length + 4 + 'client'.length)) > PAGE, `${held.length} locks: a snapshot over 64 KiB`);
  assert.equal(engine.memory.buffer.byteLength, 14 * PAGE);

  // The snapshot's memory went back to the engine: as many new locks fit as before it.
  assert.deepEqual(engine.snapshot(), { held, pending }, 'and again');
  engine.release(client, ids[0]);
  assert.deepEqual(engine.takeEvents(other), [{ type: api.EVENT.granted, id: waiting.id }]);
});
