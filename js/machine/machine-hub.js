// The hub of a machine lock space: js/hub/hub.js, plus what a hub of processes can have and a
// browser's cannot: proof of who holds what and whether they live.
// - Every hold and wait is written to the journal (journal.js) before anyone hears of it.
// - A starting hub reads the journal of the hubs before it and takes over, at once, the locks and
//   the queue places of every client whose thread still lives (process-proof.js), as if the
//   client were connected: a holder paused across any number of hub deaths keeps its locks for as
//   long as it lives, however long it is paused, and gets them back when it reconnects (its hello
//   resumes that client: resume.js). The locks of clients that died go to their waiters as soon as
//   the hub serves; a client that dies later, before it reconnects, is seen within
//   ORPHAN_CHECK_MS. There is no reclaim window: nothing is guessed from time.
// - Every grant carries a fencing token, one counter for the lock space that the journal carries
//   across hubs (strictly increasing per name, steals and hub deaths included).
// - Every lock taken from a living client (a steal, its connection closed by the hub) is written
//   on that client's loss board (loss-board.js) before anyone else is granted it: the client settles
//   a request at once when its board shows no such loss. Every release is also confirmed
//   (H.released), after any news of the lock's loss on the same connection: the slow way, when the
//   board cannot rule a loss out.
// - Leases: a client may ask (hello `lease`, in ms) that its locks and queue places outlive its
//   thread for that long. When its socket closes without a bye, the hub keeps it (an orphan, granted
//   what it waits for, its locks given to no one) until its thread is gone and then for its lease;
//   a hello from another process with its clientId, its key and `adopt` takes it over (resume.js),
//   as its own thread would after a hub's death, and the welcome gives each held lock's fencing
//   token. A client whose thread lives is never adopted: two processes never speak for one client.
//   The lock server (js/server) asks for one per remote session, its grace: a server process killed
//   and started again finds its sessions' locks (docs/remote.md, "Server restarts").
import { createHash } from 'node:crypto';
import { Hub } from '../hub/hub.js';
import { ENDING } from '../hub/connection.js';
/** @import { HubConnection } from '../hub/connection.js' */
import { H, PROTOCOL_VERSION } from '../hub/protocol.js';
import { MODE, WAIT, STATUS } from '../engine/index.js';
import { PREDECESSOR } from '../hub/succession.js';
import { moveSession } from '../hub/resume.js';
import { requestCost } from '../hub/quota.js';
import { threadLives, unprovable } from './process-proof.js';
import { boardPath, raiseBoard, removeBoard } from './loss-board.js';
import { validLease } from './lease.js';

// Connections end with their socket, which the OS closes when their process or thread dies: no
// client is ever declared dead for being silent, and the hub pings no one. No client is told the
// place of its waiting requests (H.queued, for a browser hub's reclaim window): the journal keeps
// the queue's order across hub deaths (sendQueueOrder).
const LIVENESS = { DEAD_AFTER: Infinity, PING_AFTER: Infinity, QUEUE_ORDER_BATCH: 1000 };
// How often the threads of clients that have not reconnected since the last hub died are looked up.
const ORPHAN_CHECK_MS = 20;

const HELD = 1;    // (lock-core.js token states)
const PENDING = 0;

const hashKey = (key) => createHash('sha256').update(String(key)).digest('base64');

/** The port of a client known only from the journal: it has not reconnected yet. */
class Unconnected {
  postMessage() {}
  close() {}
  start() {}
  addEventListener() {}
}

export class MachineHub extends Hub {
  /** @param options Hub options, `journal` (journal.js) and `files` (place.js spaceFiles: where the loss boards are) */
  constructor(engine, { journal, files, ...options }) {
    super(engine, { ...options, liveness: { ...LIVENESS, ...options.liveness }, predecessor: PREDECESSOR.none });
    this.journal = journal;
    this.files = files ?? null;
    this.releasing = null;      // { conn, token } inside release(): that lock was given back, not lost
    this.fence = 0;
    this.clientNumbers = 0;
    this.orphans = new Set();   // connections of clients that have not reconnected to this hub
    this.orphanTimer = null;
    this.restoring = false;     // while takeOver() rebuilds the engine's state (the journal is rewritten after)
    this.gate = null;           // hub-limits.js ConnectionGate: told when a connection registers
  }
  /** Machine clients are processes and threads, not frames: a message that speaks for one (`as`) is refused. */
  servesFrames() { return false; }


