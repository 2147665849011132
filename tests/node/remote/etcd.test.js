// Backend { etcd }: two lock servers pointed at one etcd cluster (3 members on loopback) share each
// space's locks: a client of one excludes a client of the other, the lock passes between them with
// growing fencing tokens, spaces stay apart, and a client that closes releases at once.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { startCluster } from '../etcd/support/cluster.js';
import { createLockServer } from '../../../js/server/index.js';
import { createLockManager } from '../../../js/remote/node.js';
import { until, hold, named } from './support.js';

const cluster = await startCluster();
after(() => cluster.stop());

async function etcdServer(t) {
  const httpServer = http.createServer();
  const lockServer = createLockServer({
    backend: { etcd: { hosts: cluster.hosts, namespace: `remote-${process.pid}/` } },
    authorize: (req) => new URL(req.url, 'http://any').searchParams.get('space'),
  });
  lockServer.attach(httpServer, { path: '/locks' });
  await new Promise((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
  t.after(async () => {
    await lockServer.close();
    httpServer.closeAllConnections();
    await new Promise((resolve) => httpServer.close(resolve));
  });
  return { lockServer, url: (space) => `ws://127.0.0.1:${httpServer.address().port}/locks?space=${space}` };
}

test('two lock servers on one etcd cluster share a space: exclusion, handoff in order with growing tokens, spaces apart, a closed client releases', async (t) => {
  const [one, two] = [await etcdServer(t), await etcdServer(t)];
  const clients = [];
  t.after(() => { for (const c of clients) c.close(); });
  const client = (url) => { const c = createLockManager({ url }); clients.push(c); return c; };
  const [a, b, c] = [client(one.url('team')), client(two.url('team')), client(two.url('team'))];
  const other = client(one.url('elsewhere'));

  const first = hold(a, 'doc');
  const firstLock = await first.granted;
  assert.equal(await b.request('doc', { ifAvailable: true }, (lock) => lock), null, 'held through the other server');
  assert.equal(await other.request('doc', { ifAvailable: true }, (lock) => lock?.name), 'doc', 'another space');
  const second = hold(b, 'doc');
  await until(async () => named((await c.query()).pending, 'doc').length === 1, 'b queued');
  const third = hold(c, 'doc');
  await until(async () => named((await a.query()).pending, 'doc').length === 2, 'c queued behind b');
  first.release();
  const secondLock = await second.granted;
  assert.ok(secondLock.fencingToken > firstLock.fencingToken);
  // b's client closes while holding: its session ends, its etcd client is closed, c gets the lock.
  b.close();
  const thirdLock = await third.granted;
  assert.ok(thirdLock.fencingToken > secondLock.fencingToken);
  assert.equal((await second.done).name, 'AbortError');
  third.release();
  assert.equal((await third.done).ok, true);
});
