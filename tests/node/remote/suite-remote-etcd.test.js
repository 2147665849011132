// The behavioural suite (tests/node/suite) on a lock server with backend { etcd }: every context a
// remote client over loopback, the space an etcd lock space on a 3-member cluster on loopback
// (Debian's etcd-server), each session one etcd client with its own lease.
import http from 'node:http';
import { after } from 'node:test';
import { AsyncLocalStorage } from 'node:async_hooks';
import { startCluster } from '../etcd/support/cluster.js';
import { createLockServer } from '../../../js/server/index.js';
import { createRemoteHost } from '../suite/hosts/remote.js';
import { runSuite } from '../api/node-runner.js';

const cluster = await startCluster();
const httpServer = http.createServer();
const lockServer = createLockServer({ authorize: () => 'suite', backend: { etcd: { hosts: cluster.hosts, namespace: `remote-suite-${process.pid}/` } } });
lockServer.attach(httpServer, { path: '/locks' });
await new Promise((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
after(async () => {
  await lockServer.close();
  httpServer.closeAllConnections();
  await new Promise((resolve) => httpServer.close(resolve));
  await cluster.stop();
});

const storage = new AsyncLocalStorage();
const host = createRemoteHost({
  url: `ws://127.0.0.1:${httpServer.address().port}/locks`,
  asyncContext: { run: (value, fn) => storage.run(value, fn), get: () => storage.getStore() },
  // (as on etcd directly: suite-etcd.test.js; the argument cases run on remote clients in suite-remote.test.js)
  stressRequests: 150,
  webidl: false,
});
host.name = 'lock server, backend etcd';
runSuite(host, { timeout: 60_000 });
