// The behavioural suite on the etcd lock space: a 3-member etcd cluster on loopback, started
// here (Debian's etcd-server) and removed afterwards.
import { AsyncLocalStorage } from 'node:async_hooks';
import { after } from 'node:test';
import { startCluster } from './support/cluster.js';
import { createEtcdHost } from '../suite/hosts/etcd.js';
import { runSuite } from '../api/node-runner.js';

const cluster = await startCluster();
after(() => cluster.stop());
const storage = new AsyncLocalStorage();
runSuite(createEtcdHost({
  hosts: cluster.hosts,
  namespace: `suite-${process.pid}/`,
  asyncContext: { run: (value, fn) => storage.run(value, fn), get: () => storage.getStore() },
}), { timeout: 60_000 });