  /**
   * Takes over from the journal, before serving: the holds and waits of clients whose threads
   * live, in their order; then rewrites the journal as this hub's own.
   */
  takeOver() {
    const { fence, clients } = this.journal.read();
    this.fence = fence;
    this.restoring = true;
    const held = [];
    const waiting = [];
    let dead = 0;
    for (const client of clients) {
      const lives = threadLives(client.proc);
      if (!lives && !(client.lease > 0 && client.entries.length > 0)) {
        if (this.files !== null) removeBoard(boardPath(this.files, client.clientId));
        if (client.entries.length > 0) dead++;
        continue;
      }
      if (client.entries.length === 0) continue;
      /** @type {HubConnection} */
      const conn = this.connect(new Unconnected());
      conn.keyHash = client.keyHash;
      conn.proc = client.proc;
      conn.lease = client.lease;
      // (when its thread died is not known: its lease counts from now, the longer of the two)
      if (!lives) conn.leaseUntil = this.now() + client.lease;
      conn.no = ++this.clientNumbers;
      this.openClient(conn, client.clientId);
      this.orphans.add(conn);
      for (const entry of client.entries) {
        conn.maxToken = Math.max(conn.maxToken, entry.token);
        (entry.held ? held : waiting).push([conn, entry]);
      }
    }
    const byOrder = (a, b) => a[1].order - b[1].order;
    let conflicts = 0;
    for (const [conn, entry] of held.sort(byOrder)) {
      const answer = this.engine.request(conn.client, entry.name, MODE[entry.mode], WAIT.noWait);
      if (answer.status !== STATUS.granted) {
        // Two holds that cannot both be: the later grant was written, and the hub died before it
        // could send it (a grant is sent only after the releases it follows are written).
        conflicts++;
        continue;
      }
      const record = { id: answer.id, state: HELD, entry: { name: entry.name, mode: entry.mode, wait: 'wait' }, fence: entry.fence };
      this.keep(conn, entry.token, record);
      conn.tokenOfId.set(answer.id, entry.token);
    }
    for (const [conn, entry] of waiting.sort(byOrder)) {
      this.keep(conn, entry.token, { id: 0, state: 2, entry: { name: entry.name, mode: entry.mode, wait: 'wait' } });
      this.submit(conn, entry.token); // (the journal is rewritten below, with what this grants)
    }
    this.restoring = false;
    this.journal.rewrite(this.snapshot());
    this.deliverEvents();
    this.watchOrphans();
    return { clients: this.orphans.size, held: held.length - conflicts, waiting: waiting.length, dead, conflicts };
  }

  /** @param {HubConnection} conn */
  keep(conn, token, record) {
    record.cost = requestCost(record.entry.name);
    this.quota.charge(conn, record.cost);
    conn.tokens.set(token, record);
  }

  /** The journal's lines for the hub's state now (journal.js). */
  snapshot() {
    const lines = [['f', this.fence]];
    const waiting = [];
    for (const conn of this.connections) {
      if (conn.client === null || conn.no === undefined) continue;
      lines.push(['c', conn.no, conn.clientId, conn.keyHash, conn.proc.pid, conn.proc.tid, conn.proc.start, conn.lease]);
      for (const [token, record] of conn.tokens) {
        if (record.state === HELD) lines.push(['g', conn.no, token, record.fence, record.entry.mode, record.entry.name]);
        else if (record.state === PENDING) waiting.push([record.seq, ['q', conn.no, token, record.entry.mode, record.entry.name]]);
      }
    }
    for (const [, line] of waiting.sort((a, b) => a[0] - b[0])) lines.push(line);
    return lines;
  }

