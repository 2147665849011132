// The reference model checked against outcomes worked out by hand from the spec text,
// so that the differential tester compares the engine with something known to be right.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SpecLockManager, checkInvariants } from '../../model/spec-model.mjs';

function setup(...clientIds) {
  const m = new SpecLockManager();
  return { m, handles: clientIds.map((id, i) => m.openAgent(id, i + 1)) };
}

test('an exclusive request waits for the holder and is granted when it releases (4.2, 4.4)', () => {
  const { m, handles: [a, b] } = setup('A', 'B');
  const first = m.request(a, 'x', 'exclusive', 'wait');
  const second = m.request(b, 'x', 'exclusive', 'wait');
  assert.equal(first.status, 'granted');
  assert.equal(second.status, 'queued');
  assert.deepEqual(m.takeEvents(b), []);
  assert.equal(m.release(a, first.id), true);
  assert.deepEqual(m.takeEvents(b), [{ type: 'granted', id: second.id }]);
});

test('shared requests are granted together but not ahead of an earlier exclusive request (2.5 step 7)', () => {
  const { m, handles: [a, b, c] } = setup('A', 'B', 'C');
  const s1 = m.request(a, 'x', 'shared', 'wait');
  const s2 = m.request(b, 'x', 'shared', 'wait');
  const e = m.request(c, 'x', 'exclusive', 'wait');
  const s3 = m.request(a, 'x', 'shared', 'wait');
  assert.deepEqual([s1.status, s2.status, e.status, s3.status], ['granted', 'granted', 'queued', 'queued']);
  m.release(a, s1.id);
  assert.deepEqual(m.takeEvents(c), []);
  m.release(b, s2.id);
  assert.deepEqual(m.takeEvents(c), [{ type: 'granted', id: e.id }]);
  m.release(c, e.id);
  assert.deepEqual(m.takeEvents(a), [{ type: 'granted', id: s3.id }]);
});

test('releasing an exclusive lock grants every shared request up to the next exclusive one', () => {
  const { m, handles: [a, b, c] } = setup('A', 'B', 'C');
  const e1 = m.request(a, 'x', 'exclusive', 'wait');
  const s1 = m.request(b, 'x', 'shared', 'wait');
  const s2 = m.request(c, 'x', 'shared', 'wait');
  const e2 = m.request(a, 'x', 'exclusive', 'wait');
  m.release(a, e1.id);
  assert.deepEqual(m.takeEvents(b), [{ type: 'granted', id: s1.id }]);
  assert.deepEqual(m.takeEvents(c), [{ type: 'granted', id: s2.id }]);
  assert.deepEqual(m.takeEvents(a), []);
  assert.deepEqual(m.snapshot().pending, [{ name: 'x', mode: 'exclusive', clientId: 'A' }]);
  assert.equal(e2.status, 'queued');
});

test('ifAvailable is refused while any request waits for the name, even a compatible one (4.1 step 2.5.1)', () => {
  const { m, handles: [a, b, c] } = setup('A', 'B', 'C');
  m.request(a, 'x', 'shared', 'wait');
  assert.equal(m.request(b, 'x', 'shared', 'no-wait').status, 'granted');
  m.request(c, 'x', 'exclusive', 'wait');
  const refused = m.request(b, 'x', 'shared', 'no-wait');
  assert.equal(refused.status, 'notAvailable');
  assert.equal(m.snapshot().pending.length, 1, 'a refused ifAvailable request never enters the queue');
  assert.equal(m.request(b, 'y', 'exclusive', 'no-wait').status, 'granted');
});

test('steal removes every holder of the name, tells each one, and is granted ahead of the queue (4.1 step 2.4)', () => {
  const { m, handles: [a, b, c] } = setup('A', 'B', 'C');
  const s1 = m.request(a, 'x', 'shared', 'wait');
  const s2 = m.request(b, 'x', 'shared', 'wait');
  const waiting = m.request(c, 'x', 'exclusive', 'wait');
  const other = m.request(c, 'y', 'exclusive', 'wait');
  const steal = m.request(c, 'x', 'exclusive', 'preempt');
  assert.equal(steal.status, 'granted');
  assert.deepEqual(m.takeEvents(a), [{ type: 'stolen', id: s1.id }]);
  assert.deepEqual(m.takeEvents(b), [{ type: 'stolen', id: s2.id }]);
  assert.deepEqual(m.snapshot(), {
    held: [{ name: 'y', mode: 'exclusive', clientId: 'C' }, { name: 'x', mode: 'exclusive', clientId: 'C' }],
    pending: [{ name: 'x', mode: 'exclusive', clientId: 'C' }],
  });
  assert.equal(m.release(a, s1.id), false, 'a stolen lock is no longer held');
  assert.equal(m.release(c, steal.id), true);
  assert.deepEqual(m.takeEvents(c), [{ type: 'granted', id: waiting.id }]);
  assert.equal(other.status, 'granted');
});

