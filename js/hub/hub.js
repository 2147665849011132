// The hub: one lock engine serving every context of an origin over MessagePorts. Each port is one
// engine client (the spec's agent); its messages are validated (protocol.js) and can name only
// that connection's own tokens. Liveness: `bye` (pagehide), the port `close` event where the
// browser fires it, a window's alive database closed by the browser (alive.js), and a heartbeat
// for crashed tabs and terminated workers. After a hub loss the
// clients re-register here; a reclaim window holds back new requests until they have.
// Independent of SharedWorker: hub-worker.js wires it to `onconnect`; tests can drive it directly.
import { MODE, WAIT, STATUS, EVENT, REQUEST_FLAGS } from '../engine/index.js';
import { EngineObserver, engineObservers } from '../api/engine-observer.js';
import { describeCycle } from '../api/observe-shared.js';
import {
  PROTOCOL_VERSION, LIMITS, LIVENESS, FLOW, C, H, ANNOUNCE, FRAME_TYPES,
} from './protocol.js';
import { attachSentinel, detachSentinel, lastHeardFrom, pingSentinel, silenceOf } from './sentinels.js';
import { watchAlive, unwatchAlive, listDatabases, sweepAliveDatabases } from './alive.js';
import { awaitHeldMarkers } from './held-markers.js';
import { FairInbox } from './fair-inbox.js';
import { Quota, requestCost, MESSAGE_COST } from './quota.js';
import { cutSnapshot } from './snapshot-pieces.js';
import { resume } from './resume.js';
import { Hearing } from './hearing.js';
import { validateClientMessage } from './validate-client.js';
import { terminatedWorkerRunsOn } from './terminated-worker.js';
import { PREDECESSOR } from './succession.js';
import { randomUuid } from '../api/random-id.js';
import { Connection } from './connection.js';
import { FrameConnection } from './frame-connection.js';
/** @import { HubMessage, UnbatchedHubMessage } from './protocol.js' */
/** @import { HubConnection } from './connection.js' */

const WAIT_CODES = { wait: WAIT.wait, 'no-wait': WAIT.noWait, preempt: WAIT.preempt };

// A connection's token states.
const PENDING = 0;
const HELD = 1;
const DEFERRED = 2; // taken during the reclaim window; not in the engine yet

export class Hub {
  /**
   * @param engine  an Engine (js/engine): the hub is its only user
   * @param {object} [options] { hubId, now, log, setTimer, clearTimer, liveness, hearing, predecessor, succession }
   *   hearing: a MessageChannel for the hub's echo to itself (hearing.js); without it, silence
   *   always counts
   *   predecessor: what the hub before this one left behind (succession.js): 'lost' (clients),
   *   'none' (no claim of a lost hub can be true: none opens the reclaim window), 'unknown'
   *   (the default: claims are trusted)
   *   succession: this hub's record (succession.js takeOver): its predecessor, and told when the
   *   hub has no registered client left (idle) and when it has one again (serving)
   *   indexedDB: the hub's IDBFactory, for the contexts' alive databases (alive.js) and held
   *   markers (held-markers.js); without it, they are ignored
   */
  constructor(engine, options = {}) {
    this.engine = engine;
    this.run = null;          // consecutive messages to one batching connection, not posted yet (sendTo)
    this.flushRunTask = () => this.flushRun();
    this.fileTask = (conn, item) => this.inbox.add(conn, item);
    this.handleTask = (conn, item) => this.handle(conn, item);
    this.hubId = options.hubId ?? randomUuid();
    this.now = options.now ?? (() => performance.now());
    this.logger = options.log ?? defaultLog;
    this.liveness = { ...LIVENESS, ...options.liveness };
    /** @type {Set<HubConnection>} */
    this.connections = new Set();
    this.quota = new Quota(options.limits);
    this.inbox = new FairInbox((conn, item) => this.handle(conn, item), {
      now: this.now, maxQueued: FLOW.MAX_QUEUED, ...options.fairness,
    });
    /** @type {Map<string, HubConnection>} clientId -> live Connection */
    this.clientIds = new Map();
    this.seq = 0;               // orders queued requests across clients (sent to them for reclaim)
    this.orderTimer = null;     // pending batch of queue order
    this.grantsToSend = [];     // [conn, token]: grants of this turn, sent after its losses (deliverEvents)
    this.reclaimUntil = 0;      // > now while the reclaim window is open
    this.reclaimStarted = false;
    this.deferred = [];         // new requests held back during the window: [conn, token]
    this.deferredQueries = [];  // queries made during the window, answered after those requests: [conn, call]
    this.reclaimPending = [];   // re-registered waiting requests: [conn, token, seq, arrival]
    this.arrivals = 0;
    this.startedAt = this.now();
    this.succession = options.succession ?? null;
    this.predecessor = this.succession?.predecessor ?? options.predecessor ?? PREDECESSOR.unknown;
    this.recording = false;     // true while the record is being told this hub serves clients again
    this.refusedClaims = 0;
    this.survivors = new Map(); // clientId -> when its sentinel last said it survives a lost hub (survivorAlive)
    this.hearing = options.hearing ? new Hearing(options.hearing, this.now, this.liveness.ECHO_LATE) : null;
    this.indexedDB = options.indexedDB ?? null;
    // One listing of the origin's databases for both sweeps: alive databases, held markers (below).
    const listing = this.indexedDB === null ? null : listDatabases(this.indexedDB);
    listing?.then((names) => sweepAliveDatabases(this.indexedDB, names), () => { /* no list: they stay */ });
    this.timer = setInterval(() => this.tick(), this.liveness.TICK);
    this.reclaimTimer = null;
    // The origin-wide hub announces itself (the in-context fallback does not): contexts that
    // still hold locks under a hub that just died answer, and this hub opens its reclaim window
    // before a newcomer can be granted what they hold. A hub whose predecessor left no clients
    // (succession.js) has no one to wait for.
    this.channel = options.announce ?? null;
    if (this.channel !== null) {
      this.channel.onmessage = (event) => this.heard(event.data);
      if (this.predecessor !== PREDECESSOR.none) {
        this.reclaimUntil = this.now() + this.liveness.STARTUP_HOLD;
        this.reclaimTimer = setTimeout(() => this.closeReclaimWindow(), this.liveness.STARTUP_HOLD);
      }
      this.channel.postMessage({ t: ANNOUNCE.started, hubId: this.hubId });
    }
    // Contexts busy since the lost hub died, with no sentinel to say so: their held markers
    // (held-markers.js) keep the reclaim window open. Listed during the start-up hold.
    this.heldMarkers = new Set(); // names of the markers whose delete waits
    this.toldOfMarkers = false;
    const lostHubs = this.predecessor === PREDECESSOR.lost && this.reclaimTimer !== null ? this.succession?.lostHubs ?? [] : [];
    this.scanningMarkers = lostHubs.length > 0 && this.indexedDB !== null;
    if (this.indexedDB !== null) {
      awaitHeldMarkers(this.indexedDB, listing, {
        hubId: this.hubId, lostHubs, pending: this.heldMarkers, timeout: this.liveness.MARKERS_LISTED_WITHIN,
        log: (level, text) => this.log(level, text), scanned: () => this.markersScanned(),
      });
    }
  }

