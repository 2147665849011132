// The backend (docs/api.md, "The backend contract") of one context served by the hub. It speaks
// the protocol (js/hub/protocol.js) over one MessagePort at a time, obtained from `connect()`
// (a SharedWorker's port, or one the creating context handed to this worker). It also keeps the
// context's side of liveness: it answers pings, says `bye` on pagehide, and notices a lost hub (no
// message for a while and no answer to a probe), then connects again and re-registers what it holds
// and waits for, in order (the new hub's reclaim window keeps new grants back meanwhile).
// Hub identity (docs/browser.md, "Hub loss and reclaim"): every connection's first message names
// the hub that serves it. A context registered with another hub than the one its port now reaches
// (WebKit hands surviving ports to a relaunched hub) says hello again at once; a hub that does not
// know a port answers its probes with `unregistered`. A suspected loss (silence, the sentinel's
// alarm, a new hub's announcement) is decided by opening a fresh connection and reading which hub
// greets it: a slow hub greets late with the same id, never a false loss.
import {
  PROTOCOL_VERSION, LIMITS, LIVENESS, C, H, ANNOUNCE, HELLO_THEN_TYPES, isHubMessage,
} from '../hub/protocol.js';
/** @import { ContextMessage, HelloMessage, HubMessage, RequestMessage } from '../hub/protocol.js' */
import { PendingQueries } from './snapshot-pieces.js';
import { Flow } from './flow.js';
import { RecordMap } from './outstanding.js';
import { randomUuid as randomClientId } from '../api/random-id.js';
import { warnDeadlock } from '../api/observe-shared.js';
import { terminatedWorkerRunsOn } from '../hub/terminated-worker.js';

// Why a held lock was lost other than by a steal: the AbortError's message (docs/browser.md,
// "When a live context loses a lock").
export const LOST = Object.freeze({
  declaredDead: 'The lock was released: this context and its sentinel did not answer the lock hub in time (frozen, or its process stopped), so the hub declared it dead.',
  notReclaimed: 'The lock was released: the lock hub was lost and this context could not take the lock back from its successor in time.',
  pageHidden: 'The lock was released when the page entered the back/forward cache.',
  pageHiddenWaiting: 'The request was aborted when the page entered the back/forward cache.',
});

// The life of one request, as this context sees it.
const SENT = 0;     // sent, not granted yet (waiting, its place in the queue known once `seq` is set)
const HELD = 1;     // granted
const UNSENT = 2;   // waiting in this context (flow control, no port yet): the hub knows nothing of it
const RELEASING = 3; // released after this context was silent long enough to be declared dead: its result waits for a round trip (release())
// A context's own silence of this share of DEAD_AFTER makes its releases check with the hub (its
// last message takes a while to reach the hub): 1 s of the default 1.5 s.
const RELEASE_CHECK_SHARE = 2 / 3;

// What a hello asks for again (from the records, the aborts and the queries), not from the queue.
const ASKED_AGAIN = new Set([C.request, C.abort, C.query]);
// The answers to a request: the first one handled lets the sentinel start (sendSentinelSoon).
const ANSWERS = new Set([H.granted, H.queued, H.notAvailable, H.failed]);

export class HubBackend {
  /**
   * @param connect   () => Promise<MessagePort>: a fresh port to the hub (called again after a loss)
   * @param {object} [options]   { clientId, liveness, log, now }
   */
  constructor(connect, options = {}) {
    this.connectPort = connect;
    this.connectNow = options.connectNow ?? null; // () => { port, heard } at hand now, or null (the first connection only)
    this.clientId = options.clientId ?? randomClientId();
    // A secret of this context: a hello on a new port with it resumes our connection at a live hub.
    this.key = randomClientId();
    this.liveness = { ...LIVENESS, ...options.liveness };
    this.log = options.log ?? ((level, text) => (console[level] ?? console.log).call(console, `[weblocks] ${text}`));
    this.now = options.now ?? (() => performance.now());
    this.port = null;
    this.connecting = null;     // Promise while a port is being obtained
    // Messages to the hub wait here while no port is open or the hub has not caught up (flow.js).
    this.flow = new Flow((message, transfer) => this.post(message, transfer), options.flow);
    this.hubId = null;          // the hub that welcomed us last
    this.helloEntries = null;   // reclaim entries of the hello in flight (answered by welcome)
    this.failure = null;        // a permanent error (protocol mismatch): every request fails with it
    this.asleep = false;        // between pagehide (bfcache) and pageshow
    // token -> { name, mode, wait, listener, state, seq }; whether any exists is told to `outstanding` (bfcache.js)
    this.outstanding = options.outstanding ?? null;
    this.records = new RecordMap((busy) => this.outstanding?.set(this, busy));
    this.bfcacheRule = options.bfcacheRule ?? 'release';
    this.aborts = new Map();    // token -> resolve(boolean)
    this.abortsMade = new Map(); // token -> when abort() was called (`made`)
    this.made = 0;              // counts request(), abort() and query() calls: their order, for askAgain
    this.queries = new PendingQueries(this.now); // query() answers, in pieces
    this.nextToken = 0;
    this.nextCall = 0;
    this.lastHeard = this.now();
    this.probe = null;          // { call, deadline } while a probe is unanswered
    // The first hello went on a port made before it (a window's early port) to a hub that greeted
    // it then: if no answer has come by this time, is that hub still the origin's? (check)
    this.earlyHub = null;       // { hubId, askBy }
    this.checkTimer = null;
    /** @type {any} a timer */
    this.sentinelTimer = null;  // the sentinel's port goes to the hub when it fires (sendSentinelSoon)
    this.lastCheck = 0;
    this.lastLostHub = null;
    this.clientIdRetries = 0;
    this.unwelcomedAdopts = [];  // [port, worker number, frame] for our (or a frame's) workers, held until a hub welcomes us or speaks (or we fail)
    // Same-origin frames whose calls go through this context (frame-backend.js): clientId -> its
    // Document, weakly (a frame removed without pagehide must not be kept alive by us).
    /** @type {Map<string, { deref(): any }>} */
    this.frames = new Map();
    this.identify = options.identify ?? null; // () => MessagePort | Promise<MessagePort>: a fresh connection to the origin's hub
    this.identity = null;       // the identity check in flight: { port, deadline }
    this.helloAtCall = 0;       // nextCall when the latest hello was sent (orders probes after it)
    this.sentinel = options.sentinel ?? null; // js/browser/sentinel.js: answers the hub's pings for this context
    // A window's alive database (js/browser/alive-database.js): its crash reaches the hub from the browser.
    this.aliveDatabase = options.aliveDatabase ?? null;
    this.aliveSent = null;      // the alive database's name as last sent to the hub
    // Open while we hold or wait under a hub and have no sentinel (js/browser/held-marker.js).
    this.heldMarker = options.heldMarker ?? null;
    this.gathering = null;      // while a hello is being made: what would be posted after it (sayHello)
    this.onMessage = (event) => {
      const data = event.data;
      if (data?.t !== H.batch || !Array.isArray(data.m)) { this.receive(data); return; }
      // Consecutive messages of one task of the hub (hub.js sendTo), in order; the rest of them is
      // moot once one of them made us leave this port.
      const port = this.port;
      for (const message of data.m) {
        if (this.port !== port) return;
        this.receive(message);
      }
    };
    // Hub announcements (BroadcastChannel): a fresh hub while we hold or wait under another one.
    this.channel = options.announcements ?? null;
    if (this.channel !== null) this.channel.onmessage = (event) => this.heardAnnouncement(event.data);
    /** Measurements for tests and docs: hub losses noticed, times declared dead. */
    this.stats = { hubLosses: 0, declaredDead: 0, reconnects: 0, releaseChecks: 0 };
    this.lastPosted = -Infinity; // when this context last posted to the hub (toHub)
    this.observers = new Map();  // observeLocks: call -> { sink, started }
    /** What a request that would close a certain deadlock gets: 'reject', else the global WEBLOCKS_DEADLOCK. */
    this.deadlock = options.deadlock;
  }

