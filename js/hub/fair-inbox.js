// Fair service of the hub's connections. The browser delivers the messages of every port in one
// first-in-first-out queue: a connection that floods the hub would make every other connection
// wait behind its backlog. So receiving a message only files it in its connection's own inbox
// (cheap), and each pass gives every connection with work up to `quantum` messages (and at most
// `slice` ms); a pass stops after `budget` ms to let the browser deliver what arrived meanwhile.
// An honest connection's message is therefore handled within the next pass, whatever the backlog
// of others. Within a pass, messages are handled in the order they arrived, across connections:
// the lock space must queue requests in the order they were made (spec 3.2.2), and serving the
// inboxes one after the other grouped them by connection instead (WebKit, whose first hello took
// longer than `slice`, listed three frames' interleaved requests frame by frame: issue 46). When nothing is queued
// anywhere and its connection has spent less than `slice` ms being handled at once since the
// hub's last pass, a message is handled at once (no extra task: the common case costs nothing);
// beyond that, a burst (a flood) goes through the inboxes. A connection with `maxQueued` messages
// waiting sends faster than its share can serve and ignores flow control (js/browser/flow.js
// never has that many unhandled): `full(conn)` says so, and the hub stops reading that connection
// (hub-transport.js cut). What it had filed is still handled in its turn, and it keeps its locks.

export class FairInbox {
  /**
   * @param handle  (conn, item) => void: handles one filed message
   * @param {object} [options] { now, quantum, slice, budget, maxQueued }
   */
  constructor(handle, options = {}) {
    this.handle = handle;
    this.now = options.now ?? (() => performance.now());
    this.quantum = options.quantum ?? 32;
    this.slice = options.slice ?? 2;
    this.budget = options.budget ?? 8;
    this.maxQueued = options.maxQueued ?? 5_000;
    this.pass_ = 0;           // number of the current pass: per-connection allowances reset with it
    this.lastPass = -Infinity; // when the last pass ended
    this.ring = [];          // connections with queued messages, in their turn order
    this.ringHead = 0;
    this.queued = 0;         // messages queued, all connections together
    this.arrivals = 0;       // numbers filed messages in arrival order
    this.serving = false;
    this.scheduled = false;
    this.stopped = false;
    this.wake = makeWake(() => this.pass());
    /** Measurements: passes run, longest pass (ms), most messages queued at once. */
    this.stats = { passes: 0, longestPass: 0, mostQueued: 0 };
  }

  /** Files a message; handles it now when nothing else waits. */
  add(conn, item) {
    if (conn.inbox === undefined) { conn.inbox = []; conn.inboxHead = 0; }
    if (conn.fastPass !== this.pass_) { conn.fastPass = this.pass_; conn.fastSpent = 0; }
    if (this.queued === 0 && !this.serving && conn.fastSpent < this.slice) {
      this.serving = true;
      const start = this.now();
      try { this.handle(conn, item); } finally {
        this.serving = false;
        conn.fastSpent += this.now() - start;
        if (conn.fastSpent >= this.slice) this.schedule(); // a pass renews the allowance
      }
      return;
    }
    if (conn.inbox.length - conn.inboxHead === 0) this.ring.push(conn);
    item.arrival = ++this.arrivals;
    conn.inbox.push(item);
    this.queued++;
    if (this.queued > this.stats.mostQueued) this.stats.mostQueued = this.queued;
    // The next pass is a task behind what the browser already has to deliver: a flooding connection
    // is served no faster than that, and its inbox grows until it is full (the hub stops reading it).
    this.schedule();
  }

  /** Whether `conn` has as many messages waiting as it may (hub-transport.js cut). */
  full(conn) {
    return this.pending(conn) >= this.maxQueued;
  }

  /** Messages of `conn` still waiting (dropped when it closes). */
  pending(conn) {
    return conn.inbox === undefined ? 0 : conn.inbox.length - conn.inboxHead;
  }

