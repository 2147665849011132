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

// What is cheap to read at every step (a snapshot needs scratch memory of its own size, so at
// exhaustion a large one may itself fail with NO_MEMORY; snapshots are compared after frees).
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
  // are released first: a snapshot needs scratch memory as large as itself, and the engine keeps
  // the memory it freed for its own use, so a large snapshot cannot be taken at the maximum.)
  const released = ids.splice(0, ids.length - 100);
  for (const id of released) assert.equal(engine.release(filler, id), true);
  const { held, pending } = engine.snapshot();
  assert.deepEqual(held.map((l) => `${l.clientId}:${l.name}`), ['bystander:kept', ...ids.map((_, i) => `filler:name-${i + released.length}`)]);
  assert.deepEqual(pending, [{ name: 'kept', mode: 'exclusive', clientId: 'filler' }]);
  assert.equal(engine.release(bystander, kept.id), true);
  assert.deepEqual(engine.takeEvents(filler), [{ type: api.EVENT.granted, id: waiting.id }]);

  // Service resumes once memory is freed: new requests are granted again (not one per freed
  // entry: the name table may need a larger block than the freed pieces, see docs/reliability.md),
  // and once every client has closed, the engine takes exactly as many requests as at first.
  let again = 0;
  try {
    for (; again < released.length; again++) assert.equal(engine.request(bystander, `again-${again}`, MODE.shared, WAIT.wait).status, STATUS.granted);
  } catch (error) {
    assert.equal(error.code, 'NO_MEMORY');
  }
  assert.ok(again >= released.length / 2, `${again} of ${released.length} freed entries could be used again`);
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
