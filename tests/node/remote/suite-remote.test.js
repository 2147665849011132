// The behavioural suite (tests/node/suite) on the lock server: every context a remote client of one
// lock server on loopback, in one space.
import http from 'node:http';
import { after } from 'node:test';
import { AsyncLocalStorage } from 'node:async_hooks';
import { createLockServer } from '../../../js/server/index.js';
import { createRemoteHost } from '../suite/hosts/remote.js';
import { runSuite } from '../api/node-runner.js';

const httpServer = http.createServer();
const lockServer = createLockServer({ authorize: () => 'suite' });
lockServer.attach(httpServer, { path: '/locks' });
await new Promise((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
after(async () => {
  await lockServer.close();
  await new Promise((resolve) => httpServer.close(resolve));
});

const storage = new AsyncLocalStorage();
runSuite(createRemoteHost({
  url: `ws://127.0.0.1:${httpServer.address().port}/locks`,
  asyncContext: { run: (value, fn) => storage.run(value, fn), get: () => storage.getStore() },
  deadlockDetection: true,
}));