  /** The held markers are listed (held-markers.js): any whose context lives opens the reclaim window. */
  markersScanned() {
    if (!this.scanningMarkers) return;
    this.scanningMarkers = false;
    if (this.heldMarkers.size > 0 && !this.reclaimStarted) this.openReclaimWindow();
  }

  /** A context answered the announcement: it held locks or waited under another hub. */
  heard(m) {
    if (m === null || typeof m !== 'object' || m.t !== ANNOUNCE.hadHub || typeof m.hubId !== 'string' || m.hubId === this.hubId) return;
    this.claimOfLostHub(m.hubId);
    if (typeof m.clientId === 'string' && m.clientId.length <= LIMITS.clientIdLength) this.survivorAlive(m.clientId);
  }

  /**
   * The sentinel of a context that held or waited under a lost hub says that context lives and has
   * not re-registered yet (busy in a long task: js/browser/sentinel-worker.js). While the reclaim
   * window is open, it stays open as long as such a survivor is heard (within
   * SURVIVOR_SILENT_AFTER) and has not registered: a time-based window alone would give a busy
   * holder's lock to a waiter while its callback still runs. Only a hub whose predecessor may
   * have left clients listens (succession.js), as for claims.
   */
  survivorAlive(clientId) {
    if (this.predecessor === PREDECESSOR.none || !this.reclaimStarted || this.now() >= this.reclaimUntil) return;
    if (this.clientIds.has(clientId)) return;
    if (!this.survivors.has(clientId)) {
      if (this.survivors.size >= LIMITS.survivors) return;
      this.log('info', `${clientId} survives the lost hub (its sentinel says so): the reclaim window waits for it`);
    }
    this.survivors.set(clientId, this.now());
  }

  /** A survivor heard lately that has not registered here yet. */
  survivorsWaited() {
    const now = this.now();
    for (const [clientId, heardAt] of this.survivors) {
      if (this.clientIds.has(clientId) || now - heardAt >= this.liveness.SURVIVOR_SILENT_AFTER) this.survivors.delete(clientId);
    }
    return this.survivors.size > 0;
  }

  /**
   * A context says it held or waited under hub `lostHub`, which is gone. The reclaim window opens
   * once, only in a young hub (clients notice a loss within ~2 s: an old hub is not the successor
   * of the one they lost) and only if the previous hub did leave clients behind (succession.js):
   * otherwise the claim cannot be true, and nothing anyone sends holds grants back.
   */
  claimOfLostHub(lostHub) {
    if (this.reclaimStarted) return;
    if (this.predecessor === PREDECESSOR.none) {
      if (this.refusedClaims++ === 0) this.log('warn', `a context claims a lost hub (${String(lostHub).slice(0, 40)}), but the hub before this one ended with no clients: no reclaim window`);
      return;
    }
    if (this.now() - this.startedAt < this.liveness.RECLAIM_WINDOW * 2) this.openReclaimWindow();
  }

  log(level, text) {
    this.logger(level, `[weblocks hub ${this.hubId.slice(0, 8)}] ${text}`);
  }

  /** A new port: a context that constructed the SharedWorker, or one a context adopted for its worker. */
  connect(port, parent = null) {
    const conn = new Connection(this, port, parent);
    this.connections.add(conn);
    if (parent !== null) parent.children.add(conn);
    port.onmessage = (event) => this.receive(conn, event);
    port.onmessageerror = () => this.reject(conn, 'a message could not be deserialized');
    // Behind a flag in Chromium today; where it fires, a closed port is a clean exit.
    // (Not after the hub closed it itself for volume: cut.)
    port.addEventListener?.('close', () => { if (!conn.cut) this.forget(conn); });
    port.start?.();
    // Every connection learns first which hub serves it: a port the browser handed to a relaunched
    // hub (WebKit delivers surviving ports to a new instance as fresh connects) hears a new id.
    conn.send({ t: H.hub, hubId: this.hubId });
    return conn;
  }

