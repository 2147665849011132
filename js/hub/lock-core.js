// The lock core of the hub: spec 4.1-4.5 (request, release, abort, query, steal, deadlock) for
// every client the hub serves, on one lock engine. It knows connections only as clients with a
// `send`: no ports, no handshake, no liveness (hub-transport.js and hub.js build on it). The
// hooks (admit, held, queued, dropped, ...) are what a hub that keeps a journal learns
// (js/machine/machine-hub.js overrides them).
import { MODE, WAIT, STATUS, EVENT, REQUEST_FLAGS } from '../engine/index.js';
import { EngineObserver, engineObservers } from '../api/engine-observer.js';
import { describeCycle } from '../api/observe-shared.js';
import { LIMITS, LIVENESS, C, H } from './protocol.js';
import { Quota } from './quota.js';
import { cutSnapshot } from './snapshot-pieces.js';
import { randomUuid } from '../api/random-id.js';
/** @import { HubMessage } from './protocol.js' */
/** @import { HubConnection } from './connection.js' */

const WAIT_CODES = { wait: WAIT.wait, 'no-wait': WAIT.noWait, preempt: WAIT.preempt };

// A connection's token states.
export const PENDING = 0;
export const HELD = 1;
export const DEFERRED = 2; // taken during the reclaim window; not in the engine yet

export class LockCore {
  /**
   * @param engine  an Engine (js/engine): the hub is its only user
   * @param {object} [options] the Hub's (hub.js): hubId, now, log, liveness, limits
   */
  constructor(engine, options = {}) {
    this.engine = engine;
    this.hubId = options.hubId ?? randomUuid();
    this.now = options.now ?? (() => performance.now());
    this.logger = options.log ?? defaultLog;
    this.liveness = { ...LIVENESS, ...options.liveness };
    /** @type {Set<HubConnection>} */
    this.connections = new Set();
    this.quota = new Quota(options.limits);
    /** @type {Map<string, HubConnection>} clientId -> live Connection */
    this.clientIds = new Map();
    this.seq = 0;               // orders queued requests across clients (sent to them for reclaim)
    this.orderTimer = null;     // pending batch of queue order
    this.grantsToSend = [];     // [conn, token]: grants of this turn, sent after its losses (deliverEvents)
    this.deferred = [];         // new requests held back during the window: [conn, token]
    this.deferredQueries = [];  // queries made during the window, answered after those requests: [conn, call]
  }

  log(level, text) {
    this.logger(level, `[weblocks hub ${this.hubId.slice(0, 8)}] ${text}`);
  }

  /** A message refused: counted, and logged (rate-limited). @param {HubConnection} conn */
  reject(conn, reason, message) {
    conn.rejections++;
    // Rate-limited so that a flood cannot flood the console.
    if (conn.rejections <= 10 || conn.rejections % 1000 === 0) {
      let shown = '';
      try { shown = JSON.stringify(message)?.slice(0, 120) ?? String(message); } catch { shown = typeof message; }
      this.log('warn', `rejected a message from ${conn.clientId ?? 'an unregistered client'} (${reason}): ${shown} [${conn.rejections} rejected]`);
    }
  }
  /** New requests (and queries) wait (a reclaim window, the start-up hold: hub-handshake.js says when). */
  holdingBack() {
    return false;
  }

  /** A request held back (deferred) is forgotten: aborted before it reached the engine. @param {HubConnection} conn */
  unqueue(conn, token) {
    this.deferred = this.deferred.filter(([c, t]) => c !== conn || t !== token);
  }

  /** The requests held back, in arrival order, then the queries made after them. */
  admitDeferred() {
    const deferred = this.deferred;
    this.deferred = [];
    for (const [conn, token] of deferred) this.submit(conn, token);
    this.deliverEvents();
    for (const [conn, call] of this.deferredQueries.splice(0)) this.query(conn, call);
    return deferred.length;
  }

  // ---- requests ----

