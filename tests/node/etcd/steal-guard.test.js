// The steal's transaction holds only if the queue is as it read it. The race it guards against:
// shared S1 holds, exclusive X waits, shared S2 waits behind X. A thief reads the queue (holder:
// S1); before its transaction, X is aborted, which makes S2 a holder. Deleting only S1 would push
// S2 back behind the thief while S2's client believes it holds. The guard (the first waiter must
// still exist) makes the thief read again and take S2's lock too, as a steal of a holder.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster } from './support/cluster.js';
import { createLockManager, closeLockManager } from '../../../js/etcd/index.js';
import { EtcdBackend } from '../../../js/etcd/etcd-backend.js';
import { connectEtcd } from '../../../js/etcd/load-client.js';
import { etcdOptions } from '../../../js/etcd/options.js';
import { createLockManager as managerOn } from '../../../js/api/index.js';

const cluster = await startCluster();
after(() => cluster.stop());

async function until(probe, label) {
  for (let i = 0; i < 5000; i++) {
    if (await probe()) return;
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  throw new Error(`never: ${label}`);
}

test('a waiter made a holder between the thief\'s read and its transaction is stolen from, never left believing it holds', { timeout: 60_000 }, async () => {
  const namespace = `guard-${process.pid}/`;
  const options = { etcd: { hosts: cluster.hosts, namespace } };
  const [r1, w, r2] = [createLockManager(options), createLockManager(options), createLockManager(options)];
  const name = 'guarded';
  const named = (list) => list.filter((info) => info.name === name);

  let releaseS1;
  let releaseS2;
  let s1;
  await new Promise((granted) => {
    s1 = r1.request(name, { mode: 'shared' }, () => { granted(); return new Promise((r) => { releaseS1 = r; }); })
      .then(() => null, (error) => error);
  });
  const controller = new AbortController();
  const x = w.request(name, { signal: controller.signal }, () => 'x granted').then(() => 'granted', (error) => error.name);
  await until(async () => named((await r1.query()).pending).length === 1, 'X waits');
  let s2Granted;
  const s2GrantedPromise = new Promise((resolve) => { s2Granted = resolve; });
  const s2 = r2.request(name, { mode: 'shared' }, () => { s2Granted(); return new Promise((r) => { releaseS2 = r; }); })
    .then(() => null, (error) => error);
  await until(async () => named((await r1.query()).pending).length === 2, 'S2 waits behind X');

  // The thief: its first read of the name's queue is followed, before its transaction, by X's abort
  // and S2's grant.
  const thiefOptions = etcdOptions(options.etcd);
  let interfered = false;
  const client = connectEtcd(thiefOptions).then((etcd) => {
    const range = etcd.kv.range.bind(etcd.kv);
    etcd.kv.range = async (request) => {
      const answer = await range(request);
      if (!interfered && request.key.toString().endsWith(`/${name}/`)) {
        interfered = true;
        controller.abort();
        await s2GrantedPromise;
      }
      return answer;
    };
    return etcd;
  });
  const thiefBackend = new EtcdBackend(client, thiefOptions);
  const thief = managerOn(thiefBackend);
  const seenByThief = await thief.request(name, { steal: true }, async () => {
    const state = await thief.query();
    return { held: named(state.held).length, pending: named(state.pending).map((info) => info.mode) };
  });
  assert.ok(interfered, 'the interference ran between the read and the transaction');
  assert.deepEqual(seenByThief, { held: 1, pending: [] }, 'the thief holds alone and S2 is not pushed back into the queue');
  assert.equal(await x, 'AbortError', 'X was aborted');
  assert.equal((await s1)?.name, 'AbortError', 'S1 was stolen from');
  const stolen = await s2;
  assert.equal(stolen?.name, 'AbortError');
  assert.equal(stolen.message, 'The lock was stolen by another request.', 'S2 learns of a steal, not of a repair');
  releaseS1?.();
  releaseS2?.();
  await Promise.all([r1, w, r2].map((locks) => closeLockManager(locks)));
  await thiefBackend.close();
});
