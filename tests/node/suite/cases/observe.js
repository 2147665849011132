// observeLocks (docs/api.md, "Observing locks") and certain deadlocks, for hosts that offer it
// (host.observeLocks). Every proof is a change the observer was told: the lock space's own order.
import { ok, equal, deepEqual } from '../assert.js';
import { requestHandle, uniqueName } from '../handle.js';

/** An observer that keeps every call, and resolves waits for the change a step depends on. */
function watch(host, options) {
  const calls = [];
  const waiters = [];
  const check = () => {
    for (let i = waiters.length - 1; i >= 0; i--) {
      const found = allChanges().find(waiters[i].test);
      if (found !== undefined) {
        waiters[i].resolve(found);
        waiters.splice(i, 1);
      }
    }
  };
  const allChanges = () => calls.flatMap((call) => call.changes);
  let firstCall;
  const first = new Promise((resolve) => { firstCall = resolve; });
  const stop = host.observeLocks((snapshot, changes) => {
    calls.push({ snapshot, changes });
    if (calls.length === 1) firstCall(calls[0]);
    check();
  }, options);
  return {
    calls,
    stop,
    changes: allChanges,
    first,
    /** Resolves with the first change (of all so far or to come) that passes `test`. */
    until(test) {
      return new Promise((resolve) => {
        waiters.push({ test, resolve });
        check();
      });
    },
    /** Resolves once a call's snapshot passes `test`. */
    untilState(test) {
      return new Promise((resolve) => {
        const look = () => {
          const last = calls[calls.length - 1];
          if (last !== undefined && test(last.snapshot)) return resolve(last.snapshot);
          waiters.push({ test: () => { const now = calls[calls.length - 1]; return test(now.snapshot); }, resolve: () => resolve(calls[calls.length - 1].snapshot) });
          check();
        };
        look();
      });
    },
  };
}

const holders = (observer) => {
  const snapshot = observer.calls[observer.calls.length - 1].snapshot;
  return new Map(snapshot.held.map((info) => [info.name, info.clientId]));
};
const is = (type, name) => (change) => change.type === type && change.name === name;
const summary = (changes) => changes.map((change) => `${change.type} ${change.name} ${change.mode}`);

