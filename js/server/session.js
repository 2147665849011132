// One remote client on the server: its engine client in its space, the requests it made, and the
// frames it has not acknowledged yet. A session outlives its connection by `grace` when the
// connection is lost without a close (docs/remote.md, "Liveness and grace"): a resume on a new
// connection picks it up, frames and all.
import { randomBytes, randomUUID } from 'node:crypto';
import { S, ACK_EVERY } from '../remote/protocol.js';

const GONE_WHY = {
  closed: 'The lock was released: the connection to the lock server closed.',
  grace: 'The lock was released: the connection to the lock server was lost for longer than its grace period.',
  server: 'The lock was released: the lock server closed.',
  refused: 'The lock was released: the lock server closed this connection (see the close code).',
};

export class Session {
  constructor(server, space) {
    this.server = server;
    this.space = space;
    this.id = randomUUID();
    this.secret = randomBytes(18).toString('base64url');
    const client = space.newClient(randomUUID());
    this.clientId = client.clientId; // as query() shows it (the machine backend names its own)
    this.locks = client.locks;
    this.closeClient = client.close;
    this.entries = new Map();    // client request id -> entry
    this.outstanding = 0;        // requests not settled + queries in flight + observers
    this.observers = new Map();  // client observer id -> stop()
    this.sent = 0;               // last sequence number sent
    this.received = 0;           // last sequence number received
    this.ackedToClient = 0;      // last `a` we sent
    this.outbox = [];            // [seq, text] not acknowledged yet
    this.connection = null;
    this.graceTimer = null;
    this.ended = false;
  }

  // ---- frames out ----

  send(frame) {
    if (this.ended) return;
    frame.s = ++this.sent;
    frame.a = this.received;
    this.ackedToClient = this.received;
    const text = JSON.stringify(frame);
    this.outbox.push([frame.s, text]);
    if (this.outbox.length > this.server.options.maxUnacked) {
      this.connection?.refuse('notReading', 'too many frames unacknowledged');
      this.end('refused');
      return;
    }
    this.connection?.sendText(text);
  }

  /** Unsequenced frames (observer pushes, acks): lost with the connection, never resent. */
  sendLoose(frame) {
    if (this.ended) return;
    frame.a = this.received;
    this.ackedToClient = this.received;
    this.connection?.sendText(JSON.stringify(frame));
  }

  acknowledged(seq) {
    const outbox = this.outbox;
    let drop = 0;
    while (drop < outbox.length && outbox[drop][0] <= seq) drop++;
    if (drop !== 0) outbox.splice(0, drop);
  }

  /** A new connection takes the session: what the client has not received is sent again. */
  attach(connection, clientReceived, resumed) {
    clearTimeout(this.graceTimer);
    this.graceTimer = null;
    const old = this.connection;
    this.connection = connection;
    if (old !== null && old !== connection) old.supersede();
    this.acknowledged(clientReceived);
    connection.sendText(JSON.stringify({
      t: S.welcome, session: this.id, secret: this.secret, clientId: this.clientId,
      received: this.received, grace: this.server.options.grace, resumed,
    }));
    for (const [, text] of this.outbox) connection.sendText(text);
    // Observers' pushes were lost with the old connection: each starts over from a snapshot.
    for (const [id, observer] of this.observers) observer.restart(id);
  }

  /** The connection was lost without a close: keep everything for `grace`. */
  detach(connection) {
    if (this.connection !== connection || this.ended) return;
    this.connection = null;
    this.graceTimer = setTimeout(() => this.end('grace'), this.server.options.grace);
    this.graceTimer.unref?.();
  }

  // ---- frames in (already checked by the connection: connection.js) ----

  receive(frame) {
    this.received = frame.s;
    if (this.received - this.ackedToClient >= ACK_EVERY) this.sendLoose({ t: S.ack });
  }

  request(id, name, mode, wait) {
    const controller = wait === 'wait' ? new AbortController() : undefined;
    const entry = { id, name, mode, state: 'pending', controller, grant: null, hold: null, told: false, done: null };
    this.entries.set(id, entry);
    this.outstanding++;
    const options = { mode, ifAvailable: wait === 'no-wait', steal: wait === 'preempt' };
    if (controller !== undefined) options.signal = controller.signal;
    entry.done = this.locks.request(name, options, (lock) => this.granted(entry, lock)).then(
      () => this.settled(entry, null),
      (error) => this.settled(entry, error),
    );
  }

  async granted(entry, lock) {
    if (lock === null) {
      entry.state = 'done';
      this.send({ t: S.notAvailable, id: entry.id });
      return;
    }
    const grant = {
      name: lock.name, mode: lock.mode, fencingToken: lock.fencingToken ?? this.server.nextFencingToken(),
      session: this, tickets: new Set(),
    };
    entry.grant = grant;
    entry.state = 'held';
    const held = new Promise((resolve) => { entry.hold = resolve; });
    if (this.ended) {
      entry.state = 'done';
      return;
    }
    this.space.addGrant(grant);
    // A stolen lock's open tickets still guard its resource: the thief starts after them.
    await this.space.ticketsClear(grant.name, grant.mode, grant);
    if (entry.state === 'held') {
      entry.told = true;
      this.send({ t: S.granted, id: entry.id, fence: grant.fencingToken });
    }
    await held;
    // Released by its holder (or its session ended): its open tickets keep it until they are done.
    await Promise.all([...grant.tickets].map((ticket) => ticket.closed));
  }

