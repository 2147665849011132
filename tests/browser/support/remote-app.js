// The app of the remote specs (remote.spec.js, remote-engines.spec.js): one HTTP server on
// 127.0.0.1 serving the pages, two fenced endpoints that count who is inside (the external
// exclusion check), WebKit's remote-control channel, and the lock server on /locks; plus helpers
// for Node clients and pages (pages/remote-page.js).
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sirv from 'sirv';
import { insecureBase } from '../../support/insecure-origin.mjs';
import { createLockServer } from '../../../js/server/index.js';
import { createLockManager, lockHeaders } from '../../../js/remote/node.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const HOUR = 3_600_000;

/** The app: pages, /app/enter and /app/leave (fenced, counting who is inside), the lock server on /locks. */
export async function startApp(servers, options = {}) {
  const files = sirv(root, { dev: true, dotfiles: false });
  const check = { inside: 0, violations: 0, sections: 0, refused: 0 };
  const tickets = new Map();
  const lockServer = createLockServer({
    authorize: (req) => new URL(req.url, 'http://any').searchParams.get('space') ?? 'app',
    pingInterval: HOUR, grace: HOUR, ...options,
  });
  const server = http.createServer(async (req, res) => {
    if (servers.remote.serveWithAgent(req, res, { 'Cache-Control': 'no-store' })) return; // WebKit's tabs
    if (req.url === '/app/enter' || req.url === '/app/leave') {
      try {
        if (req.url === '/app/enter') {
          const ticket = await lockServer.fence(req);
          if (++check.inside !== 1) check.violations++;
          tickets.set(ticket.fencingToken, ticket);
        } else {
          const token = Number(req.headers['weblocks-fencing-token']);
          check.inside--;
          check.sections++;
          tickets.get(token)?.done();
          tickets.delete(token);
        }
        res.end('ok');
      } catch (error) {
        check.refused++;
        res.statusCode = error.status ?? 500;
        res.end(error.message);
      }
      return;
    }
    files(req, res, () => { res.statusCode = 404; res.end(); });
  });
  server.on('upgrade', (req, socket, head) => {
    // WebKit's remote-control channel (support/remote-control.mjs) on this origin too.
    const url = new URL(req.url, 'http://any');
    if (url.pathname === '/__remote') servers.remote.wss.handleUpgrade(req, socket, head, (ws) => servers.remote.accept(url.searchParams.get('tab'), ws));
  });
  lockServer.attach(server, { path: '/locks' });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = server.address().port;
  const nodeClients = [];
  return {
    lockServer, check, port,
    page: `${insecureBase(port)}tests/browser/pages/remote.html`,
    node(space) {
      const locks = createLockManager({ url: `ws://127.0.0.1:${port}/locks${space ? `?space=${space}` : ''}` });
      nodeClients.push(locks);
      return locks;
    },
    async close() {
      for (const locks of nodeClients) locks.close();
      await lockServer.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

export const r = (tab, method, ...args) => tab.evaluate(([m, a]) => window.remote[m](...a), [method, args]);

/** A Node request whose callback holds until released. */
export function hold(locks, name, options = {}) {
  let release;
  let grant;
  const granted = new Promise((resolve) => { grant = resolve; });
  const done = locks.request(name, options, (lock) => {
    grant(lock);
    return lock === null ? null : new Promise((resolve) => { release = resolve; });
  }).then((value) => ({ ok: true, value }), (error) => ({ ok: false, name: error.name, message: error.message }));
  return { granted, done, release: (value) => release(value) };
}

export async function until(check, what) {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`never: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
export const waiting = (app, name, n, space = 'app') => until(async () => (await app.lockServer.query(space)).pending.filter((l) => l.name === name).length === n, `${n} waiting on ${name}`);


/** n exclusive sections of a Node client through the app's fenced endpoints. */
export async function nodeLoop(app, locks, name, n) {
  for (let i = 0; i < n; i++) {
    await locks.request(name, async (lock) => {
      const headers = lockHeaders(lock);
      const enter = await fetch(`http://127.0.0.1:${app.port}/app/enter`, { method: 'POST', headers });
      if (enter.status !== 200) throw new Error(`enter: ${enter.status}`);
      await new Promise((resolve) => setImmediate(resolve));
      const leave = await fetch(`http://127.0.0.1:${app.port}/app/leave`, { method: 'POST', headers });
      if (leave.status !== 200) throw new Error(`leave: ${leave.status}`);
    });
  }
}

/** Opens the app's page in `session` (an engine's) and connects its remote lock manager. */
export async function openRemotePage(session, app, socketPath = '/locks') {
  const tab = await session.open(app.page);
  await tab.waitForFunction(() => typeof window.remote === 'object');
  await tab.evaluate((url) => window.remote.connect(url), socketPath);
  return tab;
}