export function defineObserveCases(runner, host) {
  if (typeof host.observeLocks !== 'function') return;
  const { test } = runner;
  const locks = host.locks;

  test('observeLocks calls back at once with the current state, then reports every change type in the order the lock space made them across contexts', async () => {
    const name = uniqueName('observe-order');
    const mine = requestHandle(locks, name);
    await mine.granted;
    const observer = watch(host, { names: [name] });
    const b = await host.openContext();
    const c = await host.openContext();
    try {
      const first = await observer.first;
      deepEqual(summary(first.changes), [`granted ${name} exclusive`], 'the first call: what exists');
      equal(first.snapshot.held.length, 1);
      const mineId = first.snapshot.held[0].clientId;
      const bWaits = b.request(name, { mode: 'shared' });
      await observer.until(is('requested', name));
      const bAborts = b.request(name, { signal: true });
      await observer.until((change) => change.type === 'requested' && change.mode === 'exclusive');
      bAborts.abort();
      await observer.until(is('aborted', name));
      mine.release();
      await bWaits.granted;
      await observer.until((change) => change.type === 'granted' && change.mode === 'shared');
      const cSteals = c.request(name, { steal: true });
      await cSteals.granted;
      await observer.until(is('stolen', name));
      cSteals.release();
      await observer.until((change) => change.type === 'released' && change.clientId !== mineId);
      const changes = observer.changes();
      deepEqual(summary(changes), [
        `granted ${name} exclusive`,
        `requested ${name} shared`,
        `requested ${name} exclusive`,
        `aborted ${name} exclusive`,
        `released ${name} exclusive`,
        `granted ${name} shared`,
        `stolen ${name} shared`,
        `requested ${name} exclusive`,
        `granted ${name} exclusive`,
        `released ${name} exclusive`,
      ]);
      equal(changes[4].clientId, mineId, 'this context released');
      const bId = changes[1].clientId;
      ok(bId !== mineId, 'another context requested');
      equal(changes[3].clientId, bId);
      equal(changes[5].clientId, bId, 'granted to the context that waited');
      equal(changes[6].clientId, bId, 'stolen from it');
      const cId = changes[7].clientId;
      ok(cId !== bId && cId !== mineId, 'a third context stole');
      deepEqual(observer.calls[observer.calls.length - 1].snapshot, { held: [], pending: [] }, 'the last call shows the state now');
      deepEqual((await bWaits.settled).ok, false, 'the stolen lock\'s promise rejected');
    } finally {
      observer.stop();
      await b.end('close');
      await c.end('close');
    }
  });

  test('observeLocks with names reports only the changes and locks of those names', async () => {
    const seen = uniqueName('observe-seen');
    const unseen = uniqueName('observe-unseen');
    const observer = watch(host, { names: (name) => name === seen });
    try {
      await observer.first;
      const other = requestHandle(locks, unseen);
      await other.granted;
      const mine = requestHandle(locks, seen);
      await mine.granted;
      await observer.until(is('granted', seen));
      other.release();
      mine.release();
      await observer.until(is('released', seen));
      ok(observer.changes().every((change) => change.name === seen), 'only the observed name');
      ok(observer.calls.every((call) => [...call.snapshot.held, ...call.snapshot.pending].every((info) => info.name === seen)));
    } finally {
      observer.stop();
    }
  });

  test('observeLocks stops when its signal aborts or its returned function is called', async () => {
    const name = uniqueName('observe-stop');
    const controller = new AbortController();
    const bySignal = watch(host, { names: [name], signal: controller.signal });
    const byCall = watch(host, { names: [name] });
    const goesOn = watch(host, { names: [name] });
    try {
      await Promise.all([bySignal.first, byCall.first, goesOn.first]);
      controller.abort();
      byCall.stop();
      const mine = requestHandle(locks, name);
      await mine.granted;
      mine.release();
      await mine.settled;
      await goesOn.until(is('released', name));
      // The stopped observers were stopped before the first change: they never see one.
      await new Promise((resolve) => setTimeout(resolve, 0));
      equal(bySignal.changes().length, 0);
      equal(byCall.changes().length, 0);
    } finally {
      goesOn.stop();
    }
  });

  test('observeLocks under a burst of changes may coalesce them, and its last call shows the true state', async () => {
    const prefix = uniqueName('observe-burst');
    const observer = watch(host, { names: (name) => name.startsWith(prefix) });
    try {
      await observer.first;
      const all = [];
      for (let i = 0; i < 600; i++) all.push(locks.request(`${prefix}/${i % 3}`, () => {}));
      await Promise.all(all);
      const last = requestHandle(locks, `${prefix}/last`);
      await last.granted;
      const state = await observer.untilState((snapshot) => snapshot.held.some((info) => info.name === `${prefix}/last`) && snapshot.pending.length === 0);
      deepEqual(state.held.map((info) => info.name), [`${prefix}/last`], 'the true state');
      ok(observer.changes().every((change) => ['requested', 'granted', 'released'].includes(change.type)), 'no change that did not happen');
      last.release();
      await last.settled;
    } finally {
      observer.stop();
    }
  });

  // Contexts left waiting in a deadlock end from outside where the host can (a thread with a
  // pending request does not end by 'close').
  const endWaiting = host.endings.includes('terminate') ? 'terminate' : 'close';

  test('a cycle of contexts waiting outside their callbacks is reported as a possible deadlock (certain: false), never before its delay', async () => {
    const a = await host.openContext();
    const b = await host.openContext();
    const x = uniqueName('possible');
    const y = uniqueName('possible');
    const sentinel = uniqueName('possible-sentinel');
    const soon = watch(host, { names: [x, y], possibleDeadlocks: true, deadlockDelay: 50 });
    const late = watch(host, { names: [x, y, sentinel], possibleDeadlocks: true, deadlockDelay: 600_000 });
    try {
      await Promise.all([soon.first, late.first]);
      const ax = a.request(x);
      await ax.granted;
      const by = b.request(y);
      await by.granted;
      a.request(y); // outside any callback: a's lock of x is not known to wait
      await soon.untilState((snapshot) => snapshot.pending.length === 1);
      b.request(x);
      const report = await soon.until((change) => change.type === 'deadlock');
      equal(report.certain, false);
      const held = holders(soon);
      const aId = held.get(x);
      const bId = held.get(y);
      const members = [...report.cycle].sort((m, n) => (m.holds === x ? -1 : 1) - (n.holds === x ? -1 : 1));
      deepEqual(members, [{ clientId: aId, holds: x, waitsFor: y }, { clientId: bId, holds: y, waitsFor: x }]);
      // With a long delay: a change after the cycle formed reaches the observer, no report before it.
      await late.untilState((snapshot) => snapshot.pending.length === 2);
      const mark = requestHandle(locks, sentinel);
      await mark.granted;
      mark.release();
      await late.until(is('released', sentinel));
      equal(late.changes().filter((change) => change.type === 'deadlock').length, 0);
      equal(soon.changes().filter((change) => change.type === 'deadlock').length, 1, 'reported once');
    } finally {
      soon.stop();
      late.stop();
      await a.end(endWaiting);
      await b.end(endWaiting);
    }
  });

  if (!host.deadlockDetection) return;

  // A cycle of n contexts, each waiting inside its lock of names[i] for names[i + 1] (requests made
  // at once in the callback: known in every host). This context holds names[0] until every other
  // wait is in place; then contexts[0] gets it, and its inner request closes the cycle.
  async function deadlockOf(contexts, names, { reject = false } = {}) {
    const observer = watch(host, { names });
    await observer.first;
    const pendingOf = (name, count) => observer.untilState((snapshot) => snapshot.pending.filter((info) => info.name === name).length === count);
    const gate = requestHandle(locks, names[0]);
    await gate.granted;
    if (reject) contexts[0].setDeadlock('reject');
    const n = contexts.length;
    const outers = new Array(n);
    outers[0] = contexts[0].request(names[0], { inner: { name: names[1 % n] } });
    await pendingOf(names[0], 1);
    for (let i = n - 1; i >= 1; i--) {
      outers[i] = contexts[i].request(names[i], { inner: { name: names[(i + 1) % n] } });
      await outers[i].granted;
      await pendingOf(names[(i + 1) % n], i === n - 1 ? 2 : 1);
    }
    gate.release();
    await outers[0].granted;
    const report = await observer.until((change) => change.type === 'deadlock');
    return { observer, outers, report };
  }


  for (const size of [2, 3]) {
    test(`a ${size}-context deadlock of requests made inside held locks is reported once, with its cycle`, async () => {
      const contexts = await Promise.all(Array.from({ length: size }, () => host.openContext()));
      const names = contexts.map(() => uniqueName('deadlock'));
      const { observer, report } = await deadlockOf(contexts, names);
      try {
        const held = holders(observer);
        equal(report.certain, true);
        equal(report.rejected, false);
        // The closing request (contexts[0]'s) first, then in wait order.
        deepEqual(report.cycle, names.map((name, i) => ({ clientId: held.get(name), holds: name, waitsFor: names[(i + 1) % size] })));
        equal(report.name, names[1]);
        equal(new Set(report.cycle.map((member) => member.clientId)).size, size, 'one member per context');
        // Later changes come after the report: one report only.
        const sentinel = uniqueName('deadlock-sentinel');
        observer.stop();
        const after = watch(host, { names: [...names, sentinel] });
        await after.first;
        const mark = requestHandle(locks, sentinel);
        await mark.granted;
        mark.release();
        await after.until(is('released', sentinel));
        equal(observer.changes().filter((change) => change.type === 'deadlock').length, 1);
        equal(after.changes().filter((change) => change.type === 'deadlock').length, 0);
        after.stop();
      } finally {
        observer.stop();
        for (const context of contexts) await context.end(endWaiting);
      }
    });
  }

  test('a request that would close a certain deadlock rejects with an OperationError when its context asks for it', async () => {
    const contexts = await Promise.all([host.openContext(), host.openContext()]);
    const names = [uniqueName('deadlock-reject'), uniqueName('deadlock-reject')];
    const { observer, outers, report } = await deadlockOf(contexts, names, { reject: true });
    try {
      equal(report.rejected, true);
      const outcome = await outers[0].inner.settled;
      equal(outcome.ok, false);
      equal(outcome.name, 'OperationError');
      const closer = holders(observer).get(names[0]);
      ok(!observer.changes().some((change) => change.type === 'requested' && change.name === names[1] && change.clientId === closer),
        'the rejected request was never queued');
    } finally {
      observer.stop();
      for (const context of contexts) await context.end(endWaiting);
    }
  });

  test('a nested request for the exclusive name its own callback holds is reported as a deadlock of one context', async () => {
    const context = await host.openContext();
    const name = uniqueName('self-deadlock');
    const observer = watch(host, { names: [name] });
    try {
      await observer.first;
      const outer = context.request(name, { inner: { name } });
      await outer.granted;
      const report = await observer.until((change) => change.type === 'deadlock');
      const holder = holders(observer).get(name);
      deepEqual(report.cycle, [{ clientId: holder, holds: name, waitsFor: name }]);
    } finally {
      observer.stop();
      await context.end(endWaiting);
    }
  });

  test('waits that form no cycle are not reported: shared locks held together, and a request made outside the callback of the lock it waits behind', async () => {
    const a = await host.openContext();
    const b = await host.openContext();
    const x = uniqueName('no-deadlock');
    const y = uniqueName('no-deadlock');
    const sentinel = uniqueName('no-deadlock-sentinel');
    const observer = watch(host, { names: [x, y, sentinel] });
    try {
      await observer.first;
      // Shared: b holds y and, inside it, x shared; a holds x shared and waits inside it for y.
      const bHolds = b.request(y, { inner: { name: x, options: { mode: 'shared' } } });
      await bHolds.inner.granted;
      const aShared = a.request(x, { mode: 'shared', inner: { name: y } });
      await aShared.granted;
      await observer.untilState((snapshot) => snapshot.pending.some((info) => info.name === y));
      // Outside: a asks for y again outside any callback, behind b, whose lock waits for nothing.
      const aOutside = a.request(y);
      await observer.untilState((snapshot) => snapshot.pending.filter((info) => info.name === y).length === 2);
      const mark = requestHandle(locks, sentinel);
      await mark.granted;
      mark.release();
      await observer.until(is('released', sentinel));
      equal(observer.changes().filter((change) => change.type === 'deadlock').length, 0);
      void aOutside;
    } finally {
      observer.stop();
      await a.end(endWaiting);
      await b.end(endWaiting);
    }
  });
}
