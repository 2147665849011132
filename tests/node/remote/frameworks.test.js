// lockServer.attach(httpServer, { path }) on the HTTP servers of Express, Fastify, Koa and Vite's dev
// server, wired as docs/remote.md shows ("With Express, Fastify, Koa, Vite"). On each, beside an
// ordinary app route and an app-owned WebSocket on another path (Vite: its own HMR socket), two
// Node clients hand one name over in order, an app route checks lockServer.fence(req) (a ticket
// for the lock held now, 409 for a released one), and close() leaves the app serving.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebSocket, WebSocketServer } from 'ws';
import express from 'express';
import Fastify from 'fastify';
import Koa from 'koa';
import { createServer as createViteServer } from 'vite';
import { createLockServer } from '../../../js/server/index.js';
import { createLockManager, lockHeaders } from '../../../js/remote/node.js';
import { queryAuthorize, until, hold, named } from './support.js';

const ticketInfo = (ticket) => ({ name: ticket.name, fencingToken: ticket.fencingToken, space: ticket.space });

/** The app's own WebSocket on `path` (as with ws: noServer, routed by path; other paths are left alone). */
function appWebSocket(httpServer, path) {
  const wss = new WebSocketServer({ noServer: true });
  httpServer.on('upgrade', (req, socket, head) => {
    if (new URL(req.url, 'http://any').pathname !== path) return; // not ours (the lock server's /locks)
    wss.handleUpgrade(req, socket, head, (ws) => ws.send('app socket'));
  });
  return wss;
}
const APP_SOCKET = { path: '/app-ws', protocol: undefined, greeting: 'app socket' };

/** Express's and Koa's own Node HTTP server (listening on loopback): the lock server and the app's socket on it. */
async function served(server, lockServer, hello) {
  lockServer.attach(server, { path: '/locks' });
  const sockets = appWebSocket(server, APP_SOCKET.path);
  await new Promise((resolve) => server.once('listening', resolve));
  return {
    port: server.address().port, hello, appSocket: APP_SOCKET,
    close: async () => { sockets.close(); server.closeAllConnections(); await new Promise((resolve) => server.close(resolve)); },
  };
}

const frameworks = {
  async express(lockServer) {
    const app = express();
    app.get('/hello', (req, res) => res.send('express'));
    app.post('/save', async (req, res) => {
      const ticket = await lockServer.fence(req); // a FenceError (status 409, 401/403, 400) goes to the error handler
      try { res.json(ticketInfo(ticket)); } finally { ticket.done(); }
    });
    app.use((error, req, res, next) => res.status(error.status ?? 500).send(error.message));
    return served(app.listen(0, '127.0.0.1'), lockServer, 'express');
  },

  async fastify(lockServer) {
    const app = Fastify();
    app.get('/hello', async () => 'fastify');
    app.post('/save', async (request) => {
      const ticket = await lockServer.fence(request.raw); // Fastify answers a thrown error with its .status
      try { return ticketInfo(ticket); } finally { ticket.done(); }
    });
    lockServer.attach(app.server, { path: '/locks' });
    const sockets = appWebSocket(app.server, APP_SOCKET.path);
    await app.listen({ port: 0, host: '127.0.0.1' });
    return {
      port: app.server.address().port, hello: 'fastify', appSocket: APP_SOCKET,
      close: async () => { sockets.close(); app.server.closeAllConnections(); await app.close(); },
    };
  },

  async koa(lockServer) {
    const app = new Koa();
    app.silent = true; // (Koa would log each 409 to stderr)
    app.use(async (ctx, next) => {
      if (ctx.method === 'GET' && ctx.path === '/hello') ctx.body = 'koa';
      else if (ctx.method === 'POST' && ctx.path === '/save') {
        const ticket = await lockServer.fence(ctx.req); // Koa answers a thrown error with its .status
        try { ctx.body = ticketInfo(ticket); } finally { ticket.done(); }
      } else await next();
    });
    return served(app.listen(0, '127.0.0.1'), lockServer, 'koa');
  },

  async vite(lockServer) {
    const root = await mkdtemp(join(tmpdir(), 'weblocks-vite-'));
    const lockServerPlugin = {
      name: 'lock-server',
      configureServer(server) {
        lockServer.attach(server.httpServer, { path: '/locks' });
        server.middlewares.use('/hello', (req, res) => res.end('vite'));
        server.middlewares.use('/save', async (req, res) => {
          try {
            const ticket = await lockServer.fence(req);
            try { res.setHeader('content-type', 'application/json'); res.end(JSON.stringify(ticketInfo(ticket))); } finally { ticket.done(); }
          } catch (error) {
            res.statusCode = error.status ?? 500;
            res.end(error.message);
          }
        });
      },
    };
    const vite = await createViteServer({
      root, configFile: false, logLevel: 'silent', plugins: [lockServerPlugin],
      server: { middlewareMode: false, host: '127.0.0.1', port: 0, watch: null },
      optimizeDeps: { noDiscovery: true, include: [] },
    });
    await vite.listen();
    return {
      port: vite.httpServer.address().port, hello: 'vite',
      // Vite's own HMR socket: the base path with the 'vite-hmr' subprotocol; it greets with { type: 'connected' }.
      appSocket: { path: '/', protocol: 'vite-hmr', greeting: JSON.stringify({ type: 'connected' }) },
      close: async () => { await vite.close(); await rm(root, { recursive: true, force: true }); },
    };
  },
};