  // ---- the backend contract ----

  /** `as`: the clientId of the same-origin frame this request is made for (frame-backend.js), if not ours. */
  request(name, mode, wait, listener, within, as) {
    const token = ++this.nextToken;
    if (this.failure !== null || name.length > LIMITS.nameLength) {
      const error = this.failure ?? new DOMException(
        `Lock names longer than ${LIMITS.nameLength} characters are not supported by this implementation.`, 'NotSupportedError');
      queueMicrotask(() => listener.failed(token, error));
      return token;
    }
    this.records.set(token, { name, mode, wait, listener, state: UNSENT, seq: null, made: ++this.made, as });
    /** @type {RequestMessage} */
    const message = { t: C.request, token, name, mode, wait };
    if (as !== undefined) message.as = as;
    // Made inside the callback of a lock this context holds: the hub looks for a deadlock.
    if (within !== undefined && this.records.get(within.under)?.state === HELD) {
      message.under = within.under;
      if ((this.deadlock ?? globalThis.WEBLOCKS_DEADLOCK) === 'reject') message.reject = true;
    }
    this.send(message);
    this.watch();
    return token;
  }

  release(token) {
    const record = this.records.get(token);
    if (record === undefined) return undefined;
    if (record.state !== HELD) { this.records.delete(token); return undefined; } // cannot happen through the LockManager
    if (!this.flow.open) {
      // Reconnecting after a hub loss: the hello claims the lock, and its welcome says whether it
      // was still ours until now (then releases it) or not (the callback's result is not accepted).
      record.state = RELEASING;
      this.stats.releaseChecks++;
      return askNextHub(record).then(() => { if (this.records.get(token) === record) this.records.delete(token); });
    }
    // This context sent nothing for long enough that the hub may have declared it dead (a long
    // task with no sentinel to answer, a frozen page) and given the lock to another, its word of
    // it still on the way: the port is in order, so one round trip settles it, and the request's
    // result is accepted only after it (a death heard first rejects it: loseHeld).
    const unsure = this.now() - this.lastPosted >= this.liveness.DEAD_AFTER * RELEASE_CHECK_SHARE;
    // The hub handles a release on arrival, never in its inbox: it does not wait behind requests
    // that flow control keeps here (a waiter elsewhere would wait for them).
    this.toHub(record.as === undefined ? { t: C.release, token } : { t: C.release, token, as: record.as });
    if (!unsure) { this.records.delete(token); return undefined; }
    record.state = RELEASING;
    this.stats.releaseChecks++;
    // A hello sent meanwhile (the hub was lost) asks the next hub whether the lock was still ours:
    // its welcome settles `record.asked` (welcome, loseHeld).
    return this.flow.barrier().then(() => record.asked).then(() => { if (this.records.get(token) === record) this.records.delete(token); });
  }

  /**
   * Says `hello` with what follows it: what askAgain sends goes inside it (`then`, as far as it
   * carries no ports and up to LIMITS.helloThen messages), the rest right after it, in order. The
   * hub handles what a hello carries in the hello's turn, so the welcome and a first request's grant
   * come as one message (batch: true), which this context reads in one task: a page busy with its
   * own load read the hub's messages one per task, 10-16 ms apart (Chromium).
   * @param {HelloMessage} hello
   */
  sayHello(hello) {
    /** @type {[ContextMessage, Transferable[] | undefined][]} */
    const gathered = [];
    this.gathering = gathered;
    try { this.askAgain(); } finally { this.gathering = null; }
    let carried = 0;
    while (carried < gathered.length && carried < LIMITS.helloThen && !(gathered[carried][1]?.length > 0)
      && HELLO_THEN_TYPES.has(gathered[carried][0].t)) carried++;
    const posted = this.post({ ...hello, batch: true, then: gathered.slice(0, carried).map(([message]) => message) });
    for (const [message, transfer] of gathered.slice(carried)) this.toHub(message, transfer);
    if (posted) this.flow.count(); // after the messages counted before it: a sync it sends comes last
  }

  /**
   * Posts on the hub's port, and notes when: the hub counts this context's silence from its last message.
   * @param {ContextMessage} message
   * @param {Transferable[]} [transfer]
   */
  toHub(message, transfer) {
    if (this.gathering !== null) { this.gathering.push([message, transfer]); return; }
    this.lastPosted = this.now();
    this.port.postMessage(message, transfer ?? []);
  }

  abort(token) {
    const record = this.records.get(token);
    if (record === undefined || record.state === HELD) return Promise.resolve(false);
    if (this.failure !== null) return Promise.resolve(false);
    if (record.state === UNSENT) {
      // The hub never saw it: it is simply not sent (its queued message is skipped).
      this.records.delete(token);
      this.idle();
      return Promise.resolve(true);
    }
    return new Promise((resolve) => {
      this.aborts.set(token, resolve);
      this.abortsMade.set(token, ++this.made);
      this.send(record.as === undefined ? { t: C.abort, token } : { t: C.abort, token, as: record.as });
      this.watch();
    });
  }

