// The lease keeper's local deadline (js/etcd/lease-keeper.js), without etcd: a lease whose
// keep-alives go unanswered is taken as lost once its TTL (less the margin) has passed since the
// last answered send, even when the deadline's timer fires before that moment by
// performance.now() (a timer measures from the event loop's cached clock, which lags on a loaded
// machine: a holder cut off from etcd then learned its loss only seconds later, from its next write).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LeaseKeeper } from '../../../js/etcd/lease-keeper.js';

test('a deadline timer that fires before the deadline by performance.now() looks again, and the lease is taken as lost at the deadline', async (t) => {
  const realNow = performance.now.bind(performance);
  let lag = 0; // how far performance.now() reads behind the clock the timers ran by
  performance.now = () => realNow() - lag;
  t.after(() => { delete performance.now; });
  const neverAnswered = { leaseKeepAlive: () => new Promise(() => {}) };
  const grants = { leaseGrant: async () => ({ ID: '7' }) };
  let lost = null;
  const keeper = new LeaseKeeper(grants, [neverAnswered], 1, 60_000, (id, reason) => { lost = { id, reason }; });
  const granted = realNow();
  assert.equal(await keeper.leaseId(), '7');
  // When the deadline (0.95 s after the grant was sent) fires, performance.now() reads 200 ms
  // behind: the lease still looks valid. Then the clocks agree again.
  lag = 200;
  const agreeAgain = setTimeout(() => { lag = 0; }, 1_050 - (realNow() - granted));
  t.after(() => clearTimeout(agreeAgain));
  const deadline = realNow() + 10_000;
  while (lost === null && realNow() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  assert.deepEqual(lost, { id: '7', reason: 'its keep-alives went unanswered for longer than the lease TTL' });
});