  /** @param {HubConnection} conn */
  request(conn, m) {
    const cost = m.cost ?? 0;
    if (m.token <= conn.maxToken) {
      this.quota.refund(conn, cost);
      return this.reject(conn, 'token reused', m);
    }
    if (conn.tokens.size >= LIMITS.tokensPerClient) {
      conn.maxToken = m.token;
      this.quota.refund(conn, cost);
      return conn.send({ t: H.failed, token: m.token, name: 'QuotaExceededError', message: 'Too many outstanding lock requests from this context.' });
    }
    conn.maxToken = m.token;
    conn.tokens.set(m.token, { id: 0, state: DEFERRED, entry: m, cost });
    if (this.holdingBack()) {
      this.deferred.push([conn, m.token]);
      return undefined;
    }
    this.submit(conn, m.token);
    this.deliverEvents();
    return undefined;
  }

  /** Hands a request (new, or re-registered) to the engine: spec 4.1 "request a lock". @param {HubConnection} conn */
  submit(conn, token) {
    const record = conn.tokens.get(token);
    if (record === undefined || record.state !== DEFERRED || conn.client === null) return;
    const { name, mode } = record.entry;
    const wait = record.entry.wait ?? 'wait';
    let answer;
    try {
      // Made inside the callback of a lock this connection holds: the engine looks for a deadlock.
      const outer = record.entry.under === undefined ? undefined : conn.tokens.get(record.entry.under);
      if (outer !== undefined && outer.state === HELD) {
        const flags = record.entry.reject === true ? REQUEST_FLAGS.rejectDeadlock : 0;
        answer = this.engine.request(conn.client, name, MODE[mode], WAIT_CODES[wait], outer.id, flags);
      } else {
        answer = this.engine.request(conn.client, name, MODE[mode], WAIT_CODES[wait]);
      }
    } catch (error) {
      this.dropToken(conn, token, record);
      const name = error?.code === 'NO_MEMORY' ? 'QuotaExceededError' : 'OperationError';
      conn.send({ t: H.failed, token, name, message: `The lock engine refused the request: ${error?.message ?? error}` });
      return;
    }
    if (answer.status === STATUS.notAvailable) {
      this.dropToken(conn, token, record);
      conn.send({ t: H.notAvailable, token });
      return;
    }
    if (answer.status === STATUS.deadlock) {
      this.dropToken(conn, token, record);
      conn.send({ t: H.failed, token, name: 'OperationError', message: `The request would close a deadlock: ${describeCycle(answer.cycle)}.` });
      this.pokeObservers();
      return;
    }
    record.id = answer.id;
    conn.tokenOfId.set(answer.id, token);
    if (answer.status === STATUS.granted) {
      record.state = HELD;
      // A steal's grant waits for its victims' news (deliverEvents, which every caller runs next).
      this.held(conn, token, record);
      if (wait === 'preempt') this.grantsToSend.push([conn, token]);
      else this.sendGrant(conn, token);
    } else {
      record.state = PENDING;
      record.seq = ++this.seq;
      this.queued(conn, token, record);
      conn.unsentOrder.push(token);
      if (this.orderTimer === null) this.orderTimer = setTimeout(() => this.sendQueueOrder(), this.liveness.QUEUE_ORDER_BATCH);
    }
  }

  /**
   * Tells each client where its requests that still wait stand among everyone's, in one message
   * per client. Only a re-registration after a hub loss needs it, so it waits for a batch: most
   * contended requests are granted before and cost no message (a request younger than the batch
   * re-registers after the ordered ones of its client; docs/browser.md).
   */
  sendQueueOrder() {
    this.orderTimer = null;
    for (const conn of this.connections) {
      if (conn.unsentOrder.length === 0) continue;
      const seqs = [];
      for (const token of conn.unsentOrder) {
        const record = conn.tokens.get(token);
        if (record !== undefined && record.state === PENDING) seqs.push(token, record.seq);
      }
      conn.unsentOrder = [];
      if (seqs.length !== 0) conn.send({ t: H.queued, seqs });
    }
  }

  /** @param {HubConnection} conn */
  release(conn, token) {
    const record = conn.tokens.get(token);
    if (record === undefined) {
      // Stolen or aborted while the release was in flight is normal; a token never issued is forged.
      if (token > conn.maxToken) this.reject(conn, 'release of a token never issued', { t: C.release, token });
      else this.releaseHandled(conn, token);
      return;
    }
    if (record.state !== HELD) return this.reject(conn, 'release of a request not granted', { t: C.release, token });
    this.forgetToken(conn, token, record);
    this.engine.release(conn.client, record.id);
    this.releaseHandled(conn, token);
    this.deliverEvents();
    return undefined;
  }