  query() {
    if (this.failure !== null) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      const call = ++this.nextCall;
      this.queries.add(call, resolve, reject, ++this.made);
      this.send({ t: C.query, call });
      this.watch();
    });
  }

  /** observeLocks's source: the hub's lock space, observed over the protocol (C.observe, H.changes). */
  observeSource() {
    return {
      observe: (sink) => {
        const call = ++this.nextCall;
        this.observers.set(call, { sink, started: false });
        this.send({ t: C.observe, call });
        this.watch(); // (a lost hub is noticed while observing, as while waiting)
        this.observersChanged();
        return () => {
          if (!this.observers.delete(call)) return;
          if (this.port !== null && this.failure === null) this.send({ t: C.unobserve, call });
          this.observersChanged();
          this.idle();
        };
      },
    };
  }

  /** Host hook: an observer was added, answered or removed (the machine host keeps its thread alive meanwhile). */
  observersChanged() {}

  /** An observer's answer: the first starts it; a later start (a new hub) is a gap in its records. */
  observed(m) {
    const observer = this.observers.get(m.call);
    if (observer === undefined || !Array.isArray(m.records) || !Array.isArray(m.held) || !Array.isArray(m.pending)) return;
    const snapshot = { held: m.held, pending: m.pending };
    if (typeof m.failed === 'string') {
      // (Never told a state it does not have: this observer is not called.)
      this.log('warn', `observeLocks: the hub could not observe: ${m.failed.slice(0, 300)}`);
      return;
    }
    if (m.start === true && !observer.started) {
      observer.started = true;
      this.observersChanged();
      observer.sink.start(snapshot);
    } else if (m.start === true) {
      observer.sink.changes([{ type: 'lost' }], snapshot);
    } else {
      observer.sink.changes(m.records, snapshot);
    }
  }

  // ---- ports ----

  /**
   * @param {ContextMessage} message
   * @param {Transferable[]} [transfer]
   */
  send(message, transfer) {
    this.flow.enqueue(message, transfer);
    if (this.port === null && !this.asleep) this.open(null);
  }

  /**
   * Posts one message the flow lets go (flow.js); false when it is no longer wanted: a request
   * aborted (or settled) before it went, an abort or a query already answered.
   * @param {ContextMessage} message
   * @param {Transferable[]} [transfer]
   */
  post(message, transfer) {
    if (message.t === C.request) {
      const record = this.records.get(message.token);
      if (record === undefined || record.state !== UNSENT) return false;
      record.state = SENT;
    } else if (message.t === C.abort) {
      if (!this.aborts.has(message.token)) return false;
    } else if (message.t === C.query) {
      if (!this.queries.has(message.call)) return false;
    }
    this.toHub(message, transfer);
    return true;
  }

  /** Gets a port and says hello; `lostHub`: the id of a hub that died under us (reclaim). */
  open(lostHub) {
    if (this.connecting !== null) return;
    // A port already at hand for the first connection: attached now, so that the first request
    // goes out within request() itself, ahead of anything this context does after it.
    const now = this.hubId === null ? (this.connectNow?.() ?? null) : null;
    if (now !== null) { this.attach(now.port, lostHub, now.heard); return; }
    this.connecting = Promise.resolve().then(() => this.connectPort()).then((port) => {
      this.connecting = null;
      this.attach(port, lostHub);
    }, (error) => {
      this.connecting = null;
      this.fail(error instanceof Error || error instanceof DOMException
        ? error : new DOMException(String(error), 'NotSupportedError'));
    });
  }

  /** `heard`: what the hub said on `port` before (a port made before the first request). */
  attach(port, lostHub, heard = []) {
    if (this.port !== null) {
      this.port.onmessage = null;
      this.port.onmessageerror = null;
      try { this.port.close(); } catch { /* gone */ }
    }
    this.port = port;
    port.onmessage = this.onMessage;
    // An answer that cannot be deserialized is lost: a query waiting for it must not wait forever.
    port.onmessageerror = () => this.undeliverable();
    port.start?.();
    this.lastHeard = this.now();
    this.probe = null;
    for (const event of heard) this.onMessage(event);
    // A hub that greeted this port before our hello answers it at once, unless it died since (the
    // tab it ran in crashed): then a fresh connection's greeting names another hub (check).
    const greeting = heard.find((event) => event.data?.t === H.hub && typeof event.data.hubId === 'string');
    this.earlyHub = greeting === undefined ? null : { hubId: greeting.data.hubId, askBy: this.now() + this.liveness.EARLY_HUB_ANSWER_WAIT };
    if (this.earlyHub !== null) this.lastCheck = this.now();
    if (this.hubId === null) this.freshHello();
    else this.hello(lostHub);
    // After the hello has gone: its open is IndexedDB work beside the hub's own start.
    this.aliveDatabase?.open();
  }

  /**
   * No hub ever answered (the first connection, or one that never started): nothing was granted,
   * so everything is simply asked for, in order, with its own wait mode.
   */
  freshHello() {
    this.lastLostHub = null;
    this.flow.restart();
    this.helloEntries = [];
    this.helloAtCall = this.nextCall;
    // Everything is asked for again from the records.
    // No hub has any of our requests: an abort in flight settles here (the request is not sent again).
    for (const record of this.records.values()) record.state = UNSENT;
    for (const [token, resolve] of this.aborts) { this.records.delete(token); resolve(true); }
    this.aborts.clear();
    this.abortsMade.clear();
    this.sayHello({ t: C.hello, v: PROTOCOL_VERSION, clientId: this.clientId, key: this.key, lostHub: null, reclaim: [] });
  }

  /** The hello was refused for its clientId: everything sent since was dropped; again, as someone new. */
  retryHello() {
    this.clientId = randomClientId();
    if (this.hubId === null) this.freshHello();
    else this.hello(this.lastLostHub);
  }

  /**
   * After a hello: first what waited that a hello does not ask again (adopt, ended), then every
   * request the hub does not have and every abort and query still unanswered, in the order this
   * context made the calls, wherever each waited (a query after exactly the requests made before
   * it: spec 3.2.2 step 4).
   */
  askAgain() {
    for (const [message, transfer] of this.flow.takeAll()) if (!ASKED_AGAIN.has(message.t)) this.flow.enqueue(message, transfer);
    /** @type {[number, ContextMessage][]} */
    const again = [];
    for (const [token, r] of this.records) {
      if (r.state !== UNSENT) continue;
      /** @type {RequestMessage} */
      const message = { t: C.request, token, name: r.name, mode: r.mode, wait: r.wait };
      if (r.as !== undefined) message.as = r.as;
      again.push([r.made, message]);
    }
    for (const [token] of this.aborts) {
      const as = this.records.get(token)?.as;
      again.push([this.abortsMade.get(token) ?? 0, as === undefined ? { t: C.abort, token } : { t: C.abort, token, as }]);
    }
    for (const call of this.queries.keys()) {
      this.queries.restart(call);
      again.push([this.queries.madeAt(call), { t: C.query, call }]);
    }
    again.sort((a, b) => a[0] - b[0]);
    for (const [, message] of again) this.send(message);
  }

  /**
   * The handshake, with what this context must keep across a hub change: locks it holds (only
   * when the hub was lost: a hub that declared us dead has released them) and requests it waits
   * for, in their order at the old hub (seq, then token for requests it never acknowledged).
   */
  hello(lostHub) {
    const held = [];
    const waiting = [];
    for (const [token, record] of this.records) {
      if (record.state === UNSENT) continue; // still to be sent (askAgain)
      // Released after a silence that may have cost this context the lock, and the release went to
      // a hub that was lost: claimed as held, so that the next hub says whether it was still ours
      // (the welcome then releases it, or the context learns it lost it: the callback's result is
      // not accepted). A hub that was not lost answers `stolen`: a resumed connection whose
      // release arrived, or one declared dead; the first is a false alarm, never an overlap.
      if (record.state === RELEASING) askNextHub(record);
      if (record.state === HELD || record.state === RELEASING) {
        held.push(asFrame(record, { token, name: record.name, mode: record.mode, held: true, seq: null }));
      } else if (record.wait === 'wait' || record.wait === 'preempt') {
        // A steal in flight is re-sent as a plain request: the lock it would have stolen may be
        // re-registered by its holder, and a re-registered steal must not break that.
        waiting.push(asFrame(record, { token, name: record.name, mode: record.mode, held: false, seq: record.seq }));
      } else {
        // An ifAvailable request in flight: its answer was lost with the hub (a grant there died
        // with it). The next hub answers it once what survivors hold is back (spec 3.2.2 step 4:
        // "not available" only when the lock is), not this context by guessing.
        waiting.push(asFrame(record, { token, name: record.name, mode: record.mode, held: false, seq: null, wait: 'no-wait' }));
      }
    }
    waiting.sort((a, b) => (a.seq ?? Infinity) - (b.seq ?? Infinity) || a.token - b.token);
    this.helloEntries = held.concat(waiting);
    this.lastLostHub = lostHub;
    this.helloAtCall = this.nextCall;
    this.flow.restart();
    // Queries and aborts whose answer was lost: asked again (aborts: the request is re-registered);
    // requests not sent yet follow.
    this.sayHello({ t: C.hello, v: PROTOCOL_VERSION, clientId: this.clientId, key: this.key, lostHub, reclaim: this.helloEntries });
  }

  // ---- messages from the hub ----

  receive(m) {
    this.lastHeard = this.now();
    this.probe = null;
    // Our hub spoke: the ports held for our workers while it was silent go to it.
    if (this.unwelcomedAdopts.length > 0 && this.hubId !== null && this.helloEntries === null) {
      for (const [port, worker, as] of this.unwelcomedAdopts.splice(0)) this.adopt(port, worker, as);
    }
    if (!isHubMessage(m)) {
      this.log('warn', 'ignored a message that is not from the hub');
      return;
    }
    const record = m.token !== undefined ? this.records.get(m.token) : undefined;
    if (this.sentinelTimer !== null && ANSWERS.has(m.t)) this.sendSentinelSoon(0);
    switch (m.t) {
      case H.ping: this.toHub({ t: C.pong }); return;
      case H.synced: this.flow.synced(m.call); return;
      case H.overloaded:
        // Flow control keeps this from happening; should it, the cause is said and the connection resumed.
        this.log('warn', `${String(m.message).slice(0, 400)} Resuming on a new connection.`);
        this.reconnect(this.hubId);
        return;
      case H.probed: return this.idle();
      case H.welcome: return this.welcome(m);
      case H.rejected:
        // A hub of another version refuses what it cannot read (version 8: this hello's fields; 9: a
        // reclaim entry of an ifAvailable request): what it said is the only clue then. Its own
        // version mismatch message says nothing more than ours.
        if (m.v !== PROTOCOL_VERSION) return this.fail(protocolMismatch(m.v, m.reason === 'version' ? '' : String(m.message)));
        // clientIds are public (query() shows them): another connection may have taken ours.
        // Take a new one rather than give up.
        if (m.reason === 'clientId' && this.clientIdRetries++ < 5) return this.retryHello();
        return this.fail(new DOMException(m.message, m.reason === 'quota' ? 'QuotaExceededError' : 'NotSupportedError'));
      case H.granted:
        if (record === undefined || record.state === HELD || record.state === RELEASING) return;
        record.state = HELD;
        record.listener.granted(m.token);
        return;
      case H.queued: return this.queueOrder(m.seqs);
      case H.notAvailable:
        if (record === undefined) return;
        this.records.delete(m.token);
        record.listener.notAvailable(m.token);
        return this.idle();
      case H.stolen:
        if (record === undefined) return;
        this.records.delete(m.token);
        record.listener.stolen(m.token);
        return this.idle();
      case H.failed:
        if (record === undefined) return;
        this.records.delete(m.token);
        record.listener.failed(m.token, new DOMException(m.message, m.name));
        return this.idle();
      case H.aborted: {
        const resolve = this.aborts.get(m.token);
        if (resolve === undefined) return;
        this.aborts.delete(m.token);
        this.abortsMade.delete(m.token);
        if (m.removed) this.records.delete(m.token);
        resolve(m.removed);
        return this.idle();
      }
      case H.snapshot:
        if (this.queries.piece(m)) this.idle();
        return undefined;
      case H.queryFailed:
        if (this.queries.fail(m.call, new DOMException(String(m.message), String(m.name)))) this.idle();
        return undefined;
      case H.dead: return this.declaredDead(typeof m.why === 'string' ? m.why.slice(0, 300) : null);
      case H.changes: return this.observed(m);
      case H.deadlock:
        // This context's waiting request is in a certain deadlock: say so on its console.
        if (record !== undefined && Array.isArray(m.cycle)) warnDeadlock(m.cycle);
        return undefined;
      case H.hub: return this.greeted(m);
      case H.unregistered: return this.unregisteredHere(m);
      default: return undefined;
    }
  }

  /** Where requests that still wait stand among every client's: [token, seq, ...] (for reclaim). */
  queueOrder(seqs) {
    if (!Array.isArray(seqs)) return;
    for (let i = 0; i + 1 < seqs.length; i += 2) {
      const record = this.records.get(seqs[i]);
      if (record !== undefined && record.state === SENT && Number.isSafeInteger(seqs[i + 1])) record.seq = seqs[i + 1];
    }
  }

  welcome(m) {
    if (m.v !== PROTOCOL_VERSION) {
      this.fail(protocolMismatch(m.v));
      return;
    }
    const entries = this.helloEntries ?? [];
    this.helloEntries = null;
    this.hubId = m.hubId;
    for (const [port, worker, as] of this.unwelcomedAdopts.splice(0)) this.adopt(port, worker, as);
    entries.forEach((entry, i) => {
      const record = this.records.get(entry.token);
      if (record === undefined) return;
      const outcome = m.reclaimed[i];
      if (record.state === RELEASING && outcome === 'held') {
        // It was ours until now: released here, and the callback's result stands.
        this.records.delete(entry.token);
        this.toHub({ t: C.release, token: entry.token });
        record.answered?.();
        return;
      }
      if (outcome === 'held') return;
      // Queued there; a grant that arrived before this welcome (a hub of an older build sends it
      // first) stands: the context holds that lock, and its release must reach the hub.
      if (outcome === 'queued') { if (record.state !== HELD) { record.state = SENT; record.seq = null; } return; }
      // Not taken back: someone else may have it now. The holder learns as a stolen holder does.
      this.records.delete(entry.token);
      record.listener.stolen(entry.token, LOST.notReclaimed);
      record.answered?.();
    });
    // Observers answered before go on at this hub (its first answer tells them what changed
    // meanwhile); the others' first message is still on its way.
    for (const [call, observer] of this.observers) if (observer.started) this.send({ t: C.observe, call });
    this.vouch();
    this.sendSentinelSoon();
    this.sendAlive();
    this.idle();
  }

  /**
   * The hub declared this context dead (it was silent: frozen, throttled, paused in a debugger)
   * and released its locks. Held locks are lost (their promises reject with an AbortError, as on
   * a steal); waiting requests are registered again, in order.
   */
  declaredDead(why = null) {
    this.stats.declaredDead++;
    this.log('warn', 'the lock hub declared this context dead; its held locks were released' + (why === null ? '' : ` (${why})`));
    this.loseHeld(LOST.declaredDead);
    // The hub forgot our aborts with our requests: they are done.
    for (const [token, resolve] of this.aborts) { this.records.delete(token); resolve(true); }
    this.aborts.clear();
    this.abortsMade.clear();
    this.hello(null);
  }

  loseHeld(message) {
    for (const [token, record] of this.records) {
      if (record.state !== HELD && record.state !== RELEASING) continue;
      this.records.delete(token);
      record.listener.stolen(token, message);
      record.answered?.();
    }
  }

  fail(error) {
    if (this.failure === null) this.log('error', `lock requests fail: ${error.message}`);
    this.failure = error;
    const records = [...this.records];
    this.records.clear();
    for (const [token, record] of records) {
      if (record.state === HELD || record.state === RELEASING) record.listener.stolen(token);
      else record.listener.failed(token, error);
      record.answered?.();
    }
    for (const [, resolve] of this.aborts) resolve(false);
    this.aborts.clear();
    this.abortsMade.clear();
    this.queries.failAll(error);
    this.flow.takeAll();
    this.flow.close();
    for (const [port] of this.unwelcomedAdopts.splice(0)) refusePort(port, error);
    this.idle();
  }

  // ---- liveness: hub loss ----

  /** While anything is outstanding, check that the hub is alive. */
  watch() {
    if (this.checkTimer !== null) return;
    this.checkTimer = setInterval(() => this.check(), this.liveness.CLIENT_CHECK_EVERY);
    this.vouch();
  }

  /**
   * Whether anything of this context depends on the hub's answers: a request or a held lock, an
   * abort, a query, an observer (whose changes stop with a lost hub). The one definition that
   * idle(), check() and hubSilent() share.
   */
  waitsOnHub() {
    return this.records.size > 0 || this.aborts.size > 0 || this.queries.size > 0 || this.observers.size > 0;
  }

  idle() {
    if (this.checkTimer !== null && !this.waitsOnHub() && this.probe === null && this.identity === null) {
      clearInterval(this.checkTimer);
      this.checkTimer = null;
      this.vouch();
    }
  }

  /** Our sentinel speaks for us after a loss of the hub we hold or wait under, while we cannot (a long task). */
  vouch() {
    const hubId = this.checkTimer !== null && this.failure === null && !this.asleep ? this.hubId : null;
    this.sentinel?.vouch(hubId, this.clientId);
    // Until our sentinel has answered (it starts after our first answer: sendSentinelSoon), or
    // without one (none can run here, or ours failed to start), a marker is what the next hub
    // waits for if we are busy then. (It does not cover a context busy from its first callback's
    // first line: an open made just before a long task reaches Chromium's storage only after it.)
    this.heldMarker?.set(this.sentinel !== null && !this.sentinel.failed && this.sentinel.answered ? null : hubId);
  }

  /** A message from the hub could not be deserialized (which one is not known): queries reject. */
  undeliverable() {
    this.log('warn', 'a message from the lock hub could not be deserialized');
    this.queries.failAll(new DOMException('The answer of the lock hub to query() could not be delivered to this context.', 'DataCloneError'));
    this.idle();
  }

  check() {
    // A query whose answer stopped coming rejects (the answer was lost, or the hub is stuck).
    if (this.queries.size > 0 && this.queries.expire(this.liveness.QUERY_TIMEOUT ?? LIMITS.queryTimeout)) this.idle();
    // An identity check that outlived its deadline while the probe was answered: a question only.
    if (this.identity !== null && this.probe === null && this.now() >= this.identity.deadline) this.cancelIdentity();
    // Nothing outstanding any more: stop checking (here rather than on every release, so that a
    // context that requests again at once keeps its timer). A probe or identity check in flight
    // (a worker of ours asked for a port: checkSoon) is seen through first.
    if (this.frames.size > 0) this.checkFrames();
    if (!this.waitsOnHub() && this.probe === null && this.identity === null) return this.idle();
    if (this.port === null || this.asleep || this.failure !== null) return;
    const now = this.now();
    // This context was busy or throttled since the last check: messages may be waiting behind
    // us. Give the hub its full time again before judging.
    const late = now - this.lastCheck > this.liveness.CLIENT_CHECK_EVERY * 3;
    this.lastCheck = now;
    if (this.earlyHub !== null) {
      // Answered: nothing to ask. Busy meanwhile: the answer may be waiting behind us.
      if (this.helloEntries === null) this.earlyHub = null;
      else if (late) this.earlyHub.askBy = now + this.liveness.EARLY_HUB_ANSWER_WAIT;
      else if (now >= this.earlyHub.askBy) {
        this.checkIdentity(this.earlyHub.hubId);
        this.earlyHub = null;
      }
    }
    if (late && this.probe !== null && !this.probe.extended) {
      // Once per probe: a throttled background tab checks only about once a second.
      this.probe.deadline = now + this.liveness.PROBE_TIMEOUT;
      this.probe.extended = true;
    }
    if (this.probe !== null) {
      // With an identity check in flight, its answer decides (a slow hub answers late, same id).
      if (now >= this.probe.deadline && (this.identity === null || now >= this.identity.deadline)) this.hubLost();
      return;
    }
    // Silence alone is not proof (this context may have been busy): a probe and an identity check settle it.
    if (now - this.lastHeard >= this.liveness.HUB_SILENT_AFTER) {
      const call = ++this.nextCall;
      this.probe = { call, deadline: now + this.liveness.PROBE_TIMEOUT };
      this.toHub({ t: C.probe, call });
      this.checkIdentity();
    }
  }

  /**
   * A hub started while we hold or wait under another: ours may have just died. Tell the new one
   * (it then holds new grants back for our reclaim) and check ours at once.
   */
  heardAnnouncement(m) {
    if (m === null || typeof m !== 'object' || m.t !== ANNOUNCE.started || typeof m.hubId !== 'string') return;
    if (this.hubId === null || m.hubId === this.hubId || this.records.size === 0 || this.port === null) return;
    this.channel.postMessage({ t: ANNOUNCE.hadHub, hubId: this.hubId });
    this.checkIdentity();
    if (this.probe === null) {
      const call = ++this.nextCall;
      this.probe = { call, deadline: this.now() + this.liveness.PROBE_TIMEOUT };
      this.toHub({ t: C.probe, call });
    }
    this.watch();
  }

  /** Makes sure the hub answers soon (a worker of ours asked for a port: our hub may be gone). */
  checkSoon() {
    this.watch();
    if (this.port !== null && this.probe === null && this.now() - this.lastHeard >= this.liveness.PING_AFTER) {
      const call = ++this.nextCall;
      this.probe = { call, deadline: this.now() + this.liveness.PROBE_TIMEOUT };
      this.toHub({ t: C.probe, call });
    }
  }

  /** Serves this context from another kind of port from now on (a hub that never answered). */
  switchTo(connect) {
    this.connectPort = connect;
    this.connectNow = null; // a port made before (a window's early one) is the unreachable hub's
    this.identify = null; // the origin-wide hub is out of reach: nothing to compare with
    // Not connected yet (a window's early port failed before its first request): the next open() uses it.
    if (this.port !== null || this.connecting !== null) this.reconnect(this.hubId);
  }

  /**
   * The browser refused the SharedWorker behind our port (context.js startHub: the running hub was
   * started with the other lifetime setting): connect again, as the connection it replaces would have.
   */
  portRefused() {
    if (this.failure !== null) return;
    this.reconnect(this.helloEntries !== null ? this.lastLostHub : this.hubId);
  }

  hubLost() {
    this.stats.hubLosses++;
    // A hub that never answered (still starting on a loaded machine, or its script failing, which
    // its SharedWorker's error event names) did not stop: it is asked again over a new connection.
    this.log('warn', this.hubId === null
      ? `the lock hub has not answered yet; connecting again for ${this.records.size} locks and requests`
      : `the lock hub stopped answering; reconnecting and re-registering ${this.records.size} locks and requests`);
    this.reconnect(this.hubId ?? 'unknown');
  }

  reconnect(lost) {
    this.cancelIdentity();
    const old = this.port;
    this.port = null;
    this.flow.close();
    this.probe = null;
    if (old !== null) {
      old.onmessage = null;
      old.onmessageerror = null;
      try { old.close(); } catch { /* gone */ }
    }
    this.stats.reconnects++;
    this.open(lost);
  }

  // ---- liveness: hub identity ----

  /** The first message of a connection: which hub serves this port. */
  greeted(m) {
    if (typeof m.hubId !== 'string' || this.hubId === null || m.hubId === this.hubId) return;
    // Our hello is in flight: whether it reached this hub, a probe sent after it tells.
    if (this.helloEntries !== null) return this.settle();
    // Registered with another hub, and this one serves our port now: ours died and the browser
    // handed our port to its successor (WebKit). Re-register at once, over a fresh connection:
    // a relaunched port may carry the hub's messages to us but none of ours to it (measured in
    // WebKitGTK: the greeting arrives, the hello never does), and a hello that waits for a probe
    // to time out comes after the reclaim window, its held locks lost.
    this.stats.hubLosses++;
    this.log('warn', `a new lock hub serves this context's connection; re-registering ${this.records.size} locks and requests`);
    this.reconnect(this.hubId);
    return undefined;
  }

  /** The hub that serves this port has no registration for it. */
  unregisteredHere(m) {
    if (m.call === 0) return this.settle();
    // A probe sent before our latest hello: that hello's answer is still on its way.
    if (m.call <= this.helloAtCall) return undefined;
    // Our latest hello went to a hub that is gone: say it again to this one.
    const inFlight = this.helloEntries !== null;
    const lost = inFlight ? this.lastLostHub : this.hubId;
    if (!inFlight && this.hubId !== null) this.stats.hubLosses++;
    this.cancelIdentity();
    if (this.hubId === null && lost === null) this.freshHello();
    else this.hello(lost);
    return undefined;
  }

  /** Sends a probe now (answered `probed` by a hub that knows this port, `unregistered` by one that does not). */
  settle() {
    if (this.port === null || this.asleep || this.probe !== null) return;
    const call = ++this.nextCall;
    this.probe = { call, deadline: this.now() + this.liveness.PROBE_TIMEOUT };
    this.toHub({ t: C.probe, call });
    this.watch();
  }

  /** The sentinel heard no ping from the hub for a while (its timers are not throttled as a background tab's). */
  hubSilent() {
    if (this.port === null || this.asleep || this.failure !== null) return;
    if (!this.waitsOnHub()) return;
    this.settle();
    this.checkIdentity();
  }

  /**
   * Opens a fresh connection to the origin's hub; its greeting says whether ours still serves.
   * `early`: the id of the hub that greeted the port our first hello went on (a window's early
   * port), while that hello is unanswered.
   */
  checkIdentity(early = null) {
    if (this.identify === null || this.identity !== null || (early ?? this.hubId) === null || (early === null && this.helloEntries !== null)) return;
    if (this.port === null || this.asleep || this.failure !== null) return;
    const check = { port: null, deadline: this.now() + this.liveness.IDENTITY_TIMEOUT, early };
    this.identity = check;
    this.watch();
    Promise.resolve().then(() => this.identify()).then((port) => {
      check.port = port;
      if (this.identity !== check) return this.closeCheck(check);
      port.onmessage = (event) => {
        const m = event.data;
        if (isHubMessage(m) && m.t === H.hub && typeof m.hubId === 'string') this.identified(check, m.hubId);
      };
      port.start?.();
      return undefined;
    }, () => {
      // No connection could be opened: the probe decides.
      if (this.identity === check) this.identity = null;
    });
  }

  identified(check, hubId) {
    if (this.identity !== check) return this.closeCheck(check);
    this.identity = null;
    check.port.onmessage = null;
    // A check of the hub that greeted our early port matters while our first hello is unanswered;
    // any other, while no hello is in flight.
    const moot = check.early === null ? this.helloEntries !== null : this.hubId !== null || this.helloEntries === null;
    if (hubId === (check.early ?? this.hubId) || moot || this.port === null || this.asleep || this.failure !== null) {
      // Our hub still serves the origin (busy, not lost): this connection was only a question.
      if (hubId === this.hubId) { this.lastHeard = this.now(); this.probe = null; }
      return this.closeCheck(check);
    }
    // Another hub serves the origin: ours is gone (for an early port's: before it read our first
    // hello). Re-register there, on this very connection.
    this.stats.hubLosses++;
    this.stats.reconnects++;
    this.log('warn', `the lock hub was replaced; re-registering ${this.records.size} locks and requests with the new one`);
    this.attach(check.port, this.hubId);
    return undefined;
  }

  cancelIdentity() {
    const check = this.identity;
    this.identity = null;
    if (check !== null) this.closeCheck(check);
  }

  closeCheck(check) {
    if (check.port === null) return;
    check.port.onmessage = null;
    try { check.port.postMessage(/** @satisfies {ContextMessage} */ ({ t: C.bye })); } catch { /* gone */ }
    try { check.port.close(); } catch { /* gone */ }
  }

  /**
   * After each welcome the hub gets a port to this context's sentinel (js/browser/sentinel.js: it
   * answers pings for us). A context starts it only after its first request has been answered (its
   * callback has run), or LIVENESS.SENTINEL_START_LATEST after the welcome, or at once when nothing
   * is asked. Starting a worker takes this thread (a nested `new Worker()` 0.2-11 ms, then its
   * load) while the hub's grant waits in our queue, and in a window it slows the browser's start of
   * the hub itself (Chromium, fresh profile: the hub's script ran 49-86 ms after `new SharedWorker`
   * with the sentinel started at request(), 23-40 ms after without). Nothing waits for the
   * sentinel: until it has answered once, the hub never declares the context dead for silence
   * (js/hub/hub.js silenceProvesNothing), a crashed window goes by its alive database, and a held
   * marker speaks for us after a hub loss (vouch); docs/browser.md, Liveness.
   */
  sendSentinelSoon(delay = this.awaitsAnswer() ? this.liveness.SENTINEL_START_LATEST : null) {
    clearTimeout(this.sentinelTimer);
    this.sentinelTimer = null;
    if (delay === null) { this.sendSentinel(); return; }
    const fire = () => {
      if (this.sentinelTimer !== timer) return;
      this.sentinelTimer = null;
      // With a hello in flight, its welcome hands the sentinel to whichever hub answers it.
      if (this.helloEntries === null) this.sendSentinel();
    };
    // After the first answer: the next task (the callback's first part has run), not a timer: a
    // background tab's timers are throttled (Firefox: 1 s and more), its sentinel would start that
    // late, and a tab closed meanwhile whose bye is lost would keep its locks (nothing to time out).
    const timer = delay === 0 ? {} : setTimeout(fire, delay);
    this.sentinelTimer = timer;
    if (delay === 0) nextTask(fire);
  }

  /** A request of ours waits for its first answer from the hub. */
  awaitsAnswer() {
    for (const record of this.records.values()) if (record.state === SENT) return true;
    return false;
  }

  sendSentinel() {
    if (this.sentinel === null || this.port === null) return;
    const port = this.sentinel.portForHub();
    if (port !== null) this.flow.postNow({ t: C.sentinel }, [port]);
  }

  /** The hub gets the name of our alive database, once welcomed and while it is open (again after a hello). */
  sendAlive() {
    const name = this.aliveDatabase?.name ?? null;
    if (name === null || this.port === null || this.hubId === null || this.helloEntries !== null || this.asleep || this.failure !== null) return;
    this.flow.postNow({ t: C.alive, name });
    this.aliveSent = name;
  }

  // ---- liveness: this context leaving ----

  /** pagehide: tell the hub at once (it releases everything). persisted: the page may come back. */
  pageHidden(persisted) {
    if (this.port === null || this.asleep) return;
    this.flow.postNow({ t: C.bye });
    if (!persisted) return;
    // A delete waiting on its database would evict the page from the back/forward cache.
    this.aliveDatabase?.close();
    this.asleep = true;
    // The hub released everything with our bye: our sentinel (in WebKit a shared worker, which the
    // cache does not freeze) must not hold a new hub's grants for a page that will not re-register.
    this.vouch();
    this.flow.close();
    this.loseHeld(LOST.pageHidden);
    // WebKit's own locks abort the window's waiting requests too; elsewhere they wait on (pageShown).
    if (this.bfcacheRule === 'abort-waiting') this.abortWaiting(LOST.pageHiddenWaiting);
  }

  /** Rejects every request not granted yet with an AbortError (the hub forgot them with our bye). */
  abortWaiting(message) {
    for (const [token, record] of this.records) {
      if (record.state === HELD || record.state === RELEASING) continue;
      this.records.delete(token);
      record.listener.failed(token, new DOMException(message, 'AbortError'));
    }
  }

  /** pageshow from the back/forward cache: register again what still waits. */
  pageShown() {
    if (!this.asleep) return;
    this.asleep = false;
    this.lastHeard = this.now();
    this.hello(null);
    this.aliveDatabase?.open();
    if (this.records.size > 0) this.watch();
  }

  /**
   * A dedicated worker this context created needs its own connection: hand the hub one end. Only
   * once a hub welcomed us: a failed context passes its failure on to the worker, so that the
   * worker's requests reject as promptly as ours instead of waiting on a hub that never answers.
   */
  adopt(port, worker, as) {
    if (this.failure !== null) return refusePort(port, this.failure);
    if (this.hubId === null) {
      this.unwelcomedAdopts.push([port, worker, as]);
      if (this.port === null && !this.asleep) this.open(null);
      return undefined;
    }
    // A hello in flight, or a hub silent for a while (it may be gone, and a port handed to it would
    // go with it: the worker would learn only when its identity check timed out, 5 s on): held
    // until the hub speaks (receive) or a new one welcomes us.
    if (this.helloEntries !== null || this.now() - this.lastHeard >= this.liveness.HUB_SILENT_AFTER) {
      this.unwelcomedAdopts.push([port, worker, as]);
      this.checkSoon();
      return undefined;
    }
    this.send(as === undefined ? { t: C.adopt, worker } : { t: C.adopt, worker, as }, [port]);
    this.checkSoon();
    return undefined;
  }

  /**
   * This context terminated its worker number `worker`: once the worker has stopped running, it
   * no longer vouches for it at the hub. A busy worker runs on until Chromium's forcible
   * termination, a task on this thread 2 s after terminate(): the hub hears of the end from a
   * timer due after it (terminatedWorkerRunsOn), then one more task of this thread (a busy thread
   * runs its due tasks in the order they fell due), so never while the worker still runs.
   */
  workerEnded(worker, as) {
    this.unwelcomedAdopts = this.unwelcomedAdopts.filter(([port, w, a]) => {
      if (w === worker && a === as) try { port.close(); } catch { /* gone */ }
      return w !== worker || a !== as;
    });
    setTimeout(() => nextTask(() => {
      if (this.hubId !== null && this.failure === null) this.send(as === undefined ? { t: C.ended, worker } : { t: C.ended, worker, as });
    }), terminatedWorkerRunsOn(this.liveness));
  }

  // ---- same-origin frames that speak through this context (frame-backend.js) ----

  /**
   * Frame `as` (a clientId) makes its calls through this context from now on. Its `document`
   * tells whether it has left (checked while it has anything here: a frame removed without a
   * pagehide): a Document that is no longer its frame's has no defaultView.
   */
  joinFrame(as, document) {
    this.frames.set(as, typeof WeakRef === 'function' ? new WeakRef(document) : { deref: () => document });
  }

  /**
   * Frame `as` left (pagehide of a removed or navigated frame, or found gone): as for a context
   * that says bye, its locks are released and its requests dropped at once (C.left), and nothing
   * more is said to it.
   */
  frameLeft(as) {
    if (!this.frames.delete(as)) return;
    let any = false;
    for (const [token, record] of this.records) {
      if (record.as !== as) continue;
      any = true;
      this.records.delete(token);
      this.aborts.get(token)?.(false);
      this.aborts.delete(token);
      this.abortsMade.delete(token);
    }
    this.unwelcomedAdopts = this.unwelcomedAdopts.filter(([port, , a]) => {
      if (a === as) try { port.close(); } catch { /* gone */ }
      return a !== as;
    });
    // Only a hub that may have heard of the frame is told (a hello to come names none of its records).
    if (this.hubId !== null && this.failure === null && !this.asleep && (any || this.port !== null)) this.send({ t: C.left, as });
    this.idle();
  }

  /** Frames that left without a pagehide (their document is gone): told as if they had. */
  checkFrames() {
    for (const [as, document] of this.frames) {
      let left = true;
      try { left = (document.deref()?.defaultView ?? null) === null; } catch { /* a dead realm: gone */ }
      if (left) this.frameLeft(as);
    }
  }
}

