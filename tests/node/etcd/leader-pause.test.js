// The raft leader paused (SIGSTOP) for half the lease TTL: the holders keep their locks. Keep-alives
// sent to the paused leader get no answer; the other members answer once they have elected a new
// leader (which extends every lease), so no holder may take its lock as lost, and no waiter may be
// granted a lock whose holder still runs. Many holders, each its own client (own lease, own
// choice of member), their keep-alive rounds spread over one interval, so that some of them send
// a round to the leader early in its pause (the case where one unanswered round used to cost the
// lease: 1 holder in ~6; the chance that none of 24 meets it is ~1%).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster } from './support/cluster.js';
import { FencedResource } from './support/fenced-resource.js';
import { createLockManager, closeLockManager } from '../../../js/etcd/index.js';

const cluster = await startCluster();
after(() => cluster.stop());

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const HOLDERS = 24;
const LEASE_TTL = 6;

test('holders keep their locks while the raft leader is paused for half the lease TTL, and each waiter is granted only after its holder released', { timeout: 90_000 }, async () => {
  const namespace = `leader-pause-${process.pid}/`;
  const options = { etcd: { hosts: cluster.hosts, namespace, leaseTtl: LEASE_TTL } };
  const resource = new FencedResource();
  const holders = Array.from({ length: HOLDERS }, () => createLockManager(options));
  const waiterClient = createLockManager(options);
  let release;
  const released = new Promise((resolve) => { release = resolve; });
  const done = [];
  for (const [i, locks] of holders.entries()) {
    let granted;
    const grant = new Promise((resolve) => { granted = resolve; });
    done.push(locks.request(`n${i}`, async (lock) => {
      resource.write(`n${i}`, `holder ${i}`, lock.fencingToken);
      granted();
      await released;
      assert.equal(resource.write(`n${i}`, `holder ${i}`, lock.fencingToken), true, `holder ${i}'s last write is accepted`);
      return `held ${i}`;
    }).then((value) => ({ value }), (error) => ({ error })));
    await grant;
    await sleep((LEASE_TTL * 1000) / 3 / HOLDERS); // the next lease a little later: rounds spread over an interval
  }
  const waiters = holders.map((_, i) => waiterClient.request(`n${i}`, (lock) => resource.write(`n${i}`, `waiter ${i}`, lock.fencingToken)));
  for (;;) { // every waiter queued
    const state = await waiterClient.query();
    if (state.pending.length === HOLDERS) break;
    await sleep(10);
  }

  const leader = await cluster.leaderIndex();
  assert.ok(leader >= 0, 'a leader');
  // The fault: the leader stopped for half the TTL; the holders then hold on for a whole TTL
  // more, past the moment a keep-alive round lost to the paused leader would have ended a lease.
  cluster.pause(leader);
  await sleep((LEASE_TTL * 1000) / 2);
  cluster.resume(leader);
  await sleep(LEASE_TTL * 1000);
  release();

  const outcomes = await Promise.all(done);
  const failed = outcomes.map((o, i) => (o.error ? `holder ${i}: ${o.error.name}: ${o.error.message}` : null)).filter(Boolean);
  assert.deepEqual(failed, [], 'no holder lost its lock');
  assert.deepEqual(outcomes.map((o) => o.value), holders.map((_, i) => `held ${i}`));
  assert.deepEqual(await Promise.all(waiters), holders.map(() => true), 'each waiter is granted after its holder');
  assert.deepEqual(resource.check().violations, []);
  await Promise.all([...holders, waiterClient].map((locks) => closeLockManager(locks)));
});
