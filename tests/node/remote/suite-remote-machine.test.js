// The behavioural suite (tests/node/suite) on a lock server with backend 'machine': every context
// a remote client over loopback, the space a machine lock space (a hub process) in a fresh folder.
import http from 'node:http';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after } from 'node:test';
import { AsyncLocalStorage } from 'node:async_hooks';
import { createLockServer } from '../../../js/server/index.js';
import { createRemoteHost } from '../suite/hosts/remote.js';
import { runSuite } from '../api/node-runner.js';

const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'wl-remote-suite-'));
process.env.WEBLOCKS_MACHINE_IDLE_MS = '1500';
const httpServer = http.createServer();
const lockServer = createLockServer({ authorize: () => 'suite', backend: 'machine', machineFolder: folder });
lockServer.attach(httpServer, { path: '/locks' });
await new Promise((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
after(async () => {
  await lockServer.close();
  await new Promise((resolve) => httpServer.close(resolve));
  for (const file of fs.readdirSync(folder).filter((f) => f.endsWith('.pid'))) {
    try { process.kill(Number(fs.readFileSync(path.join(folder, file), 'utf8')), 'SIGKILL'); } catch { /* gone */ }
  }
  fs.rmSync(folder, { recursive: true, force: true });
});

const storage = new AsyncLocalStorage();
const host = createRemoteHost({
  url: `ws://127.0.0.1:${httpServer.address().port}/locks`,
  asyncContext: { run: (value, fn) => storage.run(value, fn), get: () => storage.getStore() },
  deadlockDetection: true,
});
host.name = 'lock server, backend machine';
runSuite(host);