  settled(entry, error) {
    if (entry.grant !== null) this.space.endGrant(entry.grant);
    if (error === null) {
      if (entry.state !== 'lost') this.outstanding--;
      if (entry.state === 'releasing') this.send({ t: S.released, id: entry.id, held: true });
      if (entry.state !== 'lost') this.entries.delete(entry.id);
      entry.state = entry.state === 'lost' ? 'lost' : 'done';
      return;
    }
    if ((entry.state === 'held' || entry.state === 'releasing') && entry.told) {
      // Stolen while held: the client's request() rejects with this AbortError's message.
      // A lost entry stays (and counts in maxOutstanding) until its holder's release: a client
      // stealing from itself in a loop cannot grow it without bound.
      const releasing = entry.state === 'releasing';
      entry.state = 'lost';
      this.send({ t: S.lost, id: entry.id, why: error.message });
      if (releasing) this.finishRelease(entry);
      return;
    }
    this.outstanding--;
    // (Stolen before its grant was told, while a ticket held it back: for the client, a request
    // that failed with the steal's AbortError.)
    entry.hold?.();
    if (entry.state === 'aborting') {
      this.entries.delete(entry.id);
      this.send({ t: S.aborted, id: entry.id, removed: true });
      return;
    }
    this.entries.delete(entry.id);
    this.send({ t: S.failed, id: entry.id, name: error?.name ?? 'Error', message: String(error?.message ?? error) });
  }

  /** A request or query over maxOutstanding: refused alone, with a QuotaExceededError. */
  refuseOverLimit(id) {
    this.send({
      t: S.failed, id, name: 'QuotaExceededError',
      message: `The lock server refused this call: this client has ${this.outstanding} requests and queries open, the server's maxOutstanding.`,
    });
  }

  release(id) {
    const entry = this.entries.get(id);
    if (entry === undefined || entry.state === 'lost') {
      if (entry !== undefined) this.finishRelease(entry);
      else this.send({ t: S.released, id, held: false });
      return;
    }
    if (entry.state !== 'held') return; // a release of a request never granted: the client's mistake, ignored
    entry.state = 'releasing';
    this.space.endGrant(entry.grant); // fence() refuses its token from now on
    entry.hold();
  }

  finishRelease(entry) {
    this.entries.delete(entry.id);
    this.outstanding--;
    entry.hold?.(); // its server-side callback ends too (its lock went long ago)
    this.send({ t: S.released, id: entry.id, held: false });
  }

  abort(id) {
    const entry = this.entries.get(id);
    if (entry === undefined || entry.state !== 'pending' || entry.controller === undefined) {
      this.send({ t: S.aborted, id, removed: false });
      return;
    }
    entry.state = 'aborting';
    entry.controller.abort();
  }

  query(id) {
    this.outstanding++;
    this.locks.query().then((snapshot) => {
      this.outstanding--;
      this.send({ t: S.snapshot, id, held: snapshot.held, pending: snapshot.pending });
    }, (error) => {
      this.outstanding--;
      this.send({ t: S.failed, id, name: error?.name ?? 'Error', message: String(error?.message ?? error) });
    });
  }

  observe(id) {
    if (this.observers.has(id)) return;
    this.outstanding++;
    const observer = {
      stop: null,
      restart: (oid) => {
        observer.stop?.();
        observer.stop = this.space.source().observe({
          start: (snapshot) => this.sendLoose({ t: S.observeStart, id: oid, snapshot }),
          changes: (records, snapshot) => this.sendLoose({ t: S.observeChanges, id: oid, records, snapshot }),
        });
      },
    };
    this.observers.set(id, observer);
    observer.restart(id);
  }

  unobserve(id) {
    const observer = this.observers.get(id);
    if (observer === undefined) return;
    this.observers.delete(id);
    this.outstanding--;
    observer.stop?.();
  }

  // ---- the end ----

  /**
   * The session ends: its waiting requests are aborted and its locks released (after their open
   * fence tickets), then its engine client is closed. `why` names the cause (GONE_WHY).
   */
  end(why) {
    if (this.ended) return;
    this.ended = true;
    this.why = GONE_WHY[why] ?? GONE_WHY.closed;
    clearTimeout(this.graceTimer);
    for (const observer of this.observers.values()) observer.stop?.();
    this.observers.clear();
    for (const entry of this.entries.values()) {
      if (entry.grant !== null) this.space.endGrant(entry.grant);
      if (entry.state === 'pending' && entry.controller !== undefined) entry.controller.abort();
      else if (entry.state === 'held' || entry.state === 'releasing' || entry.state === 'lost') entry.hold();
    }
    this.outbox = [];
    this.server.sessionEnded(this);
    // Locks under open tickets are released when their tickets close; the engine client closes
    // then (its close would release them at once). Waits pass through the abort above.
    // The client closes once every request of it has settled: its locks released (after their
    // open tickets) and its waits aborted, each through the LockManager as a release or an abort
    // would be; closing the client first would end them all at once, tickets or not.
    const settling = [...this.entries.values()].map((entry) => entry.done);
    Promise.all(settling).then(() => setImmediate(this.closeClient));
  }
}