async function save(port, headers) {
  const response = await fetch(`http://127.0.0.1:${port}/save?space=s1`, { method: 'POST', headers });
  const text = await response.text();
  return { status: response.status, body: response.ok ? JSON.parse(text) : text };
}

/** The app's own route and WebSocket answer as without the lock server. */
async function appStillServes(app, when) {
  assert.equal(await (await fetch(`http://127.0.0.1:${app.port}/hello`)).text(), app.hello, `the app's route, ${when}`);
  const { path, protocol, greeting } = app.appSocket;
  const socket = new WebSocket(`ws://127.0.0.1:${app.port}${path}`, protocol);
  const first = await new Promise((resolve, reject) => {
    socket.once('message', (data) => resolve(String(data)));
    socket.once('error', reject);
  });
  assert.equal(first, greeting, `the app's own WebSocket, ${when}`);
  // And it stays open (nothing else took or closed its socket): a ping gets its pong.
  socket.ping();
  const after = await new Promise((resolve) => { socket.once('pong', () => resolve('pong')); socket.once('close', () => resolve('closed')); });
  socket.close();
  assert.equal(after, 'pong', `the app's own WebSocket stays open, ${when}`);
}

for (const [framework, mount] of Object.entries(frameworks)) {
  test(`${framework}: two clients hand one lock over in order through /locks; fence(req) in an app route; the app's route and socket keep working, also after close()`, async (t) => {
    const lockServer = createLockServer({ authorize: queryAuthorize });
    const app = await mount(lockServer);
    const url = `ws://127.0.0.1:${app.port}/locks?space=s1`;
    const [a, b] = [createLockManager({ url }), createLockManager({ url })];
    t.after(async () => { a.close(); b.close(); await lockServer.close(); await app.close(); });

    await appStillServes(app, 'with the lock server mounted');

    // a holds 'doc'; b queues behind it and is not granted while a holds.
    const first = hold(a, 'doc');
    const lockA = await first.granted;
    const second = hold(b, 'doc');
    let secondGranted = false;
    second.granted.then(() => { secondGranted = true; });
    const state = await until(async () => { const s = await b.query(); return named(s.pending, 'doc').length === 1 && s; }, 'b waits for doc');
    assert.equal(named(state.held, 'doc').length, 1);
    assert.equal(secondGranted, false, 'b is not granted while a holds');

    // The app's endpoint under a's lock: a ticket for it.
    const fenced = await save(app.port, lockHeaders(lockA));
    assert.equal(fenced.status, 200, fenced.body);
    assert.deepEqual(fenced.body, { name: 'doc', fencingToken: lockA.fencingToken, space: 's1' });

    // a releases: b gets it with a later token; a's token is stale now (409), b's is current.
    first.release();
    const lockB = await second.granted;
    assert.ok(lockB.fencingToken > lockA.fencingToken);
    assert.equal((await save(app.port, lockHeaders(lockA))).status, 409, 'a released: its token is not current');
    assert.equal((await save(app.port, lockHeaders(lockB))).body.fencingToken, lockB.fencingToken);
    assert.equal((await save(app.port, {})).status, 400, 'no lock headers');

    // And back: a queues behind b, gets it only after b releases.
    const third = hold(a, 'doc');
    await until(async () => named((await a.query()).pending, 'doc').length === 1, 'a waits for doc');
    second.release();
    const lockA2 = await third.granted;
    assert.ok(lockA2.fencingToken > lockB.fencingToken);
    third.release();
    assert.deepEqual([(await first.done).ok, (await second.done).ok, (await third.done).ok], [true, true, true]);

    // close(): the clients' connections end; the app goes on serving its route and socket.
    await lockServer.close();
    assert.equal(lockServer.stats().connections, 0);
    await appStillServes(app, 'after lockServer.close()');
  });
}
