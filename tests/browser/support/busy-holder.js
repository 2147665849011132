// The busy-holder scenario shared by busy.spec.js and csp.spec.js: a holder whose callback runs a
// long synchronous task keeps its lock (spec 4.1: a lock is released only when its callback's
// promise settles, on a steal, or when the agent terminates). The checker is external: each
// critical section stamps its entry and exit in its own context, the waiter stamps its grant, and
// the check fails if the waiter's section began before the holder's ended (both stamps mapped onto
// one clock: ./clocks.js).
import { expect, call, until, named, report } from './fixtures.js';
import { clockOf, expectAfter, between } from './clocks.js';

// Longer than the hub's dead-context bound (LIVENESS.DEAD_AFTER + TICK = 1.75 s) by far; the issue
// quotes 1.3 s (window) and 1.6 s (worker) as enough to lose the lock before. Longer runs: set
// WEBLOCKS_BUSY_MS.
export const TASK_MS = Number(process.env.WEBLOCKS_BUSY_MS ?? 4000);

export async function busyHolderKeepsItsLock(holder, holderPath, waiter, name) {
  const [holderClock, waiterClock] = [await clockOf(holder, holderPath), await clockOf(waiter)];
  const busy = await call(holder, holderPath, 'holdBusy', name, TASK_MS);
  await call(holder, holderPath, 'granted', busy);
  const waiting = await call(waiter, 'request', name);
  await until(waiter, (s) => named(s.pending, name).length === 1, 'the waiter is queued behind the busy holder');
  await call(holder, holderPath, 'go', busy);
  const granted = await call(waiter, 'granted', waiting);
  const section = await call(holder, holderPath, 'section', busy);
  expect(section.enteredAt, 'the busy task ran').not.toBeNull();
  expect(section.exitedAt, 'the busy task ended').not.toBeNull();
  expect(section.exitedAt - section.enteredAt).toBeGreaterThanOrEqual(TASK_MS - 1);
  // The external check: the two critical sections do not overlap.
  const exited = { at: section.exitedAt, clock: holderClock };
  const entered = { at: granted.at, clock: waiterClock };
  expectAfter(entered, exited, 'the waiter was granted only after the busy holder left its critical section');
  report(`${TASK_MS} ms task: holder left its section -> waiter granted`, between(exited, entered));
  expect(await call(holder, holderPath, 'settled', busy)).toEqual({ ok: true });
  expect((await call(holder, holderPath, 'connection')).stats.declaredDead, 'the busy holder was never declared dead').toBe(0);
  await call(waiter, 'release', waiting);
  expect(await call(waiter, 'settled', waiting)).toMatchObject({ ok: true });
}