  /** @param {HubConnection} conn */
  abort(conn, token) {
    const record = conn.tokens.get(token);
    if (record === undefined) {
      if (token > conn.maxToken) this.reject(conn, 'abort of a token never issued', { t: C.abort, token });
      return conn.send({ t: H.aborted, token, removed: false });
    }
    let removed = false;
    if (record.state === DEFERRED) {
      removed = true;
      this.forgetToken(conn, token, record);
      this.unqueue(conn, token);
    } else if (record.state === PENDING) {
      removed = this.engine.abort(conn.client, record.id);
      if (removed) this.forgetToken(conn, token, record);
    }
    conn.send({ t: H.aborted, token, removed });
    if (removed) this.deliverEvents();
    return undefined;
  }

  /** spec 4.5 query(): the snapshot, in bounded pieces (snapshot-pieces.js), or refused with a clear error. @param {HubConnection} conn */
  query(conn, call) {
    // Spec 3.2.2 step 4: the snapshot is taken on the lock task queue, after the steps of every
    // request made before it. Requests held back by an open window are not in the engine yet:
    // the query waits with them and is answered once they are.
    if (this.holdingBack()) {
      this.deferredQueries.push([conn, call]);
      return;
    }
    const pieces = cutSnapshot(this.engine.snapshotColumns());
    conn.flush(); // the pieces are posted one by one (each bounded), after what was sent before
    if (pieces === null) {
      return conn.send({ t: H.queryFailed, call, name: 'QuotaExceededError', message: `The lock state is larger than query() returns (${LIMITS.queryBytes} bytes).` });
    }
    for (const piece of pieces) {
      try {
        conn.postNow(/** @satisfies {HubMessage} */ ({ t: H.snapshot, call, held: piece.held, pending: piece.pending, more: piece.more }));
      } catch (error) {
        this.log('warn', `could not send a query answer to ${conn.clientId}: ${error?.message}`);
        return conn.send({ t: H.queryFailed, call, name: 'UnknownError', message: `The lock hub could not send the answer to query(): ${error?.message ?? error}` });
      }
    }
    return undefined;
  }


  forgetToken(conn, token, record) {
    this.dropToken(conn, token, record);
    if (record.id !== 0) conn.tokenOfId.delete(record.id);
  }

  /** The hub keeps nothing more of this token: its bytes go back to the connection's quota. @param {HubConnection} conn */
  dropToken(conn, token, record) {
    conn.tokens.delete(token);
    this.quota.refund(conn, record.cost ?? 0);
    this.dropped(conn, token, record);
  }


  // ---- what a hub that keeps a journal (js/machine/machine-hub.js) learns; nothing here ----

  /** Opens `conn`'s engine client as `clientId` and starts hearing its doorbell. @param {HubConnection} conn */
  openClient(conn, clientId) {
    conn.clientId = clientId;
    conn.client = this.engine.openClient(clientId);
    const bell = this.engine.doorbell(conn.client);
    conn.bell = bell.int32;
    conn.bellIndex = bell.index;
    conn.seenBell = Atomics.load(conn.bell, conn.bellIndex);
    this.clientIds.set(clientId, conn);
  }

  /** Null when the hub accepts this hello's client, else why not (its hello is refused, reason 'process'). */
  admit(conn, hello) { return null; } // eslint-disable-line no-unused-vars

  /** A client registered (after its hello was accepted, before its welcome). */
  registered(conn, hello) {} // eslint-disable-line no-unused-vars

  /** `conn` (a new port) took over `old`'s client (resume.js); `hello` is its hello. */
  resumed(conn, old, hello) {} // eslint-disable-line no-unused-vars

  /** What a resumed client's welcome says besides the protocol's fields (resume.js). */
  resumeDetails(conn, hello) { return {}; } // eslint-disable-line no-unused-vars

  /** A request of `conn` became held: before anyone is told. */
  held(conn, token, record) {} // eslint-disable-line no-unused-vars

  /** A request of `conn` waits in the engine's queue. */
  queued(conn, token, record) {} // eslint-disable-line no-unused-vars

  /** The hub dropped a token of `conn` (released, stolen, aborted, refused). */
  dropped(conn, token, record) {} // eslint-disable-line no-unused-vars