  /**
   * A client that has not reconnected (since the last hub died, or since its socket closed, with a
   * lease): its locks go once its thread is gone and its lease, if any, has run out.
   */
  checkOrphans() {
    for (const conn of this.orphans) {
      if (conn.leaseUntil === undefined) {
        if (threadLives(conn.proc)) continue;
        if (conn.lease > 0) {
          conn.leaseUntil = this.now() + conn.lease;
          this.log('info', `${conn.clientId} ended: its locks are kept ${conn.lease} ms for a process that adopts it`);
          continue;
        }
        this.log('info', `${conn.clientId} ended before it reconnected: its locks released`);
      } else if (this.now() < conn.leaseUntil) {
        continue;
      } else {
        this.log('info', `${conn.clientId}'s lease ran out before a process adopted it: its locks released`);
      }
      this.end(conn, ENDING.gone);
    }
    if (this.orphans.size === 0) {
      clearInterval(this.orphanTimer);
      this.orphanTimer = null;
    }
  }

  watchOrphans() {
    if (this.orphans.size > 0 && this.orphanTimer === null) this.orphanTimer = setInterval(() => this.checkOrphans(), ORPHAN_CHECK_MS);
  }

  /**
   * A client with a lease whose socket closed without a bye is kept (the class comment, "Leases"):
   * its session moves to a connection without a port, as after a hub's death.
   * @param {HubConnection} conn
   * @param {import('../hub/connection.js').Ending} how
   */
  end(conn, how, evidence = {}) {
    // (a socket the other side closed: its SocketPort says so before the hub hears of it)
    const closedByClient = how === ENDING.gone && /** @type {any} */ (conn.port)?.closed === true && conn.client !== null && conn.lease > 0 && !this.restoring;
    if (closedByClient) {
      // What its port delivered before it closed was sent before it closed (a bye among it ends it).
      for (const item of this.inbox.drop(conn)) this.handle(conn, item);
    }
    if (!closedByClient || conn.client === null || conn.tokens.size === 0) {
      super.end(conn, how, evidence);
      return;
    }
    /** @type {HubConnection} */
    const orphan = this.connect(new Unconnected());
    moveSession(this, conn, orphan);
    if (!threadLives(orphan.proc)) orphan.leaseUntil = this.now() + orphan.lease;
    this.orphans.add(orphan);
    this.watchOrphans();
    this.log('info', `${orphan.clientId} lost its connection: its locks are kept for its process, then ${orphan.lease} ms for one that adopts it`);
  }

  /** A hello that adopts a client must find it kept for adoption, and only such a hello may take it. @param {HubConnection} conn */
  hello(conn, m) {
    if (m.v !== PROTOCOL_VERSION) return super.hello(conn, m);
    if ((m.lease !== undefined && !validLease(m.lease)) || (m.adopt !== undefined && m.adopt !== true)) {
      return conn.send({ t: H.rejected, v: PROTOCOL_VERSION, reason: 'hello', message: `The lock hub refused this context's hello (bad ${m.adopt !== undefined && m.adopt !== true ? 'adopt' : 'lease'}).` });
    }
    const holder = this.clientIds.get(m.clientId);
    if (holder !== undefined && this.orphans.has(holder) && holder.leaseUntil === undefined && holder.lease > 0 && !threadLives(holder.proc)) {
      holder.leaseUntil = this.now() + holder.lease; // (died since the last check)
    }
    const adoptable = holder !== undefined && this.orphans.has(holder) && holder.leaseUntil !== undefined;
    if (m.adopt === true) {
      const why = unprovable(m.proc)
        ?? (holder === undefined ? 'no client of that id is kept here (its lease ran out, or it never had one)' : null)
        ?? (!adoptable ? 'that client\'s process still lives' : null)
        ?? (!this.sameContext(holder, m.key) ? 'the key is not that client\'s' : null);
      if (why !== null) return conn.send({ t: H.rejected, v: PROTOCOL_VERSION, reason: 'adopt', message: `The machine lock hub refused to hand over client ${String(m.clientId).slice(0, 80)}: ${why}.` });
    } else if (adoptable) {
      return conn.send({ t: H.rejected, v: PROTOCOL_VERSION, reason: 'clientId', message: 'clientId kept for a process that adopts it' });
    }
    return super.hello(conn, m);
  }

  compactJournal() {
    this.journal.compactIfLarge(() => this.snapshot());
  }

  // ---- lock-core.js hooks ----

  /** @param {HubConnection} conn */
  admit(conn, hello) {
    const why = unprovable(hello.proc);
    return why === null ? null : `The machine lock hub cannot vouch for this client: ${why}.`;
  }

