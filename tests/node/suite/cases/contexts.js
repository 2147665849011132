// Several contexts (agents) sharing one lock space: the cases a per-agent implementation gets
// wrong (Node 24's built-in, across threads). Each context is host.openContext().
import { ok, equal, deepEqual } from '../assert.js';
import { requestHandle, uniqueName } from '../handle.js';

function named(list, name) {
  return list.filter((info) => info.name === name);
}

/**
 * Resolves once `probe()` (a query) satisfies `test`: the snapshot is the proof of the state the
 * next step depends on (a request another agent made is queued). Retries after a 1 ms timer.
 */
async function until(probe, test, label, patienceMs = 30_000) {
  const deadline = now() + patienceMs;
  for (;;) {
    const value = await probe();
    if (test(value)) return value;
    if (now() > deadline) throw new Error(`never reached: ${label}`);
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

function now() {
  return globalThis.performance ? globalThis.performance.now() : Date.now();
}

export function defineContextCases(runner, host) {
  const { test } = runner;
  const locks = host.locks;

  test('an exclusive lock held by another context blocks this context until that context releases it', async () => {
    const other = await host.openContext();
    try {
      const name = uniqueName('cross');
      const remote = other.request(name);
      await remote.granted;
      const local = requestHandle(locks, name);
      const state = await locks.query();
      equal(named(state.pending, name).length, 1, 'this context waits');
      equal(named(state.held, name).length, 1, 'the other context holds');
      remote.release('remote done');
      await local.granted;
      deepEqual(await remote.settled, { ok: true, value: 'remote done' });
      local.release();
      await local.settled;
    } finally {
      await other.end('close');
    }
  });

  if (host.asyncContext) {
    test('the callback sees the async context of the request() call when another context\'s release grants it', async () => {
      const other = await host.openContext();
      try {
        const name = uniqueName('cross-async-context');
        const remote = other.request(name);
        await remote.granted;
        const context = host.asyncContext;
        const seen = context.run('requester', () => locks.request(name, () => context.get()));
        await until(() => locks.query(), (s) => named(s.pending, name).length === 1, 'this context waits');
        remote.release();
        equal(await seen, 'requester');
      } finally {
        await other.end('close');
      }
    });
  }

  test('query() from any context lists every context\'s held and pending locks with distinct clientIds', async () => {
    const b = await host.openContext();
    const c = await host.openContext();
    try {
      const name = uniqueName('query-all');
      const mine = requestHandle(locks, name, { mode: 'shared' });
      await mine.granted;
      const bShared = b.request(name, { mode: 'shared' });
      await bShared.granted;
      const cExclusive = c.request(name);
      const state = await until(() => c.query(), (s) => named(s.pending, name).length === 1, 'c\'s request is queued');
      for (const view of [state, await b.query(), await locks.query()]) {
        const held = named(view.held, name);
        const pending = named(view.pending, name);
        deepEqual(held.map((info) => info.mode), ['shared', 'shared']);
        deepEqual(pending.map((info) => info.mode), ['exclusive']);
        const ids = new Set(held.concat(pending).map((info) => info.clientId));
        equal(ids.size, 3, 'three contexts, three clientIds');
      }
      mine.release();
      bShared.release();
      await cExclusive.granted;
      cExclusive.release();
      await Promise.all([mine.settled, bShared.settled, cExclusive.settled]);
    } finally {
      await Promise.all([b.end('close'), c.end('close')]);
    }
  });

  test('a steal from another context rejects the holder\'s promise with an AbortError, and the holder lives on', async () => {
    const thief = await host.openContext();
    const victim = await host.openContext();
    try {
      const name = uniqueName('cross-steal');
      const held = victim.request(name);
      await held.granted;
      const local = requestHandle(locks, name);
      await until(() => locks.query(), (s) => named(s.pending, name).length === 1, 'this context waits');
      const stealing = thief.request(name, { steal: true });
      await stealing.granted;
      const outcome = await held.settled;
      deepEqual([outcome.ok, outcome.name], [false, 'AbortError'], 'the holder\'s promise rejected with an AbortError');
      const state = await victim.query();
      deepEqual(named(state.held, name).length, 1, 'the robbed context still answers, and sees only the thief holding');
      deepEqual(named(state.pending, name).length, 1, 'the waiter still waits behind the thief');
      held.release('ignored');
      stealing.release('stolen');
      await local.granted;
      deepEqual(await stealing.settled, { ok: true, value: 'stolen' });
      local.release();
      await local.settled;
      const after = victim.request(name);
      await after.granted;
      after.release();
      await after.settled;
    } finally {
      await Promise.all([thief.end('close'), victim.end('close')]);
    }
  });

  test('a shared request from context B made after context C\'s queued exclusive request waits behind it', async () => {
    const b = await host.openContext();
    const c = await host.openContext();
    try {
      const name = uniqueName('cross-no-overtake');
      const reader = requestHandle(locks, name, { mode: 'shared' });
      await reader.granted;
      const writer = c.request(name);
      await until(() => locks.query(), (s) => named(s.pending, name).length === 1, 'c\'s exclusive request is queued');
      const lateReader = b.request(name, { mode: 'shared' });
      const state = await until(() => locks.query(), (s) => named(s.pending, name).length === 2, 'b\'s shared request is queued');
      deepEqual(named(state.pending, name).map((info) => info.mode), ['exclusive', 'shared']);
      const order = [];
      writer.granted.then(() => { order.push('C exclusive'); writer.release(); });
      lateReader.granted.then(() => { order.push('B shared'); lateReader.release(); });
      reader.release();
      await Promise.all([writer.settled, lateReader.settled]);
      deepEqual(order, ['C exclusive', 'B shared']);
    } finally {
      await Promise.all([b.end('close'), c.end('close')]);
    }
  });

  for (const how of host.endings ?? []) {
    test(`a waiter in another context is granted when the holder's context ends by ${how}`, async () => {
      const holder = await host.openContext();
      const name = uniqueName(`end-${how}`);
      const held = holder.request(name);
      await held.granted;
      const waiter = requestHandle(locks, name);
      await until(() => locks.query(), (s) => named(s.pending, name).length === 1, 'this context waits');
      const start = now();
      const ended = holder.end(how);
      await waiter.granted;
      const delay = now() - start;
      runner.note?.(`${host.name}: holder ended by ${how}, waiter granted after ${delay.toFixed(2)} ms`);
      await ended;
      waiter.release();
      await waiter.settled;
    });

    // A Node thread with a request pending stays alive (by design), so it cannot end by 'close'.
    if (how === 'close' && host.pendingKeepsAlive) continue;
    test(`requests pending in a context that ends by ${how} are dropped from the queue`, async () => {
      const name = uniqueName(`drop-${how}`);
      const mine = requestHandle(locks, name);
      await mine.granted;
      const doomed = await host.openContext();
      doomed.request(name);
      doomed.request(name, { mode: 'shared' });
      await until(() => locks.query(), (s) => named(s.pending, name).length === 2, 'both are queued');
      await doomed.end(how);
      await until(() => locks.query(), (s) => named(s.pending, name).length === 0, 'the queue is empty');
      mine.release();
      await mine.settled;
      equal(await locks.request(name, { ifAvailable: true }, (lock) => lock !== null), true, 'nobody holds it');
    });
  }

  if (host.startLoneWaiter) {
    test('an agent whose only work is a pending request stays alive until it is granted, then ends by itself', async () => {
      const name = uniqueName('keep-alive');
      const mine = requestHandle(locks, name);
      await mine.granted;
      const lone = host.startLoneWaiter(name);
      await until(() => locks.query(), (s) => named(s.pending, name).length === 1, 'the lone request is queued');
      await lone.aliveWhilePending;
      ok(named((await locks.query()).pending, name).length === 1, 'still queued');
      mine.release();
      deepEqual(await lone.outcome, { granted: true, exitedByItself: true });
      await mine.settled;
    });
  }
}

export { until };