  // ---- sending ----

  /**
   * A page reads each message in a task of its own, between the tasks of its own load: measured in
   * Chromium, a second tab's hub, welcome and grant, posted within 2 ms, were read 10-16 ms apart.
   * So consecutive messages to one connection that asked (its hello's batch: true) go as one
   * H.batch, posted when a message to another connection follows, before any other post or close,
   * or at the end of the task. A context's first requests come inside its hello (`then`), so its
   * welcome and their grants go as one. Every message is still posted in the order it was sent,
   * across connections too: a steal's victims are told before its thief, whatever point the hub's
   * process dies at.
   * @param {HubConnection} conn
   * @param {UnbatchedHubMessage} message
   */
  sendTo(conn, message) {
    if (this.run !== null && this.run.conn === conn) {
      this.run.messages.push(message);
      return undefined;
    }
    this.flushRun();
    if (!conn.batching) return conn.post(message);
    this.run = { conn, messages: [message] };
    queueMicrotask(this.flushRunTask);
    return undefined;
  }

  /** Posts the batch being gathered, if any. */
  flushRun() {
    const run = this.run;
    if (run === null) return;
    this.run = null;
    run.conn.post(run.messages.length === 1 ? run.messages[0] : { t: H.batch, m: run.messages });
  }

  // ---- receiving ----

  /**
   * A message arrived. What can never wait is done here (probes, pongs, releases: an honest probe or
   * release is never stuck behind another connection's backlog; a release waits only for its own
   * connection's earlier messages); what would make the hub keep
   * memory is charged to the connection or refused (quota.js); the rest is filed in the
   * connection's inbox and handled in its fair turn (fair-inbox.js).
   * @param {HubConnection} conn
   */
  receive(conn, event) {
    if (conn.gone || conn.cut) return undefined;
    conn.lastSeen = this.now();
    const message = event.data;
    const problem = validateClientMessage(message);
    if (problem !== null) {
      // A hello refused says so: its context would otherwise wait for a welcome for ever.
      if (message?.t === C.hello && conn.client === null) {
        conn.send({ t: H.rejected, v: PROTOCOL_VERSION, reason: 'hello', message: `The lock hub refused this context's hello (${problem}).` });
      }
      return this.reject(conn, problem, message);
    }
    return this.take(conn, message, event.ports ?? null, this.fileTask);
  }

  /**
   * A valid message: done at once, refused, or charged and handed to `file` ((conn, item) => void:
   * the inbox, or `handle` for what a hello carried). `ports`: what came with it, or null.
   * @param {HubConnection} conn
   */
  take(conn, message, ports, file) {
    if (message.t === C.pong) return undefined;
    // A message for one of this connection's frames is filed in the connection's own inbox (one
    // order for all its frames) and charged to the frame.
    let frame = null;
    if (message.as !== undefined && FRAME_TYPES.has(message.t) && conn.client !== null) {
      frame = this.frameOf(conn, message.as, message.t === C.request || message.t === C.adopt);
      if (frame === null) return this.noFrame(conn, message, ports);
    }
    const payer = frame ?? conn;
    if (message.t === C.probe) {
      // A hello still waiting in this connection's inbox counts as registered: it will be.
      if (conn.client === null && !conn.dead && conn.helloQueued === 0) return this.unregistered(conn, message, { ports });
      return conn.send({ t: H.probed, call: message.call, hubId: this.hubId });
    }
    if (message.t === C.release && conn.client !== null) {
      // At once, unless this connection's earlier messages still wait in its inbox: then after
      // them, as its context made them (spec: the lock task queue runs its steps in order). A
      // release that overtook the context's own requests made inside its callback gave the lock
      // to the one it should wait for first (WPT mode-exclusive "distinct resources", WebKit:
      // issue 46). A full inbox is a flood, cut below: its release is handled now.
      if (this.inbox.pending(conn) === 0 || this.inbox.full(conn)) return this.handle(conn, { message, ports: null, cost: 0, frame });
      file(conn, { message, ports: null, cost: 0, frame });
      return undefined;
    }
    if (this.inbox.full(conn)) {
      for (const port of ports ?? []) try { port.close(); } catch { /* gone */ }
      return this.cut(conn);
    }
    if (message.t === C.hello) conn.helloQueued++;
    let cost = MESSAGE_COST;
    if (message.t === C.request) {
      cost = requestCost(message.name);
      if (!this.quota.fits(payer, cost, this.connections.size)) {
        return conn.send({ t: H.failed, token: message.token, name: 'QuotaExceededError', message: this.quotaMessage(payer) });
      }
    } else if (message.t === C.query) {
      if (conn.queries >= LIMITS.queriesPerClient) {
        return conn.send({ t: H.queryFailed, call: message.call, name: 'QuotaExceededError', message: `More than ${LIMITS.queriesPerClient} query() calls of this context are waiting for the lock hub.` });
      }
      conn.queries++;
    } else if (message.t === C.abort && !this.quota.fits(payer, cost, this.connections.size)) {
      return conn.send({ t: H.aborted, token: message.token, removed: false });
    }
    this.quota.charge(payer, cost);
    file(conn, { message, ports, cost, frame });
    return undefined;
  }

