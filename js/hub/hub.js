// The hub: one lock engine serving every context of an origin over MessagePorts. Each port is one
// engine client (the spec's agent); its messages are validated (protocol.js) and can name only
// that connection's own tokens. Liveness: `bye` (pagehide), the port `close` event where the
// browser fires it, a window's alive database closed by the browser (alive.js), and a heartbeat
// for crashed tabs and terminated workers. After a hub loss the
// clients re-register here; a reclaim window holds back new requests until they have.
// Independent of SharedWorker: hub-worker.js wires it to `onconnect`; tests can drive it directly.
// The layers, each a file (docs/internals.md): lock-core.js (the spec's algorithms on the engine)
// < hub-transport.js (ports, validation, fair turns, batches) < hub-handshake.js (hello, resume,
// the reclaim window) < this file (the dispatch of each message, liveness, and ending a connection).
import { C, H, ANNOUNCE } from './protocol.js';
import { attachSentinel, detachSentinel, pingSentinel } from './sentinels.js';
import { watchAlive, unwatchAlive, listDatabases, sweepAliveDatabases } from './alive.js';
import { awaitHeldMarkers } from './held-markers.js';
import { Hearing } from './hearing.js';
import { terminatedWorkerRunsOn } from './terminated-worker.js';
import { PREDECESSOR } from './succession.js';
import { HubHandshake } from './hub-handshake.js';
import { judge, silenceCounts } from './liveness-judge.js';
import { ENDING } from './connection.js';
/** @import { HubConnection, Ending } from './connection.js' */