  /** `conn`'s client is about to be closed (agent termination): everything it held or waited for goes. */
  closing(conn) {} // eslint-disable-line no-unused-vars

  /** A release from `conn` was handled (every news of its loss was sent before). */
  releaseHandled(conn, token) {} // eslint-disable-line no-unused-vars

  /** Whether a hello with `key` may take over the live connection `holder` of the same clientId. */
  sameContext(holder, key) {
    return holder.key === key;
  }

  /** @param {HubConnection} conn */
  sendGrant(conn, token) {
    conn.send({ t: H.granted, token });
  }


  // ---- observers (observeLocks) ----

  /** @param {HubConnection} conn */
  observe(conn, call) {
    conn.observers ??= new Map();
    // Asked again (a resumed connection after a hub change): start over.
    this.unobserve(conn, call);
    const send = (start, records, snapshot) => conn.send({ t: H.changes, call, start, records, held: snapshot.held, pending: snapshot.pending });
    let observer;
    try {
      observer = new EngineObserver(this.engine, {
        start: (snapshot) => send(true, [], snapshot),
        changes: (records, snapshot) => send(false, records, snapshot),
      });
    } catch (error) {
      return conn.send({ t: H.changes, call, start: true, records: [], held: [], pending: [], failed: String(error?.message ?? error) });
    }
    conn.observers.set(call, observer);
    return undefined;
  }

  /** @param {HubConnection} conn */
  unobserve(conn, call) {
    const observer = conn.observers?.get(call);
    if (observer === undefined) return;
    conn.observers.delete(call);
    observer.stop();
  }

  /** After engine calls: observers read the journal (nothing to do while nobody observes). */
  pokeObservers() {
    const observers = /** @type {any} (made on first use) */ (this).observerList ??= engineObservers(this.engine);
    for (let i = 0; i < observers.length; i++) observers[i].poke();
  }

  // ---- engine events ----

  /** After every engine call: tell each client what happened to its requests (grants, steals). */
  deliverEvents() {
    this.pokeObservers();
    // Every holder that lost its lock in this turn is told before anyone is told of a grant: a hub
    // that dies between two of these messages (its process killed) must never leave a thief
    // running while a victim was not told (the victim would re-register the lock it believes it
    // holds with the next hub). A grant whose loss follows in this same turn goes just before it.
    const grants = this.grantsToSend;
    this.grantsToSend = [];
    for (const conn of this.connections) {
      // (After every engine call, over every connection: the session's own fields, not the
      // connection's accessors, which cost several times more per read.)
      const session = conn.session;
      if (session.client === null || session.tokenOfId.size === 0) continue;
      // An engine on ordinary (not shared) memory detaches its views when its memory grows.
      if (session.bell.length === 0) session.bell = this.engine.doorbell(session.client).int32;
      const bell = Atomics.load(session.bell, session.bellIndex);
      if (bell === session.seenBell) continue;
      session.seenBell = bell;
      const events = this.engine.takeEvents(session.client);
      const lost = new Set();
      for (const { type, id } of events) if (type === EVENT.stolen) lost.add(id);
      for (const { type, id } of events) {
        const token = conn.tokenOfId.get(id);
        if (token === undefined) continue;
        const record = conn.tokens.get(token);
        if (type === EVENT.granted) {
          if (record.state === HELD) continue;
          record.state = HELD;
          this.held(conn, token, record);
          if (lost.has(id)) this.sendGrant(conn, token);
          else grants.push([conn, token]);
        } else if (type === EVENT.deadlock) {
          if (record.state === PENDING) conn.send({ t: H.deadlock, token, cycle: this.engine.deadlockCycle(conn.client, id) });
        } else if (type === EVENT.stolen) {
          // A steal of this turn whose lock another steal of this turn took: its grant first.
          const waiting = grants.findIndex(([c, t]) => c === conn && t === token);
          if (waiting >= 0) {
            grants.splice(waiting, 1);
            this.sendGrant(conn, token);
          }
          this.forgetToken(conn, token, record);
          conn.send({ t: H.stolen, token });
        }
      }
    }
    for (const [conn, token] of grants) {
      if (conn.tokens.get(token)?.state === HELD) this.sendGrant(conn, token);
    }
  }

}

function defaultLog(level, text) {
  (console[level] ?? console.log).call(console, text);
}