  /**
   * The frame `as` of `conn` (protocol 11): a client of its own, made on its first request or
   * worker (`create`). Null when there is none, or none may be made: this hub serves no frames
   * (a machine hub), the connection speaks for as many as it may, or the clientId is taken.
   * @param {HubConnection} conn
   * @returns {HubConnection | null}
   */
  frameOf(conn, as, create) {
    const known = conn.frames?.get(as);
    if (known !== undefined) return known;
    if (!create || !this.servesFrames() || conn.frame) return null;
    if ((conn.frames?.size ?? 0) >= LIMITS.framesPerConnection || this.clientIds.has(as)) return null;
    const frame = new FrameConnection(this, conn);
    conn.frames ??= new Map();
    conn.frames.set(as, frame);
    conn.children.add(frame);
    this.connections.add(frame);
    this.openClient(frame, as);
    return frame;
  }

  /** Whether contexts may speak for their same-origin frames on their own connection (a machine hub: no). */
  servesFrames() { return true; }

  /** A message for a frame the hub has not (or may not have): answered so that nothing waits for ever. @param {HubConnection} conn */
  noFrame(conn, message, ports) {
    for (const port of ports ?? []) try { port.close(); } catch { /* gone */ }
    if (message.t === C.request) {
      const why = this.servesFrames() ? `this context speaks for ${LIMITS.framesPerConnection} frames already, or the frame's clientId is in use` : 'this lock hub serves no frames';
      return conn.send({ t: H.failed, token: message.token, name: 'NotSupportedError', message: `The lock hub refused a frame's request: ${why}.` });
    }
    if (message.t === C.abort) return conn.send({ t: H.aborted, token: message.token, removed: false });
    if (message.t === C.release) return this.reject(conn, 'release for an unknown frame', message);
    return undefined; // ended, left, adopt (its port closed): nothing of that frame is kept here
  }

  /** Frame `frame` left (C.left), or its embedder went: its locks are released, its requests and workers go. @param {HubConnection} frame */
  dropFrame(frame) {
    if (frame.gone) return;
    this.close(frame, { tell: false });
    frame.gone = true;
    this.connections.delete(frame);
    frame.parent.children.delete(frame);
    frame.parent.frames?.delete(frame.clientId);
  }

  /**
   * A connection whose inbox is full (fair-inbox.js) ignores flow control and sends faster than its
   * share of the hub serves it. The hub stops reading it: its port is closed, which also makes the
   * browser drop the backlog it still had for that port (behind which every other tab's messages
   * would wait), and what waits in its inbox is dropped unhandled. It keeps its registration, every
   * lock it holds and every request the hub accepted (volume is no evidence of death): its
   * liveness is its sentinel's, and it may resume on a new port with its key (resume.js: what it
   * lists and the hub never got is requested then). It is told why first.
   * @param {HubConnection} conn
   */
  cut(conn) {
    const waiting = this.inbox.pending(conn);
    const releases = [];
    for (const { message, ports, cost, frame = null } of this.inbox.drop(conn)) {
      // A release filed behind its context's earlier messages (take) is still done: the context
      // has forgotten that lock, and its resume would not name it.
      if (message.t === C.release) releases.push([frame ?? conn, message.token]);
      this.quota.refund(frame ?? conn, cost);
      if (message.t === C.query) conn.queries--;
      if (message.t === C.hello) conn.helloQueued--;
      for (const port of ports ?? []) try { port.close(); } catch { /* gone */ }
    }
    for (const [owner, token] of releases) if (!owner.gone) this.release(owner, token);
    const message = `This context had ${waiting} messages waiting at the lock hub, as many as one context may (${this.inbox.maxQueued}): it sends faster than its share of the hub serves it, without flow control. The hub stopped reading this connection (its messages not yet handled are dropped); the locks it holds and the requests the hub accepted are kept, and a hello with its key on a new port resumes it.`;
    this.log('warn', `${conn.clientId ?? 'an unregistered client'} had ${waiting} messages waiting (the bound is ${this.inbox.maxQueued}): its port is closed, its locks and accepted requests are kept`);
    conn.send({ t: H.overloaded, waiting, max: this.inbox.maxQueued, message });
    this.flushRun();
    conn.cut = true;
    conn.port.onmessage = null;
    conn.port.onmessageerror = null;
    try { conn.port.close(); } catch { /* gone */ }
  }

  /** @param {HubConnection} conn */
  quotaMessage(conn) {
    return `This context's lock requests take more memory than the lock hub keeps for one context (${conn.bytes} of ${this.quota.connectionBytes} bytes, or an even share of ${this.quota.hubBytes} bytes for all contexts); release or abort some first.`;
  }

  /** Handles one filed message, in its connection's turn. @param {HubConnection} conn */
  handle(conn, { message, ports, cost, frame = null }) {
    if (message.t === C.query) conn.queries--;
    // A request keeps its charge while its token lives (refunded by dropToken); anything else is done now.
    if (message.t !== C.request || conn.gone || frame?.gone) this.quota.refund(frame ?? conn, cost);
    else message.cost = cost;
    if (conn.gone) return undefined;
    if (frame !== null) return this.handleForFrame(conn, frame, message, ports);
    try {
      if (message.t === C.hello) {
        conn.helloQueued--;
        this.hello(conn, message);
        // What the context sent right after its hello, in the hello's turn: a first request's grant
        // goes with the welcome. Dropped with a hello that was refused (a hello again asks again).
        if (conn.client !== null && message.then !== undefined) {
          for (const next of message.then) if (!conn.gone && !conn.cut) this.take(conn, next, null, this.handleTask);
        }
        return undefined;
      }
      if (conn.client === null) {
        if (message.t === C.request) this.quota.refund(conn, cost);
        if (!conn.dead) return this.unregistered(conn, message, { ports });
        return undefined; // in flight when the connection was closed: the client learns from `dead`
      }
      switch (message.t) {
        case C.request: return this.request(conn, message);
        case C.release: return this.release(conn, message.token);
        case C.abort: return this.abort(conn, message.token);
        case C.query: return this.query(conn, message.call);
        case C.bye: return this.close(conn, { tell: false });
        case C.adopt: return this.adopt(conn, ports, message.worker);
        case C.ended: return this.workerEnded(conn, message.worker);
        case C.sentinel:
          if (!ports || ports.length !== 1) return this.reject(conn, 'sentinel without exactly one port', message);
          return attachSentinel(this, conn, ports[0]);
        case C.sync: return conn.send({ t: H.synced, call: message.call });
        case C.alive: return watchAlive(this, conn, message.name);
        case C.observe: return this.observe(conn, message.call);
        case C.unobserve: return this.unobserve(conn, message.call);
        default: return undefined;
      }
    } catch (error) {
      this.log('error', `failed to handle ${message.t} from ${conn.clientId}: ${error?.stack ?? error}`);
      return undefined;
    }
  }

