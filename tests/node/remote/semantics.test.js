// The spec's request() and query() through the lock server, between Node clients on separate
// connections: exclusion, FIFO, shared, ifAvailable, steal, signal, and one space never seeing or
// affecting another (spec: one lock manager per space key). Argument errors are the project's own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, until, hold, named } from './support.js';

test('an exclusive lock passes to waiting clients one at a time, in the order they asked (FIFO); fencing tokens grow', async (t) => {
  const { manager } = await startServer(t);
  const [a, b, c, d] = [manager(), manager(), manager(), manager()];
  const first = hold(a, 'fifo');
  const firstLock = await first.granted;
  const waiters = [];
  for (const [locks, label] of [[b, 'b'], [c, 'c'], [d, 'd']]) {
    waiters.push([hold(locks, 'fifo'), label]);
    await until(async () => named((await a.query()).pending, 'fifo').length === waiters.length, `${label} queued`);
  }
  first.release();
  const order = [];
  let token = firstLock.fencingToken;
  for (const [waiter, label] of waiters) {
    const lock = await waiter.granted;
    order.push(label);
    assert.ok(lock.fencingToken > token, 'the fencing token grows from holder to holder');
    token = lock.fencingToken;
    assert.equal(named((await a.query()).held, 'fifo').length, 1);
    waiter.release(label);
    assert.deepEqual(await waiter.done, { ok: true, value: label });
  }
  assert.deepEqual(order, ['b', 'c', 'd']);
  assert.deepEqual(await first.done, { ok: true, value: undefined });
});

test('many clients looping exclusive sections: never two inside at once (an external count), every section runs', async (t) => {
  const { manager } = await startServer(t);
  const clients = Array.from({ length: 6 }, () => manager());
  let inside = 0;
  let violations = 0;
  let sections = 0;
  await Promise.all(clients.map(async (locks) => {
    for (let i = 0; i < 40; i++) {
      await locks.request('loop', async () => {
        if (++inside !== 1) violations++;
        await new Promise((resolve) => setImmediate(resolve));
        inside--;
        sections++;
      });
    }
  }));
  assert.equal(violations, 0);
  assert.equal(sections, 240);
});

test('shared locks are held at once; an exclusive request waits for all, a later shared one waits behind it', async (t) => {
  const { manager } = await startServer(t);
  const [a, b, c, d] = [manager(), manager(), manager(), manager()];
  const sa = hold(a, 'rw', { mode: 'shared' });
  const sb = hold(b, 'rw', { mode: 'shared' });
  await Promise.all([sa.granted, sb.granted]);
  const x = hold(c, 'rw');
  await until(async () => named((await a.query()).pending, 'rw').length === 1);
  const sd = hold(d, 'rw', { mode: 'shared' });
  const state = await until(async () => { const s = await a.query(); return named(s.pending, 'rw').length === 2 && s; });
  assert.deepEqual(named(state.held, 'rw').map((l) => l.mode), ['shared', 'shared']);
  assert.deepEqual(named(state.pending, 'rw').map((l) => l.mode), ['exclusive', 'shared']);
  sa.release();
  await sa.done;
  assert.equal(named((await c.query()).held, 'rw').length, 1, 'b still holds: the exclusive request waits');
  sb.release();
  assert.equal((await x.granted).mode, 'exclusive');
  assert.equal(named((await d.query()).pending, 'rw').length, 1, 'the later shared request waits behind the exclusive one');
  x.release();
  assert.equal((await sd.granted).mode, 'shared');
  sd.release();
  assert.deepEqual(await sd.done, { ok: true, value: undefined });
});

test('ifAvailable gets null while another client holds the lock, without queueing; the lock once free', async (t) => {
  const { manager } = await startServer(t);
  const [a, b] = [manager(), manager()];
  const held = hold(a, 'maybe');
  await held.granted;
  assert.equal(await b.request('maybe', { ifAvailable: true }, (lock) => lock), null);
  assert.equal(named((await b.query()).pending, 'maybe').length, 0);
  held.release();
  await held.done;
  assert.equal(await b.request('maybe', { ifAvailable: true }, (lock) => lock?.name), 'maybe');
});

