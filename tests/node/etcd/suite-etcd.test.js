// The behavioural suite on the etcd lock space: a 3-member etcd cluster on loopback, started
// here (Debian's etcd-server) and removed afterwards.
import { AsyncLocalStorage } from 'node:async_hooks';
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster } from './support/cluster.js';
import { createEtcdHost } from '../suite/hosts/etcd.js';
import { runSuite } from '../api/node-runner.js';
import { createLockManager, closeLockManager } from '../../../js/etcd/index.js';

const cluster = await startCluster();
after(() => cluster.stop());
const storage = new AsyncLocalStorage();
runSuite(createEtcdHost({
  hosts: cluster.hosts,
  namespace: `suite-${process.pid}/`,
  webidl: false, // the argument cases run once on this Node, in suite-in-context.test.js
  asyncContext: { run: (value, fn) => storage.run(value, fn), get: () => storage.getStore() },
}), { timeout: 60_000 });

test('closeLockManager releases what the client holds and drops what it waits for, rejecting both promises', async () => {
  const options = { etcd: { hosts: cluster.hosts, namespace: `close-${process.pid}/` } };
  const [closing, other] = [createLockManager(options), createLockManager(options)];
  let granted;
  const heldGranted = new Promise((resolve) => { granted = resolve; });
  const held = closing.request('a', () => { granted(); return new Promise(() => {}); }).then(() => 'fulfilled', (e) => `${e.name}: ${e.message}`);
  await heldGranted;
  const waiting = closing.request('a', () => 'never').then(() => 'fulfilled', (e) => `${e.name}: ${e.message}`);
  for (let state = await other.query(); state.pending.length === 0; state = await other.query());
  await closeLockManager(closing);
  assert.equal(await held, 'AbortError: The lock was released: its lock manager was closed.');
  assert.equal(await waiting, 'AbortError: The request was dropped: its lock manager was closed.');
  assert.deepEqual(await other.query(), { held: [], pending: [] });
  assert.equal(await other.request('a', { ifAvailable: true }, (lock) => lock !== null), true);
  await closeLockManager(other);
});

test('a release still on its way to etcd when the lock manager closes settles as released, not stolen', async () => {
  const locks = createLockManager({ etcd: { hosts: cluster.hosts, namespace: `close-race-${process.pid}/` } });
  let release;
  let granted;
  const heldGranted = new Promise((resolve) => { granted = resolve; });
  const done = locks.request('a', () => { granted(); return new Promise((resolve) => { release = resolve; }); });
  await heldGranted;
  release('done');
  await closeLockManager(locks); // in the same turn: the release's delete and the lease's revoke race
  assert.equal(await done, 'done');
});