  /**
   * A message that speaks for `frame` of `conn` (take). A frame that left meanwhile (its C.left was
   * handled first) has nothing more: its request fails, the rest is moot.
   * @param {HubConnection} conn
   * @param {HubConnection} frame
   */
  handleForFrame(conn, frame, message, ports) {
    if (frame.gone || conn.client === null) {
      for (const port of ports ?? []) try { port.close(); } catch { /* gone */ }
      if (message.t === C.request && conn.client !== null) conn.send({ t: H.failed, token: message.token, name: 'AbortError', message: 'The frame that made this request has left.' });
      return undefined;
    }
    try {
      switch (message.t) {
        case C.request: return this.request(frame, message);
        case C.release: return this.release(frame, message.token);
        case C.abort: return this.abort(frame, message.token);
        case C.adopt: return this.adopt(frame, ports, message.worker);
        case C.ended: return this.workerEnded(frame, message.worker);
        case C.left: return this.dropFrame(frame);
        default: return undefined;
      }
    } catch (error) {
      this.log('error', `failed to handle ${message.t} from ${frame.clientId} (a frame of ${conn.clientId}): ${error?.stack ?? error}`);
      return undefined;
    }
  }

  /**
   * A message on a connection that never said hello to this hub. A client that believes it is
   * registered (its hub died and the browser handed its port to this one) must never go on
   * unanswered: it is told, with this hub's id, to say hello again (once per connection, and to
   * every probe). A bye from such a port (an identity check that is done) forgets it.
   * @param {HubConnection} conn
   */
  unregistered(conn, message, event) {
    for (const port of event.ports ?? []) try { port.close(); } catch { /* gone */ }
    if (message.t === C.bye) return this.forget(conn);
    if (message.t === C.probe) return conn.send({ t: H.unregistered, hubId: this.hubId, call: message.call });
    if (message.t === C.pong) return undefined;
    if (!conn.toldUnregistered) {
      conn.toldUnregistered = true;
      conn.send({ t: H.unregistered, hubId: this.hubId, call: 0 });
    }
    return this.reject(conn, `${message.t} before hello`, message);
  }

  /** @param {HubConnection} conn */
  reject(conn, reason, message) {
    conn.rejections++;
    // Rate-limited so that a flood cannot flood the console.
    if (conn.rejections <= 10 || conn.rejections % 1000 === 0) {
      let shown = '';
      try { shown = JSON.stringify(message)?.slice(0, 120) ?? String(message); } catch { shown = typeof message; }
      this.log('warn', `rejected a message from ${conn.clientId ?? 'an unregistered client'} (${reason}): ${shown} [${conn.rejections} rejected]`);
    }
  }

  // ---- handshake and reclaim ----