export class Hub extends HubHandshake {
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
    super(engine, options);
    this.hearing = options.hearing ? new Hearing(options.hearing, this.now, this.liveness.ECHO_LATE) : null;
    this.indexedDB = options.indexedDB ?? null;
    // One listing of the origin's databases for both sweeps: alive databases, held markers (below).
    const listing = this.indexedDB === null ? null : listDatabases(this.indexedDB);
    listing?.then((names) => sweepAliveDatabases(this.indexedDB, names), () => { /* no list: they stay */ });
    this.timer = setInterval(() => this.tick(), this.liveness.TICK);
    // The origin-wide hub announces itself (the in-context fallback does not): contexts that
    // still hold locks under a hub that just died answer, and this hub opens its reclaim window
    // before a newcomer can be granted what they hold. A hub whose predecessor left no clients
    // (succession.js) has no one to wait for.
    this.channel = options.announce ?? null;
    if (this.channel !== null) {
      this.channel.onmessage = (event) => this.heard(event.data);
      if (this.predecessor !== PREDECESSOR.none) {
        const lasts = this.window.holdAtStart();
        this.reclaimTimer = setTimeout(() => this.closeReclaimWindow(), lasts);
      }
      this.channel.postMessage({ t: ANNOUNCE.started, hubId: this.hubId });
    }
    // Contexts busy since the lost hub died, with no sentinel to say so: their held markers
    // (held-markers.js) keep the reclaim window open (reclaim-window.js heldMarkers).
    const lostHubs = this.predecessor === PREDECESSOR.lost && this.reclaimTimer !== null ? this.succession?.lostHubs ?? [] : [];
    this.window.scanningMarkers = lostHubs.length > 0 && this.indexedDB !== null;
    if (this.indexedDB !== null) {
      awaitHeldMarkers(this.indexedDB, listing, {
        hubId: this.hubId, lostHubs, pending: this.window.heldMarkers, timeout: this.liveness.MARKERS_LISTED_WITHIN,
        log: (level, text) => this.log(level, text), scanned: () => this.markersScanned(),
      });
    }
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
        case C.bye: return this.end(conn, ENDING.bye);
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
        case C.left: return this.end(frame, ENDING.left);
        default: return undefined;
      }
    } catch (error) {
      this.log('error', `failed to handle ${message.t} from ${frame.clientId} (a frame of ${conn.clientId}): ${error?.stack ?? error}`);
      return undefined;
    }
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
    const facts = { now, deaf: this.deaf(), hearingSince: this.hearing?.since ?? -Infinity, deadAfter: this.liveness.DEAD_AFTER };
    for (const conn of this.connections) {
      if (conn.frame) continue; // lives and goes with its embedder
      pingSentinel(this, conn, now);
      const silent = now - conn.lastSeen;
      const found = judge(conn, facts); // liveness-judge.js
      if (found?.verdict === 'forget') this.end(conn, ENDING.gone);
      if (conn.client === null) continue;
      if (found?.verdict === 'terminated') {
        this.log('info', `${conn.clientId} declared dead (a dedicated worker that was terminated, and has stopped running by now), its locks released`);
        this.end(conn, ENDING.dead, { why: 'it was terminated', cause: 'terminated' });
      } else if (found?.verdict === 'dead') {
        this.log('info', `${conn.clientId} declared dead (${found.why}), its locks released`);
        this.end(conn, ENDING.dead, { why: found.why, cause: 'heartbeat' });
      } else if (found?.verdict === 'unwatched') {
        conn.toldUnwatched = true;
        this.log('warn', `${conn.clientId} has been silent for ${Math.round(found.unheard)} ms and has no sentinel that ever answered: `
          + 'it may be busy, so its locks stay held until its port closes or it says bye (serve weblocks-sentinel.js next to the hub, and allow it: worker-src \'self\')');
      }
      if (silent >= this.liveness.PING_AFTER && now - (conn.lastPing ?? 0) >= this.liveness.PING_AFTER && conn.client !== null) {
        conn.lastPing = now;
        conn.send({ t: H.ping });
      }
    }
  }

  /**
   * The one way a connection ends, `how` (ENDING, connection.js):
   * - bye: the context said so (pagehide, a worker's close()); dead: the hub declared it dead
   *   (`why`, `cause`: its liveness evidence; `confirmedBy`) and tells it, as it may be alive after
   *   all (frozen, throttled) and must treat its locks as stolen. Either way its session ends (the
   *   spec's agent termination: locks released, requests aborted); the port stays, and a hello on it
   *   may register again.
   * - gone: its port is gone for good (closed, never spoke, refused); left: a frame left (C.left)
   *   or went with its embedder. The session ends, then the connection.
   * - moved: its session went on on a new port (resume.js): only the old port's part ends.
   * @param {HubConnection} conn
   * @param {Ending} how
   * @param {{ why?: string, cause?: string, confirmedBy?: string }} [evidence] (dead only)
   */
  end(conn, how, evidence = {}) {
    if (how !== ENDING.moved) this.endSession(conn, how === ENDING.dead, evidence);
    if (how !== ENDING.bye && how !== ENDING.dead) this.endConnection(conn);
  }

  // end's steps (call end: the one way in).

  /**
   * Agent termination (spec: the agent's locks are released and its requests aborted). `tell`:
   * it is told (H.dead). Its dedicated workers: declared dead with it when it was (`cause`: its
   * process is gone, and they with it). Left cleanly (bye: a removed frame, a navigation; its port
   * closed), the browser terminates them, but a busy one may run on a while
   * (terminatedWorkerRunsOn): they are ended, and go when their sentinel stops answering, or,
   * without one, once they have surely stopped. Its frames go with it (same event loop).
   * @param {HubConnection} conn
   * @param {boolean} tell
   * @param {{ why?: string, cause?: string, confirmedBy?: string }} evidence
   */
  endSession(conn, tell, { why, cause, confirmedBy }) {
    const now = this.now();
    for (const child of /** @type {HubConnection[]} */ ([...conn.children])) {
      if (child.frame) { this.end(child, ENDING.left); continue; }
      if (child.client === null) continue;
      if (cause === undefined) this.workerStopsBy(child, now + terminatedWorkerRunsOn(this.liveness));
      else this.end(child, ENDING.dead, { why: why && `its creator was declared dead: ${why}` });
    }
    if (conn.client === null) return;
    if (cause !== undefined && !conn.frame) this.verdict(conn, cause, true, confirmedBy);
    const client = conn.client;
    conn.client = null;
    conn.dead = true;
    this.stopObservers(conn);
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
    this.window.unqueue(conn);
    this.closing(conn);
    this.engine.closeClient(client);
    if (tell && !conn.frame) conn.send(why === undefined ? { t: H.dead } : { t: H.dead, why });
    this.deliverEvents();
    // No registered client left: nobody can hold or wait under this hub, and its record says so.
    if (this.succession !== null && this.clientIds.size === 0) this.succession.idle();
  }

  /** The connection itself goes: what its port had (inbox, charges, observers, sentinel, alive database), and its place among its creator's. @param {HubConnection} conn */
  endConnection(conn) {
    if (conn.gone) return;
    this.inbox.drop(conn);
    conn.helloQueued = 0;
    this.quota.refundAll(conn);
    this.stopObservers(conn);
    detachSentinel(conn);
    unwatchAlive(conn);
    conn.gone = true;
    this.connections.delete(conn);
    if (conn.parent !== null) conn.parent.children.delete(conn);
    if (conn.frame) conn.parent.frames?.delete(conn.clientId);
    this.flushRun();
    if (conn.port !== null) try { conn.port.close(); } catch { /* already closed */ }
  }

  /** @param {HubConnection} conn */
  stopObservers(conn) {
    if (conn.observers === undefined) return;
    for (const observer of conn.observers.values()) observer.stop();
    conn.observers.clear();
  }

  /** Whether a silence of `conn` proves it gone (a sentinel of its own answered before; no creator vouches for it). @param {HubConnection} conn */
  silenceCounts(conn) {
    return silenceCounts(conn);
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
