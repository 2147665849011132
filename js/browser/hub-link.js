// The context's link to the hub (the lowest layer of HubBackend, hub-backend.js): its port, the
// messages it posts (through flow control: flow.js), and its hello, which re-registers what it
// holds and waits for after a hub loss. The layers above: hub-loss-watch.js (is the hub still
// there, and the same one?) < context-liveness.js (this context's own liveness: sentinel, alive
// database, pagehide) < hub-messages.js (what the hub says) < hub-backend.js (the contract).
import { PROTOCOL_VERSION, LIMITS, LIVENESS, C, H, HELLO_THEN_TYPES } from '../hub/protocol.js';
/** @import { ContextMessage, HelloMessage, HubMessage, RequestMessage } from '../hub/protocol.js' */
import { PendingQueries } from './snapshot-pieces.js';
import { Flow } from './flow.js';
import { RecordMap } from './outstanding.js';
import { randomUuid as randomClientId } from '../api/random-id.js';

// The life of one request, as this context sees it.
export const SENT = 0;     // sent, not granted yet (waiting, its place in the queue known once `seq` is set)
export const HELD = 1;     // granted
export const UNSENT = 2;   // waiting in this context (flow control, no port yet): the hub knows nothing of it
export const RELEASING = 3; // released after this context was silent long enough to be declared dead: its result waits for a round trip (release())
// A context's own silence of this share of DEAD_AFTER makes its releases check with the hub (its
// last message takes a while to reach the hub): 1 s of the default 1.5 s.
export const RELEASE_CHECK_SHARE = 2 / 3;

// What a hello asks for again (from the records, the aborts and the queries), not from the queue.
const ASKED_AGAIN = new Set([C.request, C.abort, C.query]);
// The answers to a request: the first one handled lets the sentinel start (sendSentinelSoon).
export const ANSWERS = new Set([H.granted, H.queued, H.notAvailable, H.failed]);
// The answers to a request: the first one handled lets the sentinel start (sendSentinelSoon).

export class HubLink {
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
    this.greetedBy = null;      // before any welcome: the hub whose greeting our port heard
    this.helloEntries = null;   // reclaim entries of the hello in flight (answered by welcome)
    this.failure = null;        // a permanent error (protocol mismatch): every request fails with it
    this.asleep = false;        // between pagehide (bfcache) and pageshow
    // token -> { name, mode, wait, listener, state, seq }; whether any exists is told to `outstanding` (bfcache.js)
    this.outstanding = options.outstanding ?? null;
    this.records = new RecordMap((busy) => this.outstanding?.set(this, busy));
    this.bfcacheRule = options.bfcacheRule ?? 'release';
    // Every release waits for the hub's word before its request settles (WebKit: hub-backend.js release).
    this.confirmReleases = options.confirmReleases;
    this.confirming = null;     // the sync behind this turn's releases, while it is not sent (hub-backend.js releaseBarrier)
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
    this.helloAttempts = 0;     // hellos said (sayHello): each carries its number
    this.onMessage = (event) => {
      const data = event.data;
      if (data?.t !== H.batch || !Array.isArray(data.m)) { this.receive(data); return; }
      // Consecutive messages of one task of the hub (hub-transport.js sendTo), in order; the rest of them is
      // moot once one of them made us leave this port.
      const port = this.port;
      for (const message of data.m) {
        if (this.port !== port) return;
        this.receive(message);
      }
    };
    /** Measurements for tests and docs: hub losses noticed, times declared dead. */
    this.stats = { hubLosses: 0, declaredDead: 0, reconnects: 0, releaseChecks: 0 };
    this.lastPosted = -Infinity; // when this context last posted to the hub (toHub)
    this.observers = new Map();  // observeLocks: call -> { sink, started }
    /** What a request that would close a certain deadlock gets: 'reject', else the global WEBLOCKS_DEADLOCK. */
    this.deadlock = options.deadlock;
  }

  // ---- what the layers above do (hub-backend.js and the files it builds on) ----

  /** A message from the hub (hub-messages.js). */
  receive(m) {} // eslint-disable-line no-unused-vars

  /** A permanent failure: every request fails with `error` (hub-messages.js). */
  fail(error) {} // eslint-disable-line no-unused-vars

  /** A message from the hub could not be deserialized (hub-loss-watch.js). */
  undeliverable() {}

  /** Frames that left without a pagehide are told as if they had (hub-backend.js). */
  checkFrames() {}

  /** A dedicated worker's port goes to the hub (hub-backend.js). */
  adopt(port, worker, as) {} // eslint-disable-line no-unused-vars

  // ---- sending ----


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
    // Numbered: a hub that reads several of our ports' hellos at once keeps us on the newest (hub-handshake.js).
    const posted = this.post({ ...hello, attempt: ++this.helloAttempts, batch: true, then: gathered.slice(0, carried).map(([message]) => message) });
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
    this.greetedBy = null; // (this port's greeting says which hub it reaches)
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
}

/** A hello's reclaim entry for `record`: a frame's names the frame (`as`). */
function asFrame(record, entry) {
  if (record.as !== undefined) entry.as = record.as;
  return entry;
}

/** Settled (`record.answered`) once the welcome of a hello that claimed this released lock says whether it was still ours. */
export function askNextHub(record) {
  return (record.asked ??= new Promise((resolve) => { record.answered = resolve; }));
}

/** Runs `then` in a task of its own, after the tasks this thread already has due (not throttled as timers are). */
export function nextTask(then) {
  const { port1, port2 } = new MessageChannel();
  port1.onmessage = () => { port1.close(); then(); }; // an open port keeps a Node process alive
  port2.postMessage(0);
}

/**
 * The error of a page whose hub speaks another protocol version, found in a welcome or in a refusal
 * (`said`: a hub of version 8 refuses a newer hello as unreadable, which is all the page learns).
 */
export function protocolMismatch(hubVersion, said = '') {
  return new DOMException(`Web Locks hub protocol mismatch: the page speaks version ${PROTOCOL_VERSION}, the lock hub speaks ${hubVersion}${said && ` (it said: ${said.slice(0, 200)})`}. `
    + 'Serve the polyfill and the hub from the same build (a running hub ends with its last tab, in Chromium up to 5 minutes later).', 'NotSupportedError');
}

/** Tells a worker's port that no hub serves it, with this context's reason (it fails as we did). */
export function refusePort(port, error) {
  port.postMessage(/** @satisfies {HubMessage} */ ({ t: H.rejected, v: PROTOCOL_VERSION, reason: 'creator', message: error.message }));
}
