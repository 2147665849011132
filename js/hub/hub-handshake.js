// The hub's handshake and reclaim: a context's hello (registration, its locks and requests taken
// back after a hub loss, or its live connection resumed on a new port: resume.js), and the reclaim
// window that holds new requests back until the lost hub's clients have re-registered. The window's
// decisions are reclaim-window.js's; this layer keeps its timer and submits what it says is ready.
import { MODE, WAIT, STATUS } from '../engine/index.js';
import { PROTOCOL_VERSION, LIMITS, ANNOUNCE, H } from './protocol.js';
import { requestCost } from './quota.js';
import { resume } from './resume.js';
import { PREDECESSOR } from './succession.js';
import { HubTransport } from './hub-transport.js';
import { ReclaimWindow } from './reclaim-window.js';
import { HELD, DEFERRED } from './lock-core.js';
import { ENDING } from './connection.js';
/** @import { HubConnection } from './connection.js' */

export class HubHandshake extends HubTransport {
  /**
   * @param engine  an Engine (js/engine)
   * @param {object} [options] the Hub's (hub.js); here: predecessor, succession
   */
  constructor(engine, options = {}) {
    super(engine, options);
    this.succession = options.succession ?? null;
    this.predecessor = this.succession?.predecessor ?? options.predecessor ?? PREDECESSOR.unknown;
    this.recording = false;     // true while the record is being told this hub serves clients again
    this.window = new ReclaimWindow({
      now: this.now, liveness: this.liveness, predecessor: this.predecessor, log: (level, text) => this.log(level, text),
    });
    this.reclaimTimer = null;
  }

  /** The held markers are listed (held-markers.js): any whose context lives opens the reclaim window. */
  markersScanned() {
    if (this.window.markersScanned()) this.openReclaimWindow();
  }

  /** A context answered the announcement: it held locks or waited under another hub. */
  heard(m) {
    if (m === null || typeof m !== 'object' || m.t !== ANNOUNCE.hadHub || typeof m.hubId !== 'string' || m.hubId === this.hubId) return;
    this.claimOfLostHub(m.hubId);
    if (typeof m.clientId === 'string' && m.clientId.length <= LIMITS.clientIdLength) this.survivorAlive(m.clientId);
  }

  /** The sentinel of a context that held or waited under a lost hub says it lives (reclaim-window.js survivorAlive). */
  survivorAlive(clientId) {
    this.window.survivorAlive(clientId, this.clientIds.has(clientId));
  }

  /** A context says it held or waited under hub `lostHub`, which is gone (reclaim-window.js claim). */
  claimOfLostHub(lostHub) {
    if (this.window.claim(lostHub)) this.openReclaimWindow();
  }

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
      // with its key, and keeps what it holds and its places in the queues (resume.js). Unless the
      // port is one it left before the one it speaks on now: a hub deaf for a while (WebKit: the
      // tab it runs in was busy) reads the hellos of several ports at once, in any order across
      // ports, and the session must stay on the newest (the others are closed: what goes there is
      // lost). Counts are one context's: another process adopting a machine client has its own.
      if (this.sameContext(holder, m.key)) {
        if (m.adopt !== true && (m.attempt ?? 0) < holder.attempt) return this.end(conn, ENDING.moved);
        return resume(this, conn, holder, m);
      }
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
    conn.attempt = m.attempt ?? 0;
    this.registered(conn, m);
    this.serving();

    // A client whose hub was lost re-registers here. Its held locks are taken back only by a hub
    // that is not the one it lost (a hub that declared it dead has released them) and only while
    // the reclaim window is open (later, someone else may have held them meanwhile).
    const fromLostHub = m.lostHub !== null && m.lostHub !== this.hubId;
    if (fromLostHub) this.claimOfLostHub(m.lostHub);
    const inWindow = this.window.isOpen();
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
        this.window.queue(owner, entry.token, entry.seq ?? Number.MAX_SAFE_INTEGER);
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
    return this.window.isOpen() || this.recording;
  }

  /** @param {HubConnection} conn */
  unqueue(conn, token) {
    super.unqueue(conn, token);
    this.window.unqueue(conn, token);
  }

  openReclaimWindow() {
    clearTimeout(this.reclaimTimer);
    const lasts = this.window.open();
    this.reclaimTimer = setTimeout(() => this.closeReclaimWindow(), lasts);
  }

  closeReclaimWindow() {
    const { retryIn, ready } = this.window.close((clientId) => this.clientIds.has(clientId));
    if (ready === null) {
      this.reclaimTimer = setTimeout(() => this.closeReclaimWindow(), retryIn);
      return;
    }
    for (const [conn, token] of ready) this.submit(conn, token);
    const admitted = this.recording ? 0 : this.admitDeferred();
    if (this.window.started) this.log('info', `reclaim window closed: ${ready.length} waiting requests re-queued, ${admitted} new ones admitted`);
  }
}