test('aborting a pending request removes it and lets the next one in; a granted one cannot be aborted (4.3)', () => {
  const { m, handles: [a, b, c] } = setup('A', 'B', 'C');
  const held = m.request(a, 'x', 'shared', 'wait');
  const e = m.request(b, 'x', 'exclusive', 'wait');
  const s = m.request(c, 'x', 'shared', 'wait');
  assert.equal(m.abort(b, e.id), true);
  assert.deepEqual(m.takeEvents(c), [{ type: 'granted', id: s.id }]);
  assert.equal(m.abort(a, held.id), false);
  assert.equal(m.abort(b, e.id), false, 'already removed');
});

test('a client cannot release or abort another client\'s lock or request', () => {
  const { m, handles: [a, b] } = setup('A', 'B');
  const held = m.request(a, 'x', 'exclusive', 'wait');
  const queued = m.request(a, 'x', 'exclusive', 'wait');
  assert.equal(m.release(b, held.id), false);
  assert.equal(m.abort(b, queued.id), false);
  assert.equal(m.snapshot().held.length, 1);
  assert.equal(m.snapshot().pending.length, 1);
});

test('agent termination aborts its requests, releases its locks and grants what that unblocks (2.6)', () => {
  const { m, handles: [a, b, c] } = setup('A', 'B', 'C');
  m.request(a, 'x', 'exclusive', 'wait');
  const bx = m.request(b, 'x', 'shared', 'wait');
  m.request(b, 'y', 'shared', 'wait');
  const ay = m.request(a, 'y', 'exclusive', 'wait');
  const cy = m.request(c, 'y', 'shared', 'wait');
  assert.equal(ay.status, 'queued');
  assert.equal(cy.status, 'queued');
  m.closeAgent(a);
  assert.deepEqual(m.takeEvents(b), [{ type: 'granted', id: bx.id }]);
  assert.deepEqual(m.takeEvents(c), [{ type: 'granted', id: cy.id }]);
  assert.deepEqual(m.snapshot().pending, []);
  assert.ok(m.snapshot().held.every((l) => l.clientId !== 'A'));
  assert.throws(() => m.request(a, 'x', 'exclusive', 'wait'), { code: 'BAD_CLIENT' });
});

test('closing every client of an owner tag counts them and leaves the others (2.6 per agent)', () => {
  const m = new SpecLockManager();
  const a = m.openAgent('A', 7);
  const b = m.openAgent('B', 7);
  const c = m.openAgent('C', 8);
  m.request(a, 'x', 'exclusive', 'wait');
  m.request(b, 'x', 'exclusive', 'wait');
  const cx = m.request(c, 'x', 'exclusive', 'wait');
  assert.equal(m.closeAgentsOfOwner(7), 2);
  assert.deepEqual(m.takeEvents(c), [{ type: 'granted', id: cx.id }]);
});

test('a snapshot lists pending requests queue by queue in name-creation order, held locks in grant order (4.5)', () => {
  const { m, handles: [a, b] } = setup('A', 'B');
  m.request(a, 'q', 'exclusive', 'wait');
  m.request(a, 'p', 'exclusive', 'wait');
  m.request(b, 'p', 'shared', 'wait');
  m.request(b, 'q', 'shared', 'wait');
  assert.deepEqual(m.snapshot(), {
    held: [{ name: 'q', mode: 'exclusive', clientId: 'A' }, { name: 'p', mode: 'exclusive', clientId: 'A' }],
    pending: [{ name: 'q', mode: 'shared', clientId: 'B' }, { name: 'p', mode: 'shared', clientId: 'B' }],
  });
});

test('the invariant checker flags overlapping holders and a queue that waits for nothing', () => {
  assert.deepEqual(checkInvariants({ held: [{ name: 'x', mode: 'shared' }, { name: 'x', mode: 'shared' }], pending: [] }), []);
  assert.equal(checkInvariants({ held: [{ name: 'x', mode: 'exclusive' }, { name: 'x', mode: 'shared' }], pending: [] }).length, 1);
  assert.equal(checkInvariants({ held: [{ name: 'x', mode: 'exclusive' }, { name: 'x', mode: 'exclusive' }], pending: [] }).length, 1);
  assert.equal(checkInvariants({ held: [{ name: 'x', mode: 'shared' }], pending: [{ name: 'x', mode: 'shared' }] }).length, 1);
  assert.equal(checkInvariants({ held: [], pending: [{ name: 'y', mode: 'exclusive' }] }).length, 1);
});
