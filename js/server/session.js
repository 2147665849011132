// One remote client on the server: its engine client in its space, the requests it made, and the
// frames it has not acknowledged yet. A session outlives its connection by `grace` when the
// connection is lost without a close (docs/remote.md, "Liveness and grace"): a resume on a new
// connection picks it up, frames and all.
import { randomBytes, randomUUID } from 'node:crypto';
import { S, ACK_EVERY } from '../remote/protocol.js';

// A request's life on the server.
const PENDING = 'pending';     // sent to the backend, not answered
const HELD = 'held';           // granted (or, adopted, told held before the backend granted it back)
const RELEASING = 'releasing'; // the client released it: the backend's release follows its open tickets
const LOST = 'lost';           // taken away while told: kept until its holder's release
const ABORTED = 'aborted';     // aborted by the client or the session's end: a late grant is released untold
const DONE = 'done';
const STOLEN = 'The lock was stolen by another request.';

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
    this.backend = client.backend;   // the lock space's client (docs/api.md, "The backend contract")
    this.closeClient = client.close;
    this.clientClosed = false;
    this.keepingClient = 0;      // requests the engine client must outlive (closeClientIfDone)
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
   * was made: the lock space looks for a deadlock through it (`reject`: one that would close a
   * certain deadlock rejects with an OperationError).
   * The request goes to the backend directly (docs/api.md, "The backend contract"), its entry the
   * listener: no LockManager, promise or AbortSignal between a frame and the lock space.
   */
  request(id, name, mode, wait, adopted, under, reject = false) {
    // What request() itself refuses (spec request() steps 5 and 7), for a client that did not ask
    // through a LockManager: the backend takes any name and mode.
    const refused = name.charCodeAt(0) === 0x2d ? "Names starting with '-' are reserved."
      : wait === 'preempt' && mode !== 'exclusive' ? "The 'steal' option may only be used with 'exclusive' locks." : null;
    if (refused !== null) {
      this.send({ t: S.failed, id, name: 'NotSupportedError', message: refused });
      return;
    }
    const told = adopted === 'held' || adopted === 'releasing';
    const entry = new RemoteRequest(this, id, name, mode, wait, adopted, told);
    this.entries.set(id, entry);
    this.outstanding++;
    this.keepingClient++;
    // Its token in the lock space is its id (machine-locks.js): an adopter names it so.
    if (adopted !== undefined) this.client.claim(id, told);
    else this.client.useToken?.(id);
    const outer = under === undefined ? undefined : this.entries.get(under);
    const within = outer !== undefined && outer.hasGrant && outer.state === HELD ? { under: outer.token } : undefined;
    if (within === undefined) {
      entry.token = this.backend.request(name, mode, wait, entry, undefined);
      return;
    }
    this.client.setDeadlock?.(reject ? 'reject' : 'report');
    try { entry.token = this.backend.request(name, mode, wait, entry, within); } finally { this.client.setDeadlock?.(undefined); }
  }

  // ---- the backend's answers (RemoteRequest passes them on) ----

  onGranted(entry, answer) {
    entry.hasGrant = true;
    if (entry.state === ABORTED || this.ended) {
      // Aborted (or its session ended) while the grant was on its way: released untold.
      entry.state = ABORTED;
      this.releaseInBackend(entry);
      return;
    }
    const grant = {
      name: entry.name, mode: entry.mode, fencingToken: answer?.fencingToken ?? this.server.nextFencingToken(),
      session: this, tickets: new Set(),
    };
    entry.grant = grant;
    if (entry.state === RELEASING) { // (an adopted lock its client released before it came back)
      this.releaseInBackend(entry);
      return;
    }
    entry.state = HELD;
    this.space.addGrant(grant);
    // A stolen lock's open tickets still guard its resource: the thief starts after them.
    if (this.space.ticketsBlock(grant)) this.space.ticketsClear(grant).then(() => this.tell(entry));
    else this.tell(entry);
  }

  tell(entry) {
    if (entry.state !== HELD || this.ended) return; // stolen meanwhile, or its session ended (end() released it)
    if (entry.adopted === 'releasing') this.release(entry.id); // (its release may not have reached the old process)
    else if (!entry.told) {
      entry.told = true;
      this.send({ t: S.granted, id: entry.id, fence: entry.grant.fencingToken });
    }
  }

  onNotAvailable(entry) {
    this.leave(entry);
    if (entry.state !== PENDING) return;
    this.drop(entry);
    this.send({ t: S.notAvailable, id: entry.id });
  }

  /** Taken away while held (a steal, the lock space's word): `why` becomes the client's AbortError. */
  onStolen(entry, why) {
    this.leave(entry);
    if (entry.grant !== null) this.space.endGrant(entry.grant);
    if (entry.state !== HELD && entry.state !== RELEASING) return;
    if (entry.told) {
      // The client's request() rejects with this AbortError's message. A lost entry stays (and
      // counts in maxOutstanding) until its holder's release: a client stealing from itself in a
      // loop cannot grow it without bound.
      const releasing = entry.state === RELEASING || entry.adopted === 'releasing';
      entry.state = LOST;
      this.send({ t: S.lost, id: entry.id, why });
      if (releasing) this.finishLost(entry);
      return;
    }
    // Stolen before its grant was told, while a ticket held it back: for the client, a request
    // that failed with the steal's AbortError.
    this.drop(entry);
    this.send({ t: S.failed, id: entry.id, name: 'AbortError', message: why });
  }

  onFailed(entry, error) {
    const message = String(error?.message ?? error);
    if (entry.told && (entry.state === HELD || entry.state === RELEASING)) {
      this.onStolen(entry, message);
      return;
    }
    this.leave(entry);
    if (entry.state === ABORTED || entry.state === DONE) return;
    this.drop(entry);
    this.send({ t: S.failed, id: entry.id, name: error?.name ?? 'Error', message });
  }

  /** The request is out of the backend (released, refused, stolen, aborted). */
  leave(entry) {
    entry.inBackend = false;
    this.letGo(entry);
  }

  /** The engine client need not outlive the request: it closes after the last (closeClientIfDone). */
  letGo(entry) {
    if (!entry.keepsClient) return;
    entry.keepsClient = false;
    this.keepingClient--;
    this.closeClientIfDone();
  }

  /** No longer the client's business: it stops counting, and fence() no longer names its lock. */
  drop(entry) {
    if (entry.grant !== null) this.space.endGrant(entry.grant);
    entry.state = DONE;
    this.outstanding--;
    this.entries.delete(entry.id);
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
    if (entry === undefined) {
      this.send({ t: S.released, id, held: false });
      return;
    }
    if (entry.state === LOST) {
      this.finishLost(entry);
      return;
    }
    if (entry.state !== HELD) return; // a release of a request never granted: the client's mistake, ignored
    entry.state = RELEASING;
    if (entry.grant !== null) this.space.endGrant(entry.grant); // fence() refuses its token from now on
    if (entry.hasGrant) this.releaseAfterTickets(entry);
    // (else an adopted lock not granted back yet: released when it is, onGranted)
  }

  /** Released by its holder (or its session ended): its open tickets keep it until they are done. */
  releaseAfterTickets(entry) {
    const tickets = entry.grant?.tickets;
    if (tickets === undefined || tickets.size === 0) this.releaseInBackend(entry);
    else Promise.all([...tickets].map((ticket) => ticket.closed)).then(() => this.releaseInBackend(entry));
  }

  releaseInBackend(entry) {
    if (!entry.inBackend || this.clientClosed) return; // stolen meanwhile (told then), or the client is closed
    // A lock found gone calls onStolen from inside release(); a remote lock space's release
    // answers with a promise, and calls it before resolving (docs/api.md, "The backend contract").
    const answer = this.backend.release(entry.token);
    if (answer !== undefined && answer !== null && typeof answer.then === 'function') {
      const done = () => this.released(entry);
      answer.then(done, done);
    } else {
      this.released(entry);
    }
  }

  released(entry) {
    this.leave(entry);
    if (entry.state !== RELEASING) return; // lost meanwhile (the client was told), aborted or its session ended
    this.drop(entry);
    this.send({ t: S.released, id: entry.id, held: true });
  }

  /** The holder's release of a lock it had lost: the lock went long ago. */
  finishLost(entry) {
    this.drop(entry);
    this.send({ t: S.released, id: entry.id, held: false });
  }

  abort(id) {
    const entry = this.entries.get(id);
    if (entry === undefined || entry.state !== PENDING || entry.wait !== 'wait') {
      this.send({ t: S.aborted, id, removed: false });
      return;
    }
    // Removed for the client at once; a grant already on its way is released untold (onGranted).
    entry.state = ABORTED;
    this.outstanding--;
    this.entries.delete(id);
    this.abortInBackend(entry);
    this.send({ t: S.aborted, id, removed: true });
  }

  abortInBackend(entry) {
    this.backend.abort(entry.token).then((removed) => { if (removed) this.leave(entry); }, () => this.letGo(entry));
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
      if (entry.state === PENDING) {
        // A wait is aborted; a grant already on its way is released untold (onGranted). The
        // client need not wait for the answer: its close (agent termination, spec 2.6) ends
        // whatever comes late. A no-wait or preempt request settles by itself, soon.
        entry.state = ABORTED;
        if (entry.wait === 'wait') {
          this.abortInBackend(entry);
          this.letGo(entry);
        }
      } else if (entry.state === HELD) {
        entry.state = RELEASING;
        if (entry.hasGrant) this.releaseAfterTickets(entry);
        // (else an adopted lock not granted back yet: released when it is, onGranted)
      }
    }
    this.outbox = [];
    this.server.sessionEnded(this);
    // Locks under open tickets are released when their tickets close; the engine client closes
    // once every request of it is out of the backend (closing it first would release them all at
    // once, tickets or not).
    this.closeClientIfDone();
  }

  closeClientIfDone() {
    if (!this.ended || this.keepingClient !== 0 || this.clientClosed) return;
    this.clientClosed = true;
    setImmediate(this.closeClient);
  }
}

/** One request of the client: the backend's listener for it (docs/api.md, "The backend contract"). */
class RemoteRequest {
  constructor(session, id, name, mode, wait, adopted, told) {
    this.session = session;
    this.id = id;
    this.name = name;
    this.mode = mode;
    this.wait = wait;
    this.adopted = adopted;
    this.told = told;         // the client was told it holds the lock
    this.state = told ? HELD : PENDING;
    this.hasGrant = false;    // the backend granted it
    this.inBackend = true;    // the backend has it: release() or abort() may be called
    this.keepsClient = true;  // counted in the session's keepingClient
    this.token = 0;           // the backend's
    this.grant = null;        // { name, mode, fencingToken, session, tickets }: what fence() can name
  }

  granted(token, answer) { this.session.onGranted(this, answer); }
  notAvailable() { this.session.onNotAvailable(this); }
  stolen(token, message) { this.session.onStolen(this, typeof message === 'string' ? message : STOLEN); }
  failed(token, error) { this.session.onFailed(this, error); }
}
