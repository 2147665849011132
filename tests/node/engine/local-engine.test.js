// The JS binding over the ordinary-memory module: the contract of js/engine/index.js.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createLocalEngine, EngineError, MODE, WAIT, STATUS, EVENT } from '../../../js/engine/index.js';

const { exclusive, shared } = MODE;

test('an exclusive request on a free name is granted at once and a second one is queued', async () => {
  const engine = await createLocalEngine();
  const a = engine.openClient('a');
  const b = engine.openClient('b');
  const first = engine.request(a, 'n', exclusive, WAIT.wait);
  const second = engine.request(b, 'n', exclusive, WAIT.wait);
  assert.equal(first.status, STATUS.granted);
  assert.equal(second.status, STATUS.queued);
  assert.notEqual(first.id, second.id);
  assert.deepEqual(engine.takeEvents(b), [], 'nothing is granted yet');
  assert.equal(engine.release(a, first.id), true);
  assert.deepEqual(engine.takeEvents(b), [{ type: EVENT.granted, id: second.id }]);
  assert.deepEqual(engine.takeEvents(b), [], 'taking events empties the inbox');
});

test('a no-wait request that is not grantable reports not available and leaves the queue untouched', async () => {
  const engine = await createLocalEngine();
  const a = engine.openClient('a');
  const b = engine.openClient('b');
  engine.request(a, 'n', shared, WAIT.wait);
  const before = engine.snapshot();
  assert.deepEqual(engine.request(b, 'n', exclusive, WAIT.noWait), { status: STATUS.notAvailable, id: 0 });
  assert.deepEqual(engine.snapshot(), before);
  assert.equal(engine.request(b, 'n', shared, WAIT.noWait).status, STATUS.granted, 'shared joins shared');
});

test('a steal releases every holder of the name, tells each one, and is granted first', async () => {
  const engine = await createLocalEngine();
  const [a, b, c] = ['a', 'b', 'c'].map((id) => engine.openClient(id));
  const heldA = engine.request(a, 'n', shared, WAIT.wait);
  const heldB = engine.request(b, 'n', shared, WAIT.wait);
  const waiting = engine.request(a, 'n', exclusive, WAIT.wait);
  const steal = engine.request(c, 'n', exclusive, WAIT.preempt);
  assert.equal(steal.status, STATUS.granted);
  assert.deepEqual(engine.takeEvents(a), [{ type: EVENT.stolen, id: heldA.id }]);
  assert.deepEqual(engine.takeEvents(b), [{ type: EVENT.stolen, id: heldB.id }]);
  assert.deepEqual(engine.snapshot(), {
    held: [{ name: 'n', mode: 'exclusive', clientId: 'c' }],
    pending: [{ name: 'n', mode: 'exclusive', clientId: 'a' }],
  });
  assert.equal(engine.release(c, steal.id), true);
  assert.deepEqual(engine.takeEvents(a), [{ type: EVENT.granted, id: waiting.id }]);
});

test('abort removes a pending request and does nothing once it was granted', async () => {
  const engine = await createLocalEngine();
  const a = engine.openClient('a');
  const b = engine.openClient('b');
  const held = engine.request(a, 'n', exclusive, WAIT.wait);
  const pending = engine.request(b, 'n', exclusive, WAIT.wait);
  assert.equal(engine.abort(b, pending.id), true);
  assert.equal(engine.abort(b, pending.id), false, 'already gone');
  assert.equal(engine.abort(a, held.id), false, 'already granted');
  assert.deepEqual(engine.snapshot().held, [{ name: 'n', mode: 'exclusive', clientId: 'a' }]);
});

test('a client cannot release or abort another client\'s ids', async () => {
  const engine = await createLocalEngine();
  const a = engine.openClient('a');
  const b = engine.openClient('b');
  const held = engine.request(a, 'n', exclusive, WAIT.wait);
  const pending = engine.request(a, 'n', exclusive, WAIT.wait);
  assert.equal(engine.release(b, held.id), false);
  assert.equal(engine.abort(b, pending.id), false);
  assert.equal(engine.snapshot().held.length + engine.snapshot().pending.length, 2);
});

test('closing a client releases its locks, drops its requests and grants what waited', async () => {
  const engine = await createLocalEngine();
  const a = engine.openClient('a');
  const b = engine.openClient('b');
  engine.request(a, 'x', exclusive, WAIT.wait);
  engine.request(a, 'y', exclusive, WAIT.wait);
  const waitingB = engine.request(b, 'x', exclusive, WAIT.wait);
  engine.request(a, 'x', exclusive, WAIT.wait);
  engine.closeClient(a);
  assert.deepEqual(engine.takeEvents(b), [{ type: EVENT.granted, id: waitingB.id }]);
  assert.deepEqual(engine.snapshot(), { held: [{ name: 'x', mode: 'exclusive', clientId: 'b' }], pending: [] });
  assert.throws(() => engine.request(a, 'x', exclusive, WAIT.wait), (e) => e instanceof EngineError && e.code === 'BAD_CLIENT');
});

test('closing the clients of an owner tag closes exactly those', async () => {
  const engine = await createLocalEngine();
  const a = engine.openClient('a', 5);
  engine.openClient('b', 5);
  const c = engine.openClient('c', 6);
  engine.request(a, 'n', exclusive, WAIT.wait);
  assert.equal(engine.closeClientsOfOwner(5), 2);
  assert.equal(engine.stats().clients, 1);
  assert.equal(engine.request(c, 'n', exclusive, WAIT.noWait).status, STATUS.granted);
});

