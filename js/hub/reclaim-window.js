// The reclaim window: after a hub loss, the clients of the lost hub re-register here (their held
// locks, their waiting requests in the lost hub's order) before any new request is granted. This
// object takes facts (a claim of a lost hub, a survivor heard, held markers listed, the clock) and
// returns decisions (open now, wait longer, or the re-registered requests ready to submit, in
// order); it calls nothing of the hub. The hub (hub-handshake.js) keeps its timer and submits.
import { LIMITS } from './protocol.js';
import { PREDECESSOR } from './succession.js';

export class ReclaimWindow {
  /**
   * @param {{ now: () => number, liveness: Record<string, number>, predecessor: string, log: (level: string, text: string) => void }} facts
   */
  constructor({ now, liveness, predecessor, log }) {
    this.now = now;
    this.liveness = liveness;
    this.predecessor = predecessor;
    this.log = log;
    this.until = 0;             // the window's (or start-up hold's) deadline; 0 once close() closed it
    this.started = false;       // a reclaim window opened (once in a hub's life)
    this.startedAt = now();
    this.refusedClaims = 0;
    this.pending = [];          // re-registered waiting requests: [conn, token, seq, arrival]
    this.arrivals = 0;
    this.survivors = new Map(); // clientId -> when its sentinel last said it survives a lost hub (survivorAlive)
    // Contexts busy since the lost hub died, with no sentinel to say so: their held markers
    // (held-markers.js) keep the window open. Listed during the start-up hold.
    this.heldMarkers = new Set(); // names of the markers whose delete waits
    this.toldOfMarkers = false;
    this.scanningMarkers = false;
  }

  /**
   * Whether new requests wait now: from the start-up hold or the window's opening until close()
   * has closed it, not only until its deadline. Between a deadline and its close() (the timer due,
   * a loaded thread) a newcomer would be granted a busy survivor's lock, and the survivor's hello
   * told its held lock was stolen.
   */
  isOpen() {
    return this.until !== 0;
  }

  /** The start-up hold of an announced hub: returns how long it lasts (ms). */
  holdAtStart() {
    this.until = this.now() + this.liveness.STARTUP_HOLD;
    return this.liveness.STARTUP_HOLD;
  }

  /** Opens the window: returns how long until it may close (ms). */
  open() {
    this.started = true;
    this.until = this.now() + this.liveness.RECLAIM_WINDOW;
    this.log('info', `a previous hub was lost: reclaim window open for ${this.liveness.RECLAIM_WINDOW} ms`);
    return this.liveness.RECLAIM_WINDOW;
  }

  /**
   * A context says it held or waited under hub `lostHub`, which is gone: whether the window opens
   * now. It opens once, only in a young hub (clients notice a loss within ~2 s: an old hub is not
   * the successor of the one they lost) and only if the previous hub did leave clients behind
   * (succession.js): otherwise the claim cannot be true, and nothing anyone sends holds grants back.
   */
  claim(lostHub) {
    if (this.started) return false;
    if (this.predecessor === PREDECESSOR.none) {
      if (this.refusedClaims++ === 0) this.log('warn', `a context claims a lost hub (${String(lostHub).slice(0, 40)}), but the hub before this one ended with no clients: no reclaim window`);
      return false;
    }
    return this.now() - this.startedAt < this.liveness.RECLAIM_WINDOW * 2;
  }

  /**
   * The sentinel of a context that held or waited under a lost hub says that context lives and has
   * not re-registered yet (busy in a long task: js/browser/sentinel-worker.js). While the window is
   * open, it stays open as long as such a survivor is heard (within SURVIVOR_SILENT_AFTER) and has
   * not registered: a time-based window alone would give a busy holder's lock to a waiter while its
   * callback still runs. Only a hub whose predecessor may have left clients listens, as for claims.
   * `registered`: whether that clientId is registered here already.
   */
  survivorAlive(clientId, registered) {
    // Heard until the window has closed (close() sets `until` to 0), not only before its deadline:
    // between a deadline and its close() (a timer due, a loaded thread) a survivor's word counts.
    if (this.predecessor === PREDECESSOR.none || !this.started || this.until === 0) return;
    if (registered) return;
    if (!this.survivors.has(clientId)) {
      if (this.survivors.size >= LIMITS.survivors) return;
      this.log('info', `${clientId} survives the lost hub (its sentinel says so): the reclaim window waits for it`);
    }
    this.survivors.set(clientId, this.now());
  }

  /** A survivor heard lately that has not registered here yet. @param {(clientId: string) => boolean} registered */
  survivorsWaited(registered) {
    const now = this.now();
    for (const [clientId, heardAt] of this.survivors) {
      if (registered(clientId) || now - heardAt >= this.liveness.SURVIVOR_SILENT_AFTER) this.survivors.delete(clientId);
    }
    return this.survivors.size > 0;
  }

  /** The held markers are listed (held-markers.js): whether the window opens now (a marked context lives). */
  markersScanned() {
    if (!this.scanningMarkers) return false;
    this.scanningMarkers = false;
    return this.heldMarkers.size > 0 && !this.started;
  }

  /** A re-registered waiting request, in its order at the lost hub (`seq`), then by arrival here. */
  queue(conn, token, seq) {
    this.pending.push([conn, token, seq, this.arrivals++]);
  }

  /** Forgets a re-registered request of `conn` (`token`), or all of them (no token). */
  unqueue(conn, token = undefined) {
    this.pending = this.pending.filter(([c, t]) => c !== conn || (token !== undefined && t !== token));
  }

  /**
   * The window's time is up: either it waits one TICK more (a survivor, a held marker, a scan not
   * done: returns { retryIn }), or it closes and returns the re-registered requests ready to submit,
   * in their order at the lost hub ({ ready: [conn, token, seq, arrival][] }).
   * @param {(clientId: string) => boolean} registered
   */
  close(registered) {
    const now = this.now();
    // The hub's own timer came late (its thread was starved): what survivors said meanwhile may
    // still wait in its queue, so their silence proves nothing yet. Each gets a fresh grace, and
    // the window is looked at again one TICK on (as tick() does for connections: hub.js).
    if (this.until > 0 && now - this.until > this.liveness.TICK * 3 && this.survivors.size > 0) {
      const graceFrom = now - this.liveness.SURVIVOR_SILENT_AFTER + this.liveness.TICK * 2;
      for (const [clientId, heardAt] of this.survivors) this.survivors.set(clientId, Math.max(heardAt, graceFrom));
      this.until = now + this.liveness.TICK;
      return { retryIn: this.liveness.TICK, ready: null };
    }
    if (this.heldMarkers.size > 0 && !this.toldOfMarkers) {
      this.toldOfMarkers = true;
      this.log('info', `the reclaim window waits for ${this.heldMarkers.size} busy survivor(s) of the lost hub with no sentinel`);
    }
    if (this.survivorsWaited(registered) || this.scanningMarkers || this.heldMarkers.size > 0) {
      this.until = this.now() + this.liveness.TICK;
      return { retryIn: this.liveness.TICK, ready: null };
    }
    this.until = 0;
    // Waiting requests in their order at the lost hub, then what arrived during the window.
    const ready = this.pending.sort((a, b) => a[2] - b[2] || a[3] - b[3]);
    this.pending = [];
    return { retryIn: 0, ready };
  }
}