  /** Forgets what `conn` still had queued; returns those items. */
  drop(conn) {
    if (this.pending(conn) === 0) return [];
    const items = conn.inbox.slice(conn.inboxHead);
    this.queued -= items.length;
    conn.inbox = [];
    conn.inboxHead = 0;
    return items;
  }

  schedule() {
    if (this.scheduled || this.stopped) return;
    this.scheduled = true;
    this.wake();
  }

  pass() {
    this.scheduled = false;
    this.pass_++;
    if (this.stopped) return;
    this.serving = true;
    const start = this.now();
    this.stats.passes++;
    // This pass's connections (nothing arrives during it: it runs in one task). Deficit on time:
    // each round earns `slice` ms; a message that took longer (a query of a large state) is paid
    // back by sitting out rounds, so a connection's share of the hub's time stays one slice per
    // round however costly its messages.
    const turns = this.ring.slice(this.ringHead);
    this.ring = []; // what add() files meanwhile (a handled message's own work) goes here
    this.ringHead = 0;
    // A round: each connection may have `quantum` messages and `slice` ms; a pass runs rounds
    // until its budget is spent or nobody has a share left.
    const newRound = () => {
      let anyone = false;
      for (const conn of turns) {
        conn.deficit = Math.min((conn.deficit ?? 0) + this.slice, this.slice);
        conn.served = 0;
        if (conn.deficit > 0 && this.pending(conn) > 0) anyone = true;
      }
      return anyone;
    };
    newRound();
    try {
      while (this.now() - start < this.budget) {
        // The oldest message among the connections that still have a share of this round. A scan:
        // only connections with queued messages are in `turns` (a flood's sender and a few others).
        let next = null;
        for (const conn of turns) {
          if (this.pending(conn) === 0 || conn.served >= this.quantum || conn.deficit <= 0) continue;
          if (next === null || conn.inbox[conn.inboxHead].arrival < next.inbox[next.inboxHead].arrival) next = conn;
        }
        if (next === null) {
          if (newRound()) continue;
          break;
        }
        const item = next.inbox[next.inboxHead];
        next.inbox[next.inboxHead++] = undefined;
        this.queued--;
        next.served++;
        const at = this.now();
        this.handle(next, item);
        next.deficit -= this.now() - at;
      }
    } finally {
      this.serving = false;
      // Connections with messages left wait for the next pass.
      const waiting = new Set();
      for (const conn of turns.concat(this.ring)) {
        if (this.pending(conn) > 0) {
          waiting.add(conn);
          if (conn.inboxHead > 1024 && conn.inboxHead * 2 > conn.inbox.length) {
            conn.inbox = conn.inbox.slice(conn.inboxHead);
            conn.inboxHead = 0;
          }
        } else if (conn.inbox !== undefined) { conn.inbox = []; conn.inboxHead = 0; conn.deficit = 0; }
      }
      this.ring = [...waiting];
      this.lastPass = this.now();
      const took = this.lastPass - start;
      if (took > this.stats.longestPass) this.stats.longestPass = took;
      if (this.queued > 0) this.schedule();
    }
  }

  stop() {
    this.stopped = true;
    /** @type {any} (close: the MessageChannel's, where there is one) */ (this.wake).close?.();
  }
}

/**
 * A task at the back of the event loop's queue, without timer clamping: a message to ourselves.
 * (setTimeout(0) is clamped to 4 ms once nested, which would idle the hub under load.)
 */
function makeWake(run) {
  if (typeof MessageChannel === 'function') {
    const channel = new MessageChannel();
    channel.port1.onmessage = run;
    // (Node's ports have unref, the DOM's do not.)
    /** @type {any} */ (channel.port2).unref?.();
    /** @type {any} */ (channel.port1).unref?.();
    const wake = () => channel.port2.postMessage(null);
    wake.close = () => { channel.port1.onmessage = null; channel.port1.close(); };
    return wake;
  }
  return () => setTimeout(run, 0);
}
