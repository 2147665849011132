// Compiles against the declarations of "./server" and "./remote" (tsc -p tsconfig.json).
import http from 'node:http';
import { createLockServer, type FenceTicket } from '../../../../js/server.js';
import { createLockManager, lockHeaders, type FencedLock } from '../../../../js/remote.js';

const server = http.createServer();
const lockServer = createLockServer({ authorize: (req) => req.headers['x-user'] as string | undefined, grace: 10_000 });
const detach: () => void = lockServer.attach(server, { path: '/locks' });
const locks = createLockManager({ url: 'ws://127.0.0.1:1/locks' });
const token: Promise<number> = locks.request('doc', async (lock) => {
  const fenced: FencedLock | null = lock;
  const headers: Record<string, string> = lockHeaders(lock!);
  void headers;
  return fenced!.fencingToken;
});
const ticket: Promise<FenceTicket> = lockServer.fence({ headers: {} });
const stop: () => void = lockServer.observeLocks(() => {}, { space: 'u1', names: ['doc'] });
void token; void ticket; void stop; void detach;
locks.close();
void lockServer.close();