/** Settled (`record.answered`) once the welcome of a hello that claimed this released lock says whether it was still ours. */
/** A hello's reclaim entry for `record`: a frame's names the frame (`as`). */
function asFrame(record, entry) {
  if (record.as !== undefined) entry.as = record.as;
  return entry;
}

function askNextHub(record) {
  return (record.asked ??= new Promise((resolve) => { record.answered = resolve; }));
}

/** Runs `then` in a task of its own, after the tasks this thread already has due (not throttled as timers are). */
function nextTask(then) {
  const { port1, port2 } = new MessageChannel();
  port1.onmessage = () => { port1.close(); then(); }; // an open port keeps a Node process alive
  port2.postMessage(0);
}

/**
 * The error of a page whose hub speaks another protocol version, found in a welcome or in a refusal
 * (`said`: a hub of version 8 refuses a newer hello as unreadable, which is all the page learns).
 */
function protocolMismatch(hubVersion, said = '') {
  return new DOMException(`Web Locks hub protocol mismatch: the page speaks version ${PROTOCOL_VERSION}, the lock hub speaks ${hubVersion}${said && ` (it said: ${said.slice(0, 200)})`}. `
    + 'Serve the polyfill and the hub from the same build (a running hub ends with its last tab, in Chromium up to 5 minutes later).', 'NotSupportedError');
}

/** Tells a worker's port that no hub serves it, with this context's reason (it fails as we did). */
function refusePort(port, error) {
  port.postMessage(/** @satisfies {HubMessage} */ ({ t: H.rejected, v: PROTOCOL_VERSION, reason: 'creator', message: error.message }));
}