test('steal takes the lock from another client at once: the holder\'s request rejects with an AbortError, its later release releases nothing of the thief\'s', async (t) => {
  const { manager } = await startServer(t);
  const [a, b] = [manager(), manager()];
  const victim = hold(a, 'steal-me');
  const victimLock = await victim.granted;
  const thief = hold(b, 'steal-me', { steal: true });
  const thiefLock = await thief.granted;
  assert.ok(thiefLock.fencingToken > victimLock.fencingToken);
  const outcome = await victim.done;
  assert.equal(outcome.ok, false);
  assert.equal(outcome.name, 'AbortError');
  victim.release(); // its callback ends later: nothing of the thief's is released
  const state = await a.query();
  assert.deepEqual(named(state.held, 'steal-me').length, 1);
  thief.release();
  assert.deepEqual(await thief.done, { ok: true, value: undefined });
});

test('an aborted signal takes a waiting request out of the queue (AbortError); the next waiter is granted', async (t) => {
  const { manager } = await startServer(t);
  const [a, b, c] = [manager(), manager(), manager()];
  const held = hold(a, 'sig');
  await held.granted;
  const controller = new AbortController();
  const aborted = hold(b, 'sig', { signal: controller.signal });
  const next = hold(c, 'sig');
  await until(async () => named((await a.query()).pending, 'sig').length === 2);
  controller.abort();
  const outcome = await aborted.done;
  assert.equal(outcome.name, 'AbortError');
  await until(async () => named((await a.query()).pending, 'sig').length === 1, 'the aborted request left the queue');
  held.release();
  await next.granted;
  next.release();
  assert.equal((await next.done).ok, true);
});

test('argument errors are the spec\'s, before anything reaches the server', async (t) => {
  const { manager } = await startServer(t);
  const locks = manager();
  await assert.rejects(locks.request('-x', () => {}), { name: 'NotSupportedError' });
  await assert.rejects(locks.request('x', { steal: true, ifAvailable: true }, () => {}), { name: 'NotSupportedError' });
  await assert.rejects(locks.request('x', { mode: 'shared', steal: true }, () => {}), { name: 'NotSupportedError' });
  await assert.rejects(locks.request('x', { mode: 'bogus' }, () => {}), TypeError);
  await assert.rejects(locks.request('x'), TypeError);
});

test('query() and observeLocks show every client of the space and nothing of another space; names do not collide across spaces', async (t) => {
  const { manager, lockServer } = await startServer(t);
  const [a1, a2, other] = [manager('alpha'), manager('alpha'), manager('beta')];
  const seen = [];
  const stop = a2.observeLocks((snapshot, changes) => seen.push(...changes));
  const serverSeen = [];
  const stopServer = lockServer.observeLocks((snapshot, changes) => serverSeen.push(...changes), { space: 'beta' });
  const mine = hold(a1, 'same-name');
  await mine.granted;
  // Same name in another space: granted at once, no effect on alpha.
  const theirs = hold(other, 'same-name');
  await theirs.granted;
  const waiting = hold(a2, 'same-name');
  const alpha = await until(async () => { const s = await a1.query(); return s.pending.length === 1 && s; });
  assert.equal(alpha.held.length, 1);
  const beta = await other.query();
  assert.equal(beta.held.length, 1);
  assert.equal(beta.pending.length, 0);
  assert.notEqual(beta.held[0].clientId, alpha.held[0].clientId);
  assert.notEqual(alpha.pending[0].clientId, alpha.held[0].clientId, 'each connection is a client of its own');
  await until(() => seen.some((c) => c.type === 'requested' && c.clientId === alpha.pending[0].clientId), 'observeLocks saw the waiter');
  await until(() => seen.some((c) => c.type === 'granted' && c.clientId === alpha.held[0].clientId), 'observeLocks saw the holder');
  assert.ok(seen.every((c) => c.clientId !== beta.held[0].clientId), 'nothing of the other space');
  await until(() => serverSeen.some((c) => c.type === 'granted' && c.clientId === beta.held[0].clientId), 'the server observes a space');
  assert.ok(serverSeen.every((c) => c.clientId === beta.held[0].clientId));
  assert.deepEqual((await lockServer.query('alpha')).held.map((l) => l.clientId), [alpha.held[0].clientId]);
  mine.release();
  theirs.release();
  await waiting.granted;
  waiting.release();
  await Promise.all([mine.done, theirs.done, waiting.done]);
  stop();
  stopServer();
});
