// A lock server on a loopback HTTP server for the remote tests, and small helpers. Nothing here
// waits on time to prove anything: tests wait for events (grants, query() snapshots, stats()).
import http from 'node:http';
import { once } from 'node:events';
import WebSocket from 'ws';
import { createLockServer } from '../../../js/server/index.js';
import { createLockManager } from '../../../js/remote/node.js';

/** authorize(req): the `space` query parameter, `refuse=401|403` refuses. */
export function queryAuthorize(req) {
  const params = new URL(req.url, 'http://any').searchParams;
  if (params.get('refuse') === '403') return false;
  return params.get('space'); // null (absent): 401
}

/** Starts a lock server on 127.0.0.1; t.after closes it. */
export async function startServer(t, options = {}) {
  const httpServer = http.createServer(options.app ?? ((req, res) => { res.statusCode = 404; res.end(); }));
  const lockServer = createLockServer({ authorize: queryAuthorize, ...options, app: undefined });
  lockServer.attach(httpServer, { path: '/locks' });
  await new Promise((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
  const port = httpServer.address().port;
  const managers = [];
  const manager = (space = 's1', extra = '') => {
    const locks = createLockManager({ url: `ws://127.0.0.1:${port}/locks?space=${encodeURIComponent(space)}${extra}` });
    managers.push(locks);
    return locks;
  };
  t.after(async () => {
    for (const locks of managers) locks.close();
    await lockServer.close();
    httpServer.closeAllConnections?.();
    await new Promise((resolve) => httpServer.close(resolve));
  });
  return { httpServer, lockServer, port, manager, url: (space = 's1') => `ws://127.0.0.1:${port}/locks?space=${space}` };
}

/** Calls `check` every few ms until it returns a truthy value; gives up (failing the test) after 60 s. */
export async function until(check, what = 'condition') {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`never: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** A request whose callback holds until released: { granted (promise of the lock), release(value), done (request's outcome) }. */
export function hold(locks, name, options = {}) {
  let release;
  let grantedResolve;
  const granted = new Promise((resolve) => { grantedResolve = resolve; });
  const done = locks.request(name, options, (lock) => {
    grantedResolve(lock);
    if (lock === null) return null;
    return new Promise((resolve) => { release = resolve; });
  }).then((value) => ({ ok: true, value }), (error) => ({ ok: false, name: error.name, message: error.message }));
  return { granted, done, release: (value) => release(value) };
}

export const named = (list, name) => list.filter((info) => info.name === name);

/** A raw client, welcomed; `frames` collects what the server sends it. */
export async function rawClient(url) {
  const socket = new WebSocket(url);
  socket.on('error', () => {});
  await once(socket, 'open');
  const frames = [];
  const waiters = [];
  socket.on('message', (data) => {
    frames.push(JSON.parse(String(data)));
    for (const waiter of waiters.splice(0)) waiter();
  });
  socket.send(JSON.stringify({ t: 'hello', v: 1 }));
  let s = 0;
  const client = {
    socket,
    frames,
    /** Sends the frames in one write (one TCP segment on loopback): the server reads them in one turn. */
    sendTogether(...list) {
      socket._socket.cork();
      for (const frame of list) socket.send(JSON.stringify({ ...frame, s: ++s, a: 0 }));
      socket._socket.uncork();
    },
    async frameFor(type, id) {
      for (;;) {
        const found = frames.find((f) => f.t === type && f.id === id);
        if (found !== undefined) return found;
        await new Promise((resolve) => waiters.push(resolve));
      }
    },
  };
  await client.frameFor('welcome', undefined);
  return client;
}
