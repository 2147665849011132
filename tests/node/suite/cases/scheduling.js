// The spec's algorithms as one context sees them: request a lock (4.1), release (4.2),
// abort (4.3), process the queue (4.4), snapshot (4.5), and the callback/promise contract.
import { ok, equal, deepEqual, rejects } from '../assert.js';
import { requestHandle, uniqueName } from '../handle.js';

/** The entries of a snapshot list for one name, as [mode, clientId] pairs. */
function entries(list, name) {
  return list.filter((info) => info.name === name).map((info) => [info.mode, info.clientId]);
}

export function defineSchedulingCases(runner, host) {
  const { test } = runner;
  const locks = host.locks;

  test('the callback gets a Lock with the requested name and mode, exclusive by default', async () => {
    const name = uniqueName('lock');
    deepEqual(await locks.request(name, (lock) => [lock.name, lock.mode]), [name, 'exclusive']);
    deepEqual(await locks.request(name, { mode: 'shared' }, (lock) => [lock.name, lock.mode]), [name, 'shared']);
  });

  test('the promise resolves with the callback\'s result only after the lock is released', async () => {
    const name = uniqueName('result');
    let heldInside = false;
    const value = await locks.request(name, async () => {
      heldInside = entries((await locks.query()).held, name).length === 1;
      return { answer: 42 };
    });
    ok(heldInside, 'the lock is held while the callback runs');
    deepEqual(value, { answer: 42 });
    deepEqual(entries((await locks.query()).held, name), [], 'released once the promise resolved');
  });

  test('the promise rejects with the callback\'s error, thrown or rejected, and the lock is released', async () => {
    const name = uniqueName('throws');
    const thrown = new Error('sync');
    equal(await rejects(locks.request(name, () => { throw thrown; })), thrown);
    const rejected = new Error('async');
    equal(await rejects(locks.request(name, async () => { throw rejected; })), rejected);
    deepEqual(entries((await locks.query()).held, name), []);
    equal(await locks.request(name, { ifAvailable: true }, (lock) => lock !== null), true, 'free again');
  });

  test('a callback returning a thenable holds the lock until the thenable settles', async () => {
    const name = uniqueName('thenable');
    let settle;
    let adopted;
    const thenAdopted = new Promise((resolve) => { adopted = resolve; });
    const thenable = { then(resolve) { settle = resolve; adopted(); } };
    const promise = locks.request(name, () => thenable);
    const waiter = requestHandle(locks, name);
    await thenAdopted;
    const state = await locks.query();
    deepEqual(entries(state.held, name).length, 1, 'still held');
    deepEqual(entries(state.pending, name).length, 1, 'the waiter waits');
    settle('done');
    equal(await promise, 'done');
    await waiter.granted;
    waiter.release();
    await waiter.settled;
  });

  test('exclusive requests for one name are granted in request order', async () => {
    const name = uniqueName('fifo');
    const order = [];
    const first = requestHandle(locks, name);
    const rest = [1, 2, 3].map((i) => {
      const handle = requestHandle(locks, name);
      handle.granted.then(() => { order.push(i); handle.release(i); });
      return handle;
    });
    await first.granted;
    first.release();
    const results = await Promise.all(rest.map((handle) => handle.settled));
    deepEqual(order, [1, 2, 3]);
    deepEqual(results.map((r) => r.value), [1, 2, 3]);
  });

  test('shared locks are held together and an exclusive request waits for all of them', async () => {
    const name = uniqueName('readers');
    const readers = [requestHandle(locks, name, { mode: 'shared' }), requestHandle(locks, name, { mode: 'shared' })];
    await Promise.all(readers.map((r) => r.granted));
    const writer = requestHandle(locks, name);
    let writerHeld = false;
    writer.granted.then(() => { writerHeld = true; });
    readers[0].release();
    await readers[0].settled;
    const state = await locks.query();
    ok(!writerHeld, 'one reader still holds');
    deepEqual(entries(state.held, name).map(([mode]) => mode), ['shared']);
    deepEqual(entries(state.pending, name).map(([mode]) => mode), ['exclusive']);
    readers[1].release();
    await writer.granted;
    writer.release();
    await writer.settled;
  });

  test('a shared request made after a queued exclusive request waits behind it', async () => {
    const name = uniqueName('no-overtake');
    const reader = requestHandle(locks, name, { mode: 'shared' });
    await reader.granted;
    const writer = requestHandle(locks, name);
    const lateReader = requestHandle(locks, name, { mode: 'shared' });
    const order = [];
    writer.granted.then(() => { order.push('writer'); writer.release(); });
    lateReader.granted.then(() => { order.push('late reader'); lateReader.release(); });
    const state = await locks.query();
    deepEqual(entries(state.pending, name).map(([mode]) => mode), ['exclusive', 'shared'], 'both wait, in order');
    reader.release();
    await Promise.all([writer.settled, lateReader.settled]);
    deepEqual(order, ['writer', 'late reader']);
  });

  test('ifAvailable calls back with null when the lock is held, and leaves the queue untouched', async () => {
    const name = uniqueName('if-available');
    const holder = requestHandle(locks, name);
    await holder.granted;
    let calledWith;
    const result = await locks.request(name, { ifAvailable: true }, (lock) => { calledWith = lock; return 'fallback'; });
    equal(calledWith, null);
    equal(result, 'fallback');
    deepEqual(entries((await locks.query()).pending, name), [], 'nothing was queued');
    holder.release();
    await holder.settled;
    equal(await locks.request(name, { ifAvailable: true }, (lock) => lock?.name), name, 'granted at once when free');
  });

  test('ifAvailable calls back with null when a request is queued ahead, even one it could share with', async () => {
    const name = uniqueName('if-available-queue');
    const reader = requestHandle(locks, name, { mode: 'shared' });
    await reader.granted;
    const writer = requestHandle(locks, name);
    deepEqual(entries((await locks.query()).pending, name).length, 1);
    equal(await locks.request(name, { mode: 'shared', ifAvailable: true }, (lock) => lock), null);
    reader.release();
    await writer.granted;
    writer.release();
    await writer.settled;
  });

  test('steal takes the lock from its holder, whose promise rejects with an AbortError, and goes ahead of the queue', async () => {
    const name = uniqueName('steal');
    const holder = requestHandle(locks, name);
    await holder.granted;
    const waiter = requestHandle(locks, name);
    deepEqual(entries((await locks.query()).pending, name).length, 1);
    const order = [];
    waiter.granted.then(() => order.push('waiter'));
    const stolen = await locks.request(name, { steal: true }, async (lock) => {
      order.push('thief');
      const state = await locks.query();
      return { mode: lock.mode, held: entries(state.held, name).length, pending: entries(state.pending, name).length };
    });
    deepEqual(stolen, { mode: 'exclusive', held: 1, pending: 1 }, 'the thief alone holds it, the waiter still waits');
    const outcome = await holder.settled;
    deepEqual([outcome.ok, outcome.name], [false, 'AbortError']);
    await waiter.granted;
    deepEqual(order, ['thief', 'waiter']);
    // The robbed callback is still running; letting it finish releases nothing.
    holder.release('late');
    equal((await holder.settled).ok, false);
    deepEqual(entries((await locks.query()).held, name).length, 1, 'the waiter still holds it');
    waiter.release();
    await waiter.settled;
  });

  test('aborting a pending request rejects with the signal\'s reason and removes it from the queue', async () => {
    const name = uniqueName('abort');
    const holder = requestHandle(locks, name);
    await holder.granted;
    const aborted = requestHandle(locks, name, { signal: true });
    const next = requestHandle(locks, name);
    deepEqual(entries((await locks.query()).pending, name).length, 2);
    const reason = new Error('took too long');
    aborted.abort(reason);
    deepEqual(await aborted.settled, { ok: false, name: 'Error', message: 'took too long' });
    deepEqual(entries((await locks.query()).pending, name).length, 1, 'removed from the queue');
    holder.release();
    await next.granted;
    next.release();
    await next.settled;
    let called = false;
    aborted.granted.then(() => { called = true; });
    await locks.request(name, () => {});
    ok(!called, 'the aborted callback never ran');
  });

  test('aborting without a reason rejects with an AbortError DOMException', async () => {
    const name = uniqueName('abort-default');
    const holder = requestHandle(locks, name);
    await holder.granted;
    const controller = new AbortController();
    const promise = locks.request(name, { signal: controller.signal }, () => 'never');
    controller.abort();
    await rejects(promise, { name: 'AbortError', instanceOf: DOMException });
    holder.release();
    await holder.settled;
  });

  test('aborting after the grant changes nothing', async () => {
    const name = uniqueName('abort-late');
    const handle = requestHandle(locks, name, { signal: true });
    await handle.granted;
    handle.abort(new Error('too late'));
    deepEqual(entries((await locks.query()).held, name).length, 1, 'still held');
    handle.release('kept');
    deepEqual(await handle.settled, { ok: true, value: 'kept' });
  });

  test('query() lists held locks and pending requests in order, each with this context\'s clientId', async () => {
    const a = uniqueName('query-a');
    const b = uniqueName('query-b');
    const h1 = requestHandle(locks, a, { mode: 'shared' });
    const h2 = requestHandle(locks, b);
    await Promise.all([h1.granted, h2.granted]);
    const p1 = requestHandle(locks, a);
    const p2 = requestHandle(locks, b, { mode: 'shared' });
    const state = await locks.query();
    const held = state.held.filter((info) => info.name === a || info.name === b);
    const pending = state.pending.filter((info) => info.name === a || info.name === b);
    deepEqual(held.map((info) => [info.name, info.mode]), [[a, 'shared'], [b, 'exclusive']]);
    deepEqual(pending.map((info) => [info.name, info.mode]), [[a, 'exclusive'], [b, 'shared']]);
    const ids = new Set(held.concat(pending).map((info) => info.clientId));
    equal(ids.size, 1, 'one context, one clientId');
    ok(typeof [...ids][0] === 'string' && [...ids][0].length > 0, 'a non-empty clientId');
    deepEqual(Object.keys(held[0]).sort(), ['clientId', 'mode', 'name']);
    const again = await locks.query();
    ok(again !== state && again.held !== state.held, 'every query returns new objects');
    h1.release(); h2.release();
    await Promise.all([p1.granted, p2.granted]);
    p1.release(); p2.release();
    await Promise.all([p1.settled, p2.settled]);
  });

  test('locks on different names do not block each other', async () => {
    const first = requestHandle(locks, uniqueName('independent'));
    const second = requestHandle(locks, uniqueName('independent'));
    await Promise.all([first.granted, second.granted]);
    first.release(); second.release();
    await Promise.all([first.settled, second.settled]);
  });

  test('a request made inside a callback for the same name is granted after that callback\'s lock is released', async () => {
    const name = uniqueName('nested');
    let inner;
    const order = [];
    await locks.request(name, () => {
      inner = locks.request(name, () => { order.push('inner'); return 'inner done'; });
      order.push('outer');
    });
    equal(await inner, 'inner done');
    deepEqual(order, ['outer', 'inner']);
  });

  if (typeof globalThis.AsyncContext === 'function' || typeof globalThis.AsyncContext?.Variable === 'function') {
    test('the callback runs in the AsyncContext snapshot of the request() call', async () => {
      const variable = new globalThis.AsyncContext.Variable();
      const name = uniqueName('async-context');
      const holder = requestHandle(locks, name);
      await holder.granted;
      const seen = variable.run('requester', () => locks.request(name, () => variable.get()));
      holder.release();
      equal(await seen, 'requester');
    });
  }

  if (host.asyncContext) {
    test('the callback sees the async context of the request() call, not the one that released the lock', async () => {
      const context = host.asyncContext;
      const name = uniqueName('async-local');
      const holder = context.run('holder', () => requestHandle(locks, name));
      await holder.granted;
      const seen = context.run('requester', () => locks.request(name, () => context.get()));
      const seenIfAvailable = context.run('probe', () => locks.request(uniqueName('async-local'), { ifAvailable: true }, () => context.get()));
      context.run('releaser', () => holder.release());
      equal(await seen, 'requester');
      equal(await seenIfAvailable, 'probe');
    });
  }
}