  /** @param {HubConnection} conn */
  registered(conn, hello) {
    conn.keyHash = hashKey(hello.key);
    conn.proc = hello.proc;
    conn.lease = hello.lease ?? 0;
    conn.no = ++this.clientNumbers;
    this.journal.client(conn.no, conn.clientId, conn.keyHash, conn.proc, conn.lease);
    this.gate?.settled(conn);
  }

  sameContext(holder, key) {
    return holder.keyHash === hashKey(key);
  }

  /** @param {HubConnection} conn */
  resumed(conn, old, hello) {
    this.orphans.delete(old);
    this.gate?.settled(conn);
    if (hello.adopt !== true) return;
    // Adopted (hello above): the client's thread is the adopter's from now on.
    conn.proc = hello.proc;
    conn.lease = hello.lease ?? conn.lease;
    conn.leaseUntil = undefined;
    this.journal.rewrite(this.snapshot());
    this.log('info', `${conn.clientId} adopted by process ${hello.proc.pid}: its locks and requests are kept`);
  }

  /** An adopter learns each held lock's fencing token (it did not hear the grants). @param {HubConnection} conn */
  resumeDetails(conn, hello) {
    if (hello.adopt !== true) return {};
    // (a fence only for the lock the entry names: an adopter that names another gets none, and loses it)
    const fenceOf = (entry) => {
      const record = entry.held ? conn.tokens.get(entry.token) : undefined;
      return record?.state === HELD && record.entry.name === entry.name && record.entry.mode === entry.mode ? record.fence : null;
    };
    return { fences: hello.reclaim.map(fenceOf) };
  }

  /** @param {HubConnection} conn */
  held(conn, token, record) {
    record.fence = ++this.fence;
    if (!this.restoring) this.journal.held(conn.no, token, record.fence, record.entry.mode, record.entry.name);
  }

  /** @param {HubConnection} conn */
  queued(conn, token, record) {
    if (!this.restoring) this.journal.queued(conn.no, token, record.entry.mode, record.entry.name);
  }

  /** @param {HubConnection} conn */
  dropped(conn, token, record) {
    if (this.restoring) return;
    if (record.state === HELD && !(this.releasing?.conn === conn && this.releasing.token === token)) this.lost(conn, token);
    if (record.state === HELD || record.state === PENDING) this.journal.dropped(conn.no, token);
  }

  /** @param {HubConnection} conn */
  closing(conn) {
    this.orphans.delete(conn);
    if (this.restoring) return;
    // A client that lives may still be in a callback of a lock it held: its board says it lost them.
    if (conn.proc !== undefined && this.files !== null) {
      if (threadLives(conn.proc)) this.lost(conn, conn.maxToken);
      else removeBoard(boardPath(this.files, conn.clientId));
    }
    this.journal.closed(conn.no);
  }

  /** A held lock of `conn` goes to others: its loss board says so first (loss-board.js). @param {HubConnection} conn */
  lost(conn, token) {
    if (this.files === null || conn.clientId === null) return;
    try {
      raiseBoard(boardPath(this.files, conn.clientId), token);
    } catch (error) {
      if (error?.code !== 'ENOENT') this.journal.onFailure(error); // (no board: its client never reads one)
    }
  }

  /** A release of `conn`'s own: what it drops was given back, not lost. @param {HubConnection} conn */
  release(conn, token) {
    this.releasing = { conn, token };
    try {
      super.release(conn, token);
    } finally {
      this.releasing = null;
    }
  }

  /** @param {HubConnection} conn */
  releaseHandled(conn, token) {
    conn.send({ t: H.released, token });
  }

  /** @param {HubConnection} conn */
  sendGrant(conn, token) {
    conn.send({ t: H.granted, token, fence: conn.tokens.get(token)?.fence });
  }

  /** The journal, not the clients, keeps the queue's order across hubs: nothing to send (a message per handoff). */
  sendQueueOrder() {
    this.orderTimer = null;
    for (const conn of this.connections) conn.unsentOrder = [];
  }

  /** A hello that names a lost hub opens no window here: the journal says who held what. */
  claimOfLostHub() {}

  stop() {
    super.stop();
    clearInterval(this.orphanTimer);
  }
}
