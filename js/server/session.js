// One remote client on the server: its engine client in its space, the requests it made, and the
// frames it has not acknowledged yet. A session outlives its connection by `grace` when the
// connection is lost without a close (docs/remote.md, "Liveness and grace"): a resume on a new
// connection picks it up, frames and all.
import { randomBytes, randomUUID } from 'node:crypto';
import { S, ACK_EVERY } from '../remote/protocol.js';
import { currentHeld, runInsideHeld } from '../api/async-context.js';

const GONE_WHY = {
  closed: 'The lock was released: the connection to the lock server closed.',
  grace: 'The lock was released: the connection to the lock server was lost for longer than its grace period.',
  server: 'The lock was released: the lock server closed.',
  refused: 'The lock was released: the lock server closed this connection (see the close code).',
};

export class Session {
  /**
   * @param {{ session: string, secret: string, received: number, sent: number }} [resumed] a session
   *   of a server process that died, to adopt (adopt()): its id, secret, and where its frames were
   */
  constructor(server, space, resumed) {
    this.server = server;
    this.space = space;
    this.id = resumed?.session ?? randomUUID();
    this.secret = resumed?.secret ?? randomBytes(18).toString('base64url');
    const client = space.newClient(randomUUID(), { id: this.id, secret: this.secret, grace: server.options.grace });
    this.clientId = client.clientId; // as query() shows it (the machine backend names its own)
    this.locks = client.locks;
    this.client = client;
    this.closeClient = client.close;
    this.entries = new Map();    // client request id -> entry
    this.outstanding = 0;        // requests not settled + queries in flight + observers
    this.observers = new Map();  // client observer id -> stop()
    // (an adopted session goes on with the numbers the client had: its frames so far are moot)
    this.sent = resumed?.received ?? 0;  // last sequence number sent
    this.received = resumed?.sent ?? 0;  // last sequence number received
    this.ackedToClient = this.received;  // last `a` we sent
    this.outbox = [];            // [seq, text] not acknowledged yet
    this.connection = null;
    this.graceTimer = null;
    this.ended = false;
  }

  /**
   * Takes over a session of a server process that died (docs/remote.md, "Server restarts"): the
   * machine lock space kept its client for the grace (machine-hub.js "Leases"); `requests` is what
   * the remote client says it had (connection.js checks it). Held locks come back held, with their
   * fencing tokens, or are told lost; waits keep their places; a release or an abort the old
   * process may not have handled is done now; queries are answered and observers started again.
   * Rejects when the lock space no longer has the client (its lease ran out): nothing was changed.
   * @param {{ id: number, name: string, mode: string, wait: string, state: string }[]} requests
   */
  async adopt(requests, queries, observers) {
    const adoption = this.client.adopt();
    adoption.catch(() => {});
    for (const r of requests) {
      const held = r.state === 'held' || r.state === 'releasing';
      // (a steal in flight waits as a plain request, as in a browser context's hello: hub-link.js)
      this.request(r.id, r.name, r.mode, held || r.wait === 'preempt' ? 'wait' : r.wait, held ? r.state : 'waiting');
    }
    await adoption;
    for (const r of requests) if (r.state === 'aborting') this.abort(r.id);
    for (const id of queries) this.query(id);
    for (const id of observers) this.observe(id);
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

  /**
   * The connection was lost without a close: keep everything for `grace` from `since` (the ping
   * that went unanswered: connection.js lost; the close, if it closed).
   */
  detach(connection, adopted = false, since = Date.now()) {
    if ((this.connection !== connection && !adopted) || this.ended) return;
    this.connection = null;
    this.graceTimer = setTimeout(() => this.end('grace'), Math.max(0, since + this.server.options.grace - Date.now()));
    this.graceTimer.unref?.();
  }

  // ---- frames in (already checked by the connection: connection.js) ----

  receive(frame) {
    this.received = frame.s;
    if (this.received - this.ackedToClient >= ACK_EVERY) this.sendLoose({ t: S.ack });
  }

  /**
   * `adopted`: what the client had in a session adopted (adopt): 'held' or 'releasing' (a lock it
   * was told it holds), 'waiting'. `under`: the id of the client's held lock in whose callback it
   * was made: made here inside that lock's callback too, so the lock space looks for a deadlock
   * (`reject`: one that would close a certain deadlock rejects with an OperationError).
   */
  request(id, name, mode, wait, adopted, under, reject = false) {
    const controller = wait === 'wait' ? new AbortController() : undefined;
    const told = adopted === 'held' || adopted === 'releasing';
    const entry = { id, name, mode, state: told ? 'held' : 'pending', controller, grant: null, hold: null, told, adopted, done: null };
    this.entries.set(id, entry);
    this.outstanding++;
    const options = { mode, ifAvailable: wait === 'no-wait', steal: wait === 'preempt' };
    if (controller !== undefined) options.signal = controller.signal;
    // Its token in the lock space is its id (machine-locks.js): an adopter names it so.
    if (adopted !== undefined) this.client.claim(id, told);
    else this.client.useToken?.(id);
    const outer = under === undefined ? undefined : this.entries.get(under);
    const ask = () => this.locks.request(name, options, (lock) => this.granted(entry, lock));
    let asked;
    if (outer?.state === 'held' && outer.heldRequest !== undefined) {
      this.client.setDeadlock?.(reject ? 'reject' : 'report');
      try { asked = runInsideHeld(outer.heldRequest, ask); } finally { this.client.setDeadlock?.(undefined); }
    } else {
      asked = ask();
    }
    entry.done = asked.then(
      () => this.settled(entry, null),
      (error) => this.settled(entry, error),
    );
  }

  async granted(entry, lock) {
    entry.heldRequest = currentHeld(); // (this callback's own: the client's nested requests are made inside it)
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
    if (entry.adopted === 'releasing') this.release(entry.id); // (its release may not have reached the old process)
    else if (entry.state === 'held' && !entry.told) {
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
      const releasing = entry.state === 'releasing' || entry.adopted === 'releasing';
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
      else if (entry.state === 'held' || entry.state === 'releasing' || entry.state === 'lost') entry.hold?.(); // (none yet: an adopted lock not granted back)
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