test('names are UTF-16 code unit sequences: lone surrogates, NUL, empty and 1 MB names all round-trip', async () => {
  const engine = await createLocalEngine();
  const a = engine.openClient('\udc00client\u0000');
  const huge = 'x'.repeat(1 << 20) + '\ud800';
  const names = ['', '\u0000', '\ud800', '\udfff\ud800', 'a\u0000b', '\ud83d\ude00', huge];
  for (const name of names) assert.equal(engine.request(a, name, exclusive, WAIT.wait).status, STATUS.granted);
  const held = engine.snapshot().held;
  assert.equal(held.length, names.length, 'all names are distinct resources');
  held.forEach((lock, i) => {
    assert.equal(lock.name, names[i]);
    assert.equal(lock.clientId, '\udc00client\u0000');
  });
  assert.equal(engine.request(a, '\ud800', exclusive, WAIT.noWait).status, STATUS.notAvailable, 'same units, same name');
  assert.equal(engine.request(a, '\ud800\u0000', exclusive, WAIT.noWait).status, STATUS.granted, 'a longer name is another name');
});

test('ids never repeat, even as slots are reused', async () => {
  const engine = await createLocalEngine();
  const a = engine.openClient('a');
  const seen = new Set();
  for (let i = 0; i < 5000; i++) {
    const { id } = engine.request(a, 'n', exclusive, WAIT.wait);
    assert.ok(Number.isSafeInteger(id) && id > 0);
    assert.ok(!seen.has(id), `id ${id} repeated`);
    seen.add(id);
    assert.equal(engine.release(a, id), true);
    assert.equal(engine.release(a, id), false, 'a released id is gone for good');
  }
});

test('bad arguments are rejected with a clear error and change nothing', async () => {
  const engine = await createLocalEngine();
  const a = engine.openClient('a');
  const code = (fn) => { try { fn(); } catch (e) { assert.ok(e instanceof EngineError); return e.code; } return 'no error'; };
  assert.equal(code(() => engine.request(a, 'n', shared, WAIT.preempt)), 'BAD_ARGUMENT', 'steal must be exclusive');
  assert.equal(code(() => engine.request(a, 'n', 7, WAIT.wait)), 'BAD_ARGUMENT');
  assert.equal(code(() => engine.request(a, 'n', exclusive, 9)), 'BAD_ARGUMENT');
  assert.equal(code(() => engine.request(12345, 'n', exclusive, WAIT.wait)), 'BAD_CLIENT');
  assert.equal(code(() => engine.release(0.5, 1)), 'BAD_CLIENT');
  assert.equal(engine.release(a, -1), false);
  assert.equal(engine.release(a, NaN), false);
  assert.deepEqual(engine.snapshot(), { held: [], pending: [] });
});

test('when memory cannot grow a request fails with NO_MEMORY and the state stays intact', async () => {
  const engine = await createLocalEngine();
  const a = engine.openClient('a');
  const b = engine.openClient('b');
  const held = engine.request(a, 'kept', exclusive, WAIT.wait);
  const waiting = engine.request(b, 'kept', exclusive, WAIT.wait);
  engine.setMemoryLimit(engine.stats().memoryBytes); // no more chunks
  const before = engine.snapshot();
  let failures = 0;
  for (let i = 0; i < 2000 && failures === 0; i++) {
    try {
      engine.request(a, `name-${i}-${'y'.repeat(2000)}`, shared, WAIT.wait);
    } catch (e) {
      assert.equal(e.code, 'NO_MEMORY');
      failures++;
    }
  }
  assert.equal(failures, 1, 'memory ran out');
  const after = engine.snapshot();
  assert.deepEqual(after.held.slice(0, 1), before.held);
  assert.deepEqual(after.pending, before.pending);
  assert.equal(engine.release(a, held.id), true, 'existing locks still work');
  assert.deepEqual(engine.takeEvents(b), [{ type: EVENT.granted, id: waiting.id }]);
  engine.setMemoryLimit(0);
  assert.equal(engine.request(a, 'after', exclusive, WAIT.wait).status, STATUS.granted);
});

test('names longer than the scratch page (written into a buffer in the engine) get ids that release them, queued and granted', async () => {
  const engine = await createLocalEngine();
  const a = engine.openClient('a');
  const b = engine.openClient('b');
  const name = '\ud800'.padEnd(200_000, 'n'); // 400 KB: more than the 64 KiB scratch page
  const held = engine.request(a, name, exclusive, WAIT.wait);
  assert.equal(held.status, STATUS.granted);
  const waiting = engine.request(b, name, exclusive, WAIT.wait);
  assert.equal(waiting.status, STATUS.queued);
  assert.equal(engine.request(b, name, exclusive, WAIT.noWait).status, STATUS.notAvailable);
  assert.deepEqual(engine.snapshot().held, [{ name, mode: 'exclusive', clientId: 'a' }]);
  assert.equal(engine.release(a, held.id), true, 'the id request() returned is the lock\'s');
  assert.deepEqual(engine.takeEvents(b), [{ type: EVENT.granted, id: waiting.id }]);
  assert.equal(engine.release(b, waiting.id), true);
  assert.deepEqual(engine.snapshot(), { held: [], pending: [] });
});
