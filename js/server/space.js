// One space key's lock space on the server, backend 'process': an engine of this project in this
// process (ordinary memory), one engine client per remote session, so the engine's queues, steal,
// ifAvailable, abort, query() and its journal (observeLocks) serve the remote clients as they serve
// contexts of one agent. Also the space's fencing state: the grants fence() can name, and the open
// tickets that keep a lock from passing on.
import { createLocalEngine } from '../engine/index.js';
import { EngineBackend } from '../api/engine-backend.js';
import { DeferredBackend } from '../api/local-backend.js';
import { createLockManager } from '../api/lock-manager.js';
import { engineSource } from '../api/engine-observer.js';

export class Space {
  /** @param {string} key  @param {(space: Space) => void} onIdle  called when nothing of it is left (the server forgets it) */
  constructor(key, onIdle = () => {}) {
    this.key = key;
    this.onIdle = onIdle;
    this.clients = 0;               // engine clients not closed yet (a session's outlive it while tickets are open)
    this.engine = createLocalEngine();
    this.engine.catch(() => {});
    this.sessions = new Set();
    this.observers = 0;             // lockServer.observeLocks callers on this space
    this.current = new Map();       // name -> Map(fencingToken -> grant): locks held now (fence() can name them)
    this.tickets = new Map();       // name -> Set of open tickets
  }

  /** A new engine client for a session: its LockManager, and how to end it (agent termination). */
  newClient(clientId) {
    const backend = new DeferredBackend(clientId, this.engine.then((engine) => new EngineBackend(engine, clientId)));
    this.clients++;
    let closed = false;
    return {
      locks: createLockManager(backend),
      close: () => {
        if (closed) return;
        closed = true;
        backend.start().then((target) => target.close(), () => {}).finally(() => {
          this.clients--;
          this.checkIdle();
        });
      },
    };
  }

  /** observeLocks's source (js/api/observe-locks.js) for this space. */
  source() {
    return {
      observe: (sink) => {
        let stop = null;
        let stopped = false;
        this.engine.then((engine) => { if (!stopped) stop = engineSource(engine).observe(sink); }, () => {});
        return () => { stopped = true; stop?.(); };
      },
    };
  }

  query() {
    return this.engine.then((engine) => engine.snapshot());
  }

  /**
   * Forgotten only once nothing of it is left: a new session of the same key then gets a new engine,
   * which must never run beside this one while a lock of this one is still held (under a ticket).
   */
  checkIdle() {
    if (this.sessions.size === 0 && this.clients === 0 && this.observers === 0 && this.tickets.size === 0) this.onIdle(this);
  }

  // ---- fencing ----

  addGrant(grant) {
    let byToken = this.current.get(grant.name);
    if (byToken === undefined) this.current.set(grant.name, byToken = new Map());
    byToken.set(grant.fencingToken, grant);
  }

  /** The lock is no longer its holder's (released, lost, stolen): fence() refuses its token from now on. */
  endGrant(grant) {
    const byToken = this.current.get(grant.name);
    if (byToken === undefined || byToken.get(grant.fencingToken) !== grant) return;
    byToken.delete(grant.fencingToken);
    if (byToken.size === 0) this.current.delete(grant.name);
  }

  currentGrant(name, fencingToken) {
    return this.current.get(name)?.get(fencingToken);
  }

  openTicket(ticket) {
    let set = this.tickets.get(ticket.name);
    if (set === undefined) this.tickets.set(ticket.name, set = new Set());
    set.add(ticket);
  }

  closeTicket(ticket) {
    const set = this.tickets.get(ticket.name);
    if (set === undefined || !set.delete(ticket)) return;
    if (set.size === 0) this.tickets.delete(ticket.name);
    this.checkIdle();
  }

  /**
   * Resolves once no open ticket of another grant on `name` conflicts with `mode`: a thief's grant
   * (steal) waits here for the tickets of the lock it took.
   */
  async ticketsClear(name, mode, grant) {
    for (;;) {
      const set = this.tickets.get(name);
      if (set === undefined) return;
      const blocking = [...set].filter((t) => t.grant !== grant && (t.mode === 'exclusive' || mode === 'exclusive'));
      if (blocking.length === 0) return;
      await Promise.all(blocking.map((t) => t.closed));
    }
  }
}