  /** @param {HubConnection} conn */
  hello(conn, m) {
    if (m.v !== PROTOCOL_VERSION) {
      this.log('warn', `refused a client speaking protocol ${m.v}; this hub speaks ${PROTOCOL_VERSION}`);
      return conn.send({
        t: H.rejected, v: PROTOCOL_VERSION, reason: 'version',
        message: `Web Locks hub protocol mismatch: the page speaks version ${m.v}, the hub speaks ${PROTOCOL_VERSION}. Serve the polyfill and the hub from the same build.`,
      });
    }
    if (conn.client !== null) return this.reject(conn, 'second hello on a registered connection', m);
    conn.batching = m.batch === true;
    const holder = this.clientIds.get(m.clientId);
    const tokens = new Set();
    let cost = 0;
    for (const entry of m.reclaim) {
      if (tokens.has(entry.token)) return this.reject(conn, 'reclaim token listed twice', m);
      tokens.add(entry.token);
      cost += requestCost(entry.name);
    }
    if (holder !== undefined && holder !== conn) {
      // The same context on a new port (it thought this hub lost, or its port broke): it proves it
      // with its key, and keeps what it holds and its places in the queues (resume.js).
      if (this.sameContext(holder, m.key)) return resume(this, conn, holder, m);
      return conn.send({ t: H.rejected, v: PROTOCOL_VERSION, reason: 'clientId', message: 'clientId already in use by a live client' });
    }
    if (!this.quota.fits(conn, cost, this.connections.size)) {
      return conn.send({ t: H.rejected, v: PROTOCOL_VERSION, reason: 'quota', message: `The locks and requests this context re-registers take more memory (${cost} bytes) than the lock hub keeps for one context.` });
    }
    const refusal = this.admit(conn, m);
    if (refusal !== null) return conn.send({ t: H.rejected, v: PROTOCOL_VERSION, reason: 'process', message: refusal });
    conn.dead = false;
    conn.key = m.key;
    this.openClient(conn, m.clientId);
    this.registered(conn, m);
    this.serving();

    // A client whose hub was lost re-registers here. Its held locks are taken back only by a hub
    // that is not the one it lost (a hub that declared it dead has released them) and only while
    // the reclaim window is open (later, someone else may have held them meanwhile).
    const fromLostHub = m.lostHub !== null && m.lostHub !== this.hubId;
    if (fromLostHub) this.claimOfLostHub(m.lostHub);
    const inWindow = this.now() < this.reclaimUntil;
    /** @type {import('./protocol.js').Reclaimed[]} */
    const reclaimed = [];
    // Handed to the engine only after the welcome: a grant must reach the context after the welcome
    // that tells it the request is queued here, or the context would count a lock it holds as waiting.
    const submitAfterWelcome = [];
    for (const entry of m.reclaim) {
      // A frame's lock or request goes back to that frame (protocol 11); a frame that cannot be
      // made again here has lost it.
      const owner = entry.as === undefined ? conn : this.frameOf(conn, entry.as, true);
      if (owner === null) { reclaimed.push(entry.held ? 'stolen' : 'queued'); continue; }
      owner.maxToken = Math.max(owner.maxToken, entry.token);
      if (entry.held) {
        if (fromLostHub && inWindow && this.reclaimHeld(owner, entry)) reclaimed.push('held');
        else reclaimed.push('stolen');
      } else if (inWindow) {
        this.keepReclaimed(owner, entry.token, { id: 0, state: DEFERRED, entry });
        this.reclaimPending.push([owner, entry.token, entry.seq ?? Number.MAX_SAFE_INTEGER, this.arrivals++]);
        reclaimed.push('queued');
      } else {
        reclaimed.push('queued');
        this.keepReclaimed(owner, entry.token, { id: 0, state: DEFERRED, entry });
        submitAfterWelcome.push([owner, entry.token]);
      }
    }
    conn.send({ t: H.welcome, v: PROTOCOL_VERSION, hubId: this.hubId, clientId: m.clientId, reclaimed });
    for (const [owner, token] of submitAfterWelcome) {
      if (this.holdingBack()) this.deferred.push([owner, token]);
      else this.submit(owner, token);
    }
    this.deliverEvents();
    return undefined;
  }

  /** @param {HubConnection} conn */
  reclaimHeld(conn, entry) {
    const answer = this.engine.request(conn.client, entry.name, MODE[entry.mode], WAIT.noWait);
    if (answer.status !== STATUS.granted) {
      this.log('warn', `${conn.clientId} could not take back ${JSON.stringify(entry.name).slice(0, 60)}: another reclaim holds it`);
      return false;
    }
    const record = { id: answer.id, state: HELD, entry };
    this.keepReclaimed(conn, entry.token, record);
    conn.tokenOfId.set(answer.id, entry.token);
    this.held(conn, entry.token, record);
    return true;
  }

  /** A re-registered lock or request, charged to its connection like a request. @param {HubConnection} conn */
  keepReclaimed(conn, token, record) {
    record.cost = requestCost(record.entry.name);
    this.quota.charge(conn, record.cost);
    conn.tokens.set(token, record);
  }

  /**
   * A client registered. A hub that had gone idle (no registered client: its record says it left
   * none) grants nothing until its record says it serves clients again: were it to die before,
   * its successor would not wait for this client's locks.
   */
  serving() {
    const recorded = this.succession?.serving();
    if (!recorded || this.recording) return;
    this.recording = true;
    recorded.then(() => {
      this.recording = false;
      if (!this.holdingBack()) this.admitDeferred();
    });
  }

  /** New requests (and queries) wait: a reclaim window or the start-up hold is open, or the record is being written. */
  holdingBack() {
    return this.now() < this.reclaimUntil || this.recording;
  }

  openReclaimWindow() {
    clearTimeout(this.reclaimTimer);
    this.reclaimStarted = true;
    this.reclaimUntil = this.now() + this.liveness.RECLAIM_WINDOW;
    this.log('info', `a previous hub was lost: reclaim window open for ${this.liveness.RECLAIM_WINDOW} ms`);
    this.reclaimTimer = setTimeout(() => this.closeReclaimWindow(), this.liveness.RECLAIM_WINDOW);
  }

  closeReclaimWindow() {
    if (this.heldMarkers.size > 0 && !this.toldOfMarkers) {
      this.toldOfMarkers = true;
      this.log('info', `the reclaim window waits for ${this.heldMarkers.size} busy survivor(s) of the lost hub with no sentinel`);
    }
    if (this.survivorsWaited() || this.scanningMarkers || this.heldMarkers.size > 0) {
      this.reclaimUntil = this.now() + this.liveness.TICK;
      this.reclaimTimer = setTimeout(() => this.closeReclaimWindow(), this.liveness.TICK);
      return;
    }
    this.reclaimUntil = 0;
    // Waiting requests in their order at the lost hub, then what arrived during the window.
    const pending = this.reclaimPending.sort((a, b) => a[2] - b[2] || a[3] - b[3]);
    this.reclaimPending = [];
    for (const [conn, token] of pending) this.submit(conn, token);
    const admitted = this.recording ? 0 : this.admitDeferred();
    if (this.reclaimStarted) this.log('info', `reclaim window closed: ${pending.length} waiting requests re-queued, ${admitted} new ones admitted`);
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
      this.deferred = this.deferred.filter(([c, t]) => c !== conn || t !== token);
      this.reclaimPending = this.reclaimPending.filter(([c, t]) => c !== conn || t !== token);
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
    const pieces = cutSnapshot(this.engine.snapshot());
    this.flushRun(); // the pieces are posted one by one (each bounded), after what was sent before
    if (pieces === null) {
      return conn.send({ t: H.queryFailed, call, name: 'QuotaExceededError', message: `The lock state is larger than query() returns (${LIMITS.queryBytes} bytes).` });
    }
    for (const piece of pieces) {
      try {
        conn.port.postMessage(/** @satisfies {HubMessage} */ ({ t: H.snapshot, call, held: piece.held, pending: piece.pending, more: piece.more }));
      } catch (error) {
        this.log('warn', `could not send a query answer to ${conn.clientId}: ${error?.message}`);
        return conn.send({ t: H.queryFailed, call, name: 'UnknownError', message: `The lock hub could not send the answer to query(): ${error?.message ?? error}` });
      }
    }
    return undefined;
  }

