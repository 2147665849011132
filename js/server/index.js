// "weblocks-wasm/server": one lock space per space key, served to remote clients
// (weblocks-wasm/remote) over WebSocket on the app's own HTTP server. docs/remote.md.
import '../node/supported-node.js';
import { timingSafeEqual } from 'node:crypto';
import { WebSocketServer } from './load-ws.js';
import { checkServerOptions } from './options.js';
import { originAllowed } from './origin.js';
import { Space } from './space.js';
import { processLocks } from './process-locks.js';
import { machineLocks } from './machine-locks.js';
// (By a specifier in a variable: js/etcd stays out of tsconfig.checkjs.json's program, as before.)
const ETCD_LOCKS = './etcd-locks.js';
const { etcdLocks } = await import(ETCD_LOCKS);
import { Session } from './session.js';
import { Connection } from './connection.js';
import { FenceError, lockOfRequest, openTicket } from './fence.js';
import { observeSource } from '../api/observe-locks.js';

const REASONS = { 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 503: 'Service Unavailable' };

class LockServer {
  #spaces = new Map();     // space key -> Space
  #sessions = new Map();   // session id -> Session
  #connections = new Set();
  #detaches = [];
  #wss;
  #pinger;
  #lastFence;
  #closed = false;
  #lost = 0;               // connections lost to an unanswered ping, since start

