// One space key's lock space on the server: its locks (the backend: process-locks.js or
// machine-locks.js) and its fencing state: the grants fence() can name, and the open tickets that
// keep a lock from passing on.

export class Space {
  /**
   * @param {string} key
   * @param {{ newClient(clientId: string, session?: any): any, source(): any, query(): Promise<any>, dispose(): void, adopts?: boolean }} locks
   * @param {(space: Space) => void} onIdle  called when nothing of it is left (the server forgets it)
   */
  constructor(key, locks, onIdle = () => {}) {
    this.key = key;
    this.locks = locks;
    this.onIdle = onIdle;
    this.clients = 0;               // clients not closed yet (a session's outlives it while its requests settle)
    this.sessions = new Set();
    this.observers = 0;             // lockServer.observeLocks callers on this space
    this.current = new Map();       // name -> Map(fencingToken -> grant): locks held now (fence() can name them)
    this.tickets = new Map();       // name -> Set of open tickets
  }

  /**
   * A new client for a session: { clientId, locks, close() } (close: agent termination, spec 2.6),
   * and where the backend can adopt (machine-locks.js) useToken, claim and adopt.
   */
  newClient(clientId, session) {
    const client = this.locks.newClient(clientId, session);
    this.clients++;
    let closed = false;
    return {
      ...client,
      close: () => {
        if (closed) return;
        closed = true;
        Promise.resolve().then(client.close).catch(() => {}).finally(() => {
          this.clients--;
          this.checkIdle();
        });
      },
    };
  }

  /** Whether a session of a server process that died can be taken over (a backend that keeps its locks: 'machine'). */
  get adopts() {
    return this.locks.adopts === true;
  }

  /** observeLocks's source (js/api/observe-locks.js) for this space. */
  source() {
    return this.locks.source();
  }

  query() {
    return this.locks.query();
  }

  /**
   * Forgotten only once nothing of it is left: a new session of the same key then gets a new engine,
   * which must never run beside this one while a lock of this one is still held (under a ticket).
   */
  checkIdle() {
    if (this.sessions.size === 0 && this.clients === 0 && this.observers === 0 && this.tickets.size === 0) {
      this.locks.dispose();
      this.onIdle(this);
    }
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

  /** The open tickets of other grants on the grant's name that conflict with its mode. */
  blockingTickets(grant) {
    const set = this.tickets.get(grant.name);
    if (set === undefined) return [];
    return [...set].filter((t) => t.grant !== grant && (t.mode === 'exclusive' || grant.mode === 'exclusive'));
  }

  /** Whether a new grant must wait for tickets (a thief's grant, steal, for those of the lock it took). */
  ticketsBlock(grant) {
    return this.tickets.has(grant.name) && this.blockingTickets(grant).length !== 0;
  }

  /** Resolves once no open ticket of another grant conflicts with the grant (ticketsBlock). */
  async ticketsClear(grant) {
    for (;;) {
      const blocking = this.blockingTickets(grant);
      if (blocking.length === 0) return;
      await Promise.all(blocking.map((t) => t.closed));
    }
  }
}