  /** @param {HubConnection} conn */
  adopt(conn, ports, worker) {
    if (!ports || ports.length !== 1) return this.reject(conn, 'adopt without exactly one port', { t: C.adopt });
    this.connect(ports[0], conn).workerNo = worker;
    return undefined;
  }

  /**
   * The creator terminated its worker and waited until it stopped running (terminatedWorkerRunsOn):
   * it no longer vouches for it (vouchedFor). A worker whose sentinel answered goes by the heartbeat
   * (the sentinel answers while the worker still runs); any other is gone at the next tick. Only a
   * connection's own workers can be named.
   * @param {HubConnection} conn
   */
  workerEnded(conn, worker) {
    for (const child of conn.children) if (child.workerNo === worker) this.workerStopsBy(child, this.now());
  }

  /** Dedicated worker `child` no longer runs after `time` (hub clock): from then on it is gone, unless its sentinel answers (tick). */
  workerStopsBy(child, time) {
    child.ended = true;
    child.stoppedBy = Math.min(child.stoppedBy, time);
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

  /** `conn` (a new port) took over `old`'s client (resume.js). */
  resumed(conn, old) {} // eslint-disable-line no-unused-vars

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
      if (conn.client === null || conn.tokenOfId.size === 0) continue;
      // An engine on ordinary (not shared) memory detaches its views when its memory grows.
      if (conn.bell.length === 0) conn.bell = this.engine.doorbell(conn.client).int32;
      const bell = Atomics.load(conn.bell, conn.bellIndex);
      if (bell === conn.seenBell) continue;
      conn.seenBell = bell;
      const events = this.engine.takeEvents(conn.client);
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

  // ---- liveness ----

  tick() {
    const now = this.now();
    // A hub that was itself starved (a flood of messages, a busy machine) cannot tell who was
    // silent: give everyone a fresh grace period instead of declaring the quiet ones dead.
    const late = now - (this.lastTick ?? now) > this.liveness.TICK * 3;
    this.lastTick = now;
    if (late) {
      for (const conn of this.connections) conn.lastSeen = Math.max(conn.lastSeen, now - this.liveness.PING_AFTER);
    }
    // While the hub's own echo is late it hears no one (hearing.js): nobody is declared dead, and
    // the silence until it hears again does not count.
    const deaf = this.hearing !== null && this.hearing.deaf();
    const hearingSince = this.hearing?.since ?? -Infinity;
    for (const conn of this.connections) {
      if (conn.frame) continue; // lives and goes with its embedder
      pingSentinel(this, conn, now);
      const silent = now - conn.lastSeen;
      if (conn.client === null) {
        // Never registered, or closed and not back: forget it after a while.
        if (silent > this.liveness.DEAD_AFTER * 20) this.forget(conn);
        continue;
      }
      // Dead when neither the context nor its sentinel answered for DEAD_AFTER: a context busy in
      // its own long task keeps its locks while its sentinel answers. Silence proves nothing of a
      // context whose sentinel never answered (none could start: a Content-Security-Policy, a
      // missing weblocks-sentinel.js): it keeps its locks until its port closes or it says bye.
      // A dedicated worker that was terminated has stopped running by stoppedBy: unless its own
      // sentinel, which answers while it runs, tells otherwise, it is gone then.
      const unheard = now - Math.max(lastHeardFrom(conn), hearingSince);
      if (conn.ended && now >= conn.stoppedBy && silenceProvesNothing(conn)) {
        this.log('info', `${conn.clientId} declared dead (a dedicated worker that was terminated, and has stopped running by now), its locks released`);
        this.close(conn, { tell: true, why: 'it was terminated', cause: 'terminated' });
      } else if (unheard >= this.liveness.DEAD_AFTER && !deaf && !vouchedFor(conn) && !silenceProvesNothing(conn)) {
        const why = silenceOf(conn, now);
        this.log('info', `${conn.clientId} declared dead (${why}), its locks released`);
        this.close(conn, { tell: true, why, cause: 'heartbeat' });
      } else if (unheard >= this.liveness.DEAD_AFTER && !deaf && !conn.toldUnwatched && !conn.ended && silenceProvesNothing(conn)) {
        conn.toldUnwatched = true;
        this.log('warn', `${conn.clientId} has been silent for ${Math.round(unheard)} ms and has no sentinel that ever answered: `
          + 'it may be busy, so its locks stay held until its port closes or it says bye (serve weblocks-sentinel.js next to the hub, and allow it: worker-src \'self\')');
      }
      if (silent >= this.liveness.PING_AFTER && now - (conn.lastPing ?? 0) >= this.liveness.PING_AFTER && conn.client !== null) {
        conn.lastPing = now;
        conn.send({ t: H.ping });
      }
    }
  }

  /**
   * Agent termination (spec: the agent's locks are released and its requests aborted). `tell`:
   * the context may be alive after all (frozen, throttled): it is told, and treats its locks as stolen.
   * Its dedicated workers: declared dead (`cause`: its process is gone, and they with it), they go
   * with it. Left cleanly (bye: a removed frame, a navigation; its port closed), the browser
   * terminates them, but a busy one may run on a while (terminatedWorkerRunsOn): they are ended,
   * and go when their sentinel stops answering, or, without one, once they have surely stopped.
   * @param {HubConnection} conn
   * @param {{ tell?: boolean, why?: string, cause?: string, confirmedBy?: string }} options
   */
  close(conn, { tell, why, cause, confirmedBy }) {
    const now = this.now();
    for (const child of [...conn.children]) {
      if (child.frame) { this.dropFrame(child); continue; } // same event loop: gone with its embedder
      if (child.client === null) continue;
      if (cause === undefined) this.workerStopsBy(child, now + terminatedWorkerRunsOn(this.liveness));
      else this.close(child, { tell: true, why: why && `its creator was declared dead: ${why}` });
    }
    if (conn.client === null) return;
    if (cause !== undefined && !conn.frame) this.verdict(conn, cause, true, confirmedBy);
    const client = conn.client;
    conn.client = null;
    conn.dead = true;
    if (conn.observers !== undefined) {
      for (const observer of conn.observers.values()) observer.stop();
      conn.observers.clear();
    }
    conn.tokens.clear();
    this.inbox.drop(conn);
    conn.helloQueued = 0;
    conn.queries = 0;
    this.quota.refundAll(conn);
    conn.tokenOfId.clear();
    conn.unsentOrder = [];
    detachSentinel(conn);
    unwatchAlive(conn);
    if (this.clientIds.get(conn.clientId) === conn) this.clientIds.delete(conn.clientId);
    this.deferred = this.deferred.filter(([c]) => c !== conn);
    this.reclaimPending = this.reclaimPending.filter(([c]) => c !== conn);
    this.closing(conn);
    this.engine.closeClient(client);
    if (tell && !conn.frame) conn.send(why === undefined ? { t: H.dead } : { t: H.dead, why });
    this.deliverEvents();
    // No registered client left: nobody can hold or wait under this hub, and its record says so.
    if (this.succession !== null && this.clientIds.size === 0) this.succession.idle();
  }

  /** Whether a silence of `conn` proves it gone (a sentinel of its own answered before; no creator vouches for it). @param {HubConnection} conn */
  silenceCounts(conn) {
    return !vouchedFor(conn) && !silenceProvesNothing(conn);
  }

  /** The hub's echo to itself is late: it hears no one now (hearing.js). */
  deaf() {
    return this.hearing !== null && this.hearing.deaf();
  }

  /** Says on the announcement channel what the hub decided about a silent context, and why (diagnostics, tests). @param {HubConnection} conn */
  verdict(conn, cause, dead, confirmedBy) {
    const said = { t: ANNOUNCE.verdict, clientId: conn.clientId, cause, dead };
    if (confirmedBy !== undefined) said.confirmedBy = confirmedBy;
    try { this.channel?.postMessage(said); } catch { /* closed */ }
  }

  /** The port is gone for good. */
  forget(conn) {
    if (conn.gone) return;
    this.close(conn, { tell: false });
    this.inbox.drop(conn);
    conn.helloQueued = 0;
    this.quota.refundAll(conn);
    conn.gone = true;
    this.connections.delete(conn);
    if (conn.parent !== null) conn.parent.children.delete(conn);
    this.flushRun();
    try { conn.port.close(); } catch { /* already closed */ }
  }

  stop() {
    this.flushRun();
    for (const conn of this.connections) unwatchAlive(conn);
    this.inbox.stop();
    clearInterval(this.timer);
    this.hearing?.stop();
    clearTimeout(this.reclaimTimer);
    clearTimeout(this.orderTimer);
    if (this.channel !== null) this.channel.close();
  }
}

/**
 * A dedicated worker without a sentinel (Firefox, js/browser/sentinel.js isFirefox; or a
 * Content-Security-Policy without blob: workers) is alive while the context that created it is: a
 * worker ends with its creator (whose liveness the hub follows; its end closes the worker's
 * connections too, close()), by its creator's terminate() (which says so once the worker has
 * stopped running: C.ended), or by its own close() (which says bye). So a silent one is busy in a
 * long task and keeps its locks, as with native Web Locks. A terminate() the polyfill does not
 * see (the browser's own, through a reference taken before it loaded) leaves such a worker's
 * locks held until its creator goes.
 * @param {HubConnection} conn
 */
function vouchedFor(conn) {
  return conn.sentinel === null && conn.parent !== null && !conn.ended && conn.parent.client !== null && !conn.parent.gone;
}

/**
 * Silence proves a context gone only where a sentinel of its own has answered (it shares the
 * context's process, not its event loop: both silent means the process stopped). Otherwise a
 * silent context may just be busy in a long task: declaring it dead would hand its lock to another
 * while its callback runs. (A terminated dedicated worker goes by stoppedBy instead: tick.)
 * @param {HubConnection} conn
 */
function silenceProvesNothing(conn) {
  return !(conn.sentinel !== null && conn.sentinel !== undefined && conn.sentinel.answers > 0);
}


function defaultLog(level, text) {
  (console[level] ?? console.log).call(console, text);
}