  constructor(options) {
    this.options = checkServerOptions(options);
    this.#wss = new WebSocketServer({ noServer: true, maxPayload: this.options.maxFrameBytes, perMessageDeflate: false });
    // Each round is judged after the I/O already waiting has been read (setImmediate runs after the
    // event loop's poll): a server whose thread was held up past the interval (a long task of the
    // app, a GC pause, a stopped process) finds first the pongs that came meanwhile, which a round
    // run straight from the timer took for missing (tests/node/remote/liveness.test.js: 4 live
    // clients of 5 lost).
    this.#pinger = setInterval(() => setImmediate(() => {
      if (!this.#closed) for (const c of this.#connections) c.ping();
    }), this.options.pingInterval);
    this.#pinger.unref();
    // Fencing tokens grow across restarts of this process too, as long as its clock does not go back.
    this.#lastFence = Date.now() * 1000;
  }

  nextFencingToken() {
    this.#lastFence = Math.max(this.#lastFence + 1, Date.now() * 1000);
    return this.#lastFence;
  }

  /** Serves WebSocket upgrades on `path` of `httpServer`; returns a function that stops. */
  attach(httpServer, { path = '/weblocks' } = {}) {
    if (typeof httpServer?.on !== 'function') throw new TypeError('lockServer.attach(httpServer): an http(s).Server is required.');
    if (typeof path !== 'string' || !path.startsWith('/')) throw new TypeError('lockServer.attach: `path` is a path starting with "/".');
    const onUpgrade = (req, socket, head) => {
      if (pathOf(req.url) !== path) return; // another path: the app's (or another listener's)
      this.#upgrade(req, socket, head);
    };
    httpServer.on('upgrade', onUpgrade);
    const detach = () => httpServer.off('upgrade', onUpgrade);
    this.#detaches.push(detach);
    return detach;
  }

  /** Handles one upgrade request yourself (attach() does this for you). */
  handleUpgrade(req, socket, head) {
    this.#upgrade(req, socket, head);
  }

  async #upgrade(req, socket, head) {
    socket.on('error', () => {});
    if (this.#closed) return refuseUpgrade(socket, 503);
    if (!originAllowed(req, this.options.origins)) return refuseUpgrade(socket, 403);
    let key;
    try {
      key = await this.options.authorize(req);
    } catch {
      return refuseUpgrade(socket, 403);
    }
    if (key === null || key === undefined) return refuseUpgrade(socket, 401);
    if (key === false || (typeof key !== 'string' && typeof key !== 'number')) return refuseUpgrade(socket, 403);
    if (this.#closed || socket.destroyed) return refuseUpgrade(socket, 503);
    this.#wss.handleUpgrade(req, socket, head, (ws) => {
      const connection = new Connection(this, ws, String(key));
      this.#connections.add(connection);
    });
  }

  // ---- for connections ----

  #space(key) {
    let space = this.#spaces.get(key);
    if (space === undefined) {
      space = new Space(key, this.#backendLocks(key), (idle) => { if (this.#spaces.get(key) === idle) this.#spaces.delete(key); });
      this.#spaces.set(key, space);
    }
    return space;
  }

  #backendLocks(key) {
    const { backend } = this.options;
    if (backend === 'process') return processLocks();
    if (backend === 'machine') return machineLocks(key, this.options.machineFolder === undefined ? {} : { folder: this.options.machineFolder });
    return etcdLocks(key, backend.etcd);
  }

  /** `resumed`: a session of a server process that died, to adopt (connection.js adopt). */
  newSession(key, resumed) {
    if (this.#sessions.size >= this.options.maxConnections) return 'tooManyConnections';
    const space = this.#space(key);
    if (space.sessions.size >= this.options.maxConnectionsPerSpace) return 'tooManyConnections';
    if (resumed !== undefined && this.#sessions.has(resumed.session)) return 'sessionGone';
    const session = new Session(this, space, resumed);
    space.sessions.add(session);
    this.#sessions.set(session.id, session);
    return session;
  }

  /** Whether a resume of a session this process does not have may adopt it from the space's backend. */
  mayAdopt(key) {
    return this.options.backend === 'machine' && !this.#closed;
  }

  findSession(id, secret, key) {
    const session = typeof id === 'string' ? this.#sessions.get(id) : undefined;
    if (session === undefined || session.ended || session.space.key !== key || !sameSecret(session.secret, secret)) return null;
    return session;
  }

  sessionEnded(session) {
    this.#sessions.delete(session.id);
    session.space.sessions.delete(session);
  }

  connectionGone(connection) {
    this.#connections.delete(connection);
  }

  connectionLost() {
    this.#lost++;
  }

  // ---- for the app ----

  /**
   * Resolves to a ticket when the lock named by req's headers (lockHeaders(lock)) is held now in
   * req's own authorized space; rejects with an error whose `status` is 400, 401, 403 or 409.
   */
  async fence(req) {
    const wanted = lockOfRequest(req);
    let key;
    try {
      key = await this.options.authorize(req);
    } catch {
      throw new FenceError(403, 'fence(req): authorize(req) threw.');
    }
    if (key === null || key === undefined) throw new FenceError(401, 'fence(req): not authorized (authorize(req) gave no space key).');
    if (key === false || (typeof key !== 'string' && typeof key !== 'number')) throw new FenceError(403, 'fence(req): authorize(req) refused.');
    const space = this.#spaces.get(String(key));
    const grant = space?.currentGrant(wanted.name, wanted.fencingToken);
    if (grant === undefined || (wanted.mode !== undefined && wanted.mode !== grant.mode)) {
      throw new FenceError(409, `fence(req): the lock '${wanted.name}' with fencing token ${wanted.fencingToken} is not held now in this space.`);
    }
    return openTicket(space, grant, this.options.ticketTimeout);
  }

  /** observeLocks on one space: observeLocks(callback, { space, names, signal }); returns stop(). */
  observeLocks(callback, options = {}) {
    const key = options?.space;
    if (typeof key !== 'string' && typeof key !== 'number') throw new TypeError('lockServer.observeLocks: `space` (a space key) is required.');
    const space = this.#space(String(key));
    space.observers++;
    const { space: _, ...rest } = options;
    let stopped = false;
    const stopSource = observeSource(space.source(), callback, rest);
    return () => {
      if (stopped) return;
      stopped = true;
      space.observers--;
      stopSource();
      space.checkIdle();
    };
  }

  /** query() of one space, as a client of it would see it. */
  query(space) {
    const found = this.#spaces.get(String(space));
    if (found === undefined) return Promise.resolve({ held: [], pending: [] });
    return found.query().then((s) => ({ held: s.held.map(info), pending: s.pending.map(info) }));
  }

  /** Counts, for monitoring (and tests that wait for the server to see something). */
  stats() {
    let detached = 0;
    for (const session of this.#sessions.values()) if (session.connection === null) detached++;
    return { connections: this.#connections.size, sessions: this.#sessions.size, detached, lost: this.#lost, spaces: this.#spaces.size };
  }

  /** Closes every connection (code 1001) and ends every session: their locks are released. */
  async close() {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#pinger);
    for (const detach of this.#detaches) detach();
    for (const connection of this.#connections) {
      connection.dropped = true;
      try { connection.socket.close(1001, 'lock server closing'); } catch { /* gone */ }
    }
    for (const session of [...this.#sessions.values()]) session.end('server');
    await new Promise((resolve) => this.#wss.close(() => resolve()));
  }
}

/** Compares a resume's secret in constant time (it is all that stands between a session and a stranger). */
function sameSecret(expected, given) {
  if (typeof given !== 'string') return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

function info(entry) {
  return { name: entry.name, mode: entry.mode, clientId: entry.clientId };
}

function pathOf(url) {
  const q = url.indexOf('?');
  return q < 0 ? url : url.slice(0, q);
}

function refuseUpgrade(socket, status) {
  if (!socket.destroyed) {
    socket.end(`HTTP/1.1 ${status} ${REASONS[status]}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
  }
}

/**
 * A lock server: createLockServer({ authorize, backend, pingInterval, grace, origins, ... }).
 * See docs/remote.md for every option and its default.
 */
export function createLockServer(options) {
  return new LockServer(options);
}

export { FenceError };
