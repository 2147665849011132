// One thread's backend in a machine lock space: the browser's hub client (js/browser/hub-backend.js)
// over a Unix domain socket instead of a MessagePort. What differs from a browser context:
// - Every hello says which process and kernel thread this is (process-proof.js): the hub keeps
//   this thread's locks across its own deaths for exactly as long as the thread lives.
// - The hub's loss is known at once: its socket closes (no silence to wait for, no probes).
//   The client reconnects, starting a new hub if needed, and re-registers its held locks and
//   waiting requests there; the new hub has kept them for it (machine-hub.js).
// - A holder learns of any loss of its lock that happened before its callback ended (a steal, even
//   at the next hub after the hub's death) before its request settles. Usually the loss board
//   (loss-board.js) proves in one read that there was none: the request settles at once and the
//   release goes to the hub one way. Otherwise the release is done when the hub confirms it
//   (H.released), after the news of the loss (or the successor's answer to the re-registered lock).
//   Until the hub confirms a release, the lock stays listed as held for a hello after a hub's death.
// - Grants carry fencing tokens (lock.fencingToken).
// - The thread is kept alive while a request waits or a release is unconfirmed (as the Node host
//   does), and only then: the socket and the timers are unref'd otherwise.
// - With options.lease (ms), the hub keeps this client's locks that long after its thread dies
//   (machine-hub.js, "Leases"), and adopt() takes over such a client in another process.
import { threadId } from 'node:worker_threads';
import { randomUUID } from 'node:crypto';
// Node's own timers: a DOM test environment may replace the global ones.
import { setInterval } from 'node:timers';
import { HubBackend } from '../browser/hub-backend.js';
import { PROTOCOL_VERSION, C, H } from '../hub/protocol.js';
import { SocketPort } from './socket-port.js';
import { connectToSpace } from './connect.js';
import { ownProcess } from './process-proof.js';
import { OwnBoard, boardPath } from './loss-board.js';

// The socket says when the hub is gone: silence alone never makes a client reconnect.
const LIVENESS = { HUB_SILENT_AFTER: Infinity };
const HELD = 1; // hub-link.js: a granted request (any other state waits for the hub)
const SENT = 0; // hub-link.js: the hub has it

// Why a lock is gone when its holder re-registers it with the hub that closed its connection.
const CLOSED_BY_HUB = 'The lock was released: the machine lock hub closed this thread\'s connection (see its log).';

export class MachineBackend extends HubBackend {
  /** @param files the lock space (place.js spaceFiles) */
  constructor(files, options = {}) {
    let self = null;
    super(() => self.openSocket(), {
      clientId: `node-${process.pid}-${threadId}-${randomUUID()}`,
      liveness: LIVENESS,
      log: (level, text) => process.emitWarning(`weblocks-wasm (machine lock space ${files.space}): ${text}`, { code: `WEBLOCKS_MACHINE_${level.toUpperCase()}` }),
      ...options,
    });
    self = this;
    this.files = files;
    this.keepAlive = setInterval(() => {}, 0x7fffffff);
    this.keepAlive.unref();
    this.alive = false;
    this.releasing = new Map(); // token -> resolve: releases the hub has not confirmed
    this.proc = ownProcess();
    this.board = null; // this client's loss board (loss-board.js), opened before its first hello
    this.lease = options.lease ?? 0;
    if (options.key !== undefined) this.key = options.key; // (a lease's adopter must know it)
    this.claimNext = undefined; // { token, held }: what the next request() is (useToken, claim)
    this.adoption = null;       // { resolve, reject } while adopt() waits for the hub's welcome
  }

  /** The next request() takes `token` (a caller's own numbering, so that an adopter can name it). */
  useToken(token) {
    this.claimNext = { token, held: undefined };
  }

  /**
   * Takes over this client (its clientId and key, from options) kept by the hub after its process
   * died (machine-hub.js, "Leases"). Before it, say which requests the client had: claim() before
   * each request(); they go with the hello, held ones as held. Resolves on the welcome: each
   * claimed held lock then either is granted (with its fencing token) or fails with an AbortError;
   * rejects when the hub has no such client to hand over (its lease ran out, its process lives).
   */
  adopt() {
    this.hubId = 'adopting'; // (a hello that re-registers: hub-link.js attach)
    return new Promise((resolve, reject) => { this.adoption = { resolve, reject }; });
  }

  /** The next request() is one the adopted client had: `held` or waiting at the hub (adopt). */
  claim(token, held) {
    this.claimNext = { token, held };
  }

  async openSocket() {
    const socket = await connectToSpace(this.files);
    // Before the hello (a hub raises only a board that exists), named after the clientId the hello
    // says (a retried hello takes a new one).
    if (this.board?.clientId !== this.clientId) {
      this.board?.remove();
      this.board = new OwnBoard(boardPath(this.files, this.clientId), this.clientId);
    }
    this.board.open();
    socket.unref();
    const port = new SocketPort(socket);
    // Every hello says which thread this is (protocol.js `proc`).
    const post = port.postMessage.bind(port);
    // (A socket carries no transferables: SocketPort.postMessage takes the message alone.)
    port.postMessage = (message) => post(message?.t === C.hello ? this.helloOfThread(message) : message);
    port.addEventListener('close', () => this.socketClosed(port));
    return port;
  }

  helloOfThread(hello) {
    const said = { ...hello, proc: this.proc };
    if (this.lease > 0) said.lease = this.lease;
    if (this.adoption !== null) said.adopt = true;
    return said;
  }

  /** The hub's end closed: the hub died (or closed this connection). */
  socketClosed(port) {
    if (port !== this.port || this.failure !== null) return;
    if (this.records.size === 0 && this.aborts.size === 0 && this.queries.size === 0 && this.observers.size === 0 && this.helloEntries === null) {
      // Nothing to keep: the next request connects afresh, as a newcomer (not as a survivor
      // of the lost hub: its requests queue after the re-registered ones).
      this.port = null;
      this.hubId = null;
      this.flow?.close(); // (flow control, where the HubBackend has it: nothing goes out until a port is open)
      return;
    }
    this.stats.hubLosses++;
    this.reconnect(this.hubId ?? 'unknown');
  }

  /** Keeps the thread alive exactly while something waits for the hub's answer. */
  updateKeepAlive() {
    // An observer keeps the thread alive until it is stopped (as an etcd watch does): its changes
    // come from the hub's socket, which otherwise does not.
    let waiting = this.aborts.size > 0 || this.queries.size > 0 || this.releasing.size > 0 || this.observers.size > 0 || this.adoption !== null;
    if (!waiting) for (const record of this.records.values()) if (record.state !== HELD) { waiting = true; break; }
    if (waiting === this.alive) return;
    this.alive = waiting;
    if (waiting) this.keepAlive.ref(); else this.keepAlive.unref();
  }

  request(name, mode, wait, listener, within) {
    const claim = this.claimNext;
    this.claimNext = undefined;
    if (claim !== undefined) this.nextToken = claim.token - 1;
    const token = super.request(name, mode, wait, listener, within);
    const record = this.records.get(token);
    if (claim?.held !== undefined && this.adoption !== null && record !== undefined) {
      // The hub has it already: the hello lists it (its request message is not sent: hub-link.js post).
      record.state = claim.held ? HELD : SENT;
      record.claimed = claim.held;
    }
    this.updateKeepAlive();
    return token;
  }

  observersChanged() {
    this.updateKeepAlive();
  }

  /**
   * The lock stays listed as held (a hello after a hub's death re-registers it) until the hub
   * confirms the release. The request settles at once when the loss board proves that no hub gave
   * the lock away before now; otherwise its promise resolves on the confirmation, after any news of
   * its loss (backend contract).
   */
  release(token) {
    const record = this.records.get(token);
    if (record === undefined || record.state !== HELD || this.failure !== null) {
      super.release(token);
      this.updateKeepAlive();
      return undefined;
    }
    record.releasing = true;
    if (this.board?.clientId === this.clientId && !this.board.mayHaveLost(token)) {
      this.send({ t: C.release, token });
      return undefined;
    }
    const confirmed = new Promise((resolve) => this.releasing.set(token, resolve));
    this.send({ t: C.release, token });
    // The hub sends confirmations with its next message (lazy: hub-process.js): a sync is one.
    if (this.flow.open && this.flow.waiting === 0) this.flow.barrier();
    this.updateKeepAlive();
    return confirmed;
  }

  /** Resolves the releases whose lock is no longer this thread's (confirmed, stolen, or the backend failed). */
  settleReleases() {
    for (const [token, resolve] of this.releasing) {
      if (this.records.get(token)?.releasing) continue;
      this.releasing.delete(token);
      resolve();
    }
  }

  abort(token) {
    const answer = super.abort(token);
    this.updateKeepAlive();
    return answer.finally(() => this.updateKeepAlive());
  }

  query() {
    const answer = super.query();
    this.updateKeepAlive();
    return answer.finally(() => this.updateKeepAlive());
  }

  receive(message) {
    if (message?.t === 'rejected' && message.reason === 'version') {
      // Two builds of the package on one lock space: say so in this setting's words.
      this.fail(new DOMException(`weblocks-wasm: the lock hub of machine lock space "${this.files.space}" speaks protocol ${message.v}, this process ${PROTOCOL_VERSION}: `
        + 'processes with different versions of weblocks-wasm share it. Use one version, or give them different lock spaces (WEBLOCKS_MACHINE_SPACE).', 'NotSupportedError'));
      return;
    }
    if (message?.t === 'rejected' && message.reason === 'adopt' && this.adoption !== null) {
      const { reject } = this.adoption;
      this.adoption = null;
      this.fail(new DOMException(message.message, 'AbortError'));
      reject(this.failure);
      return;
    }
    if (message?.t === H.released) {
      if (this.records.get(message.token)?.releasing) this.records.delete(message.token);
    } else if (message?.t === H.granted && Number.isSafeInteger(message.fence)) {
      const record = this.records.get(message.token);
      if (record !== undefined && record.state !== HELD) {
        record.state = HELD;
        record.listener.granted(message.token, { fencingToken: message.fence });
      }
    } else {
      super.receive(message);
    }
    this.settleReleases();
    this.idle();
    this.updateKeepAlive();
  }

  /**
   * The hub answered a hello. A held lock it did not keep for us was stolen (the hub before it
   * kept it in its journal otherwise), or released when that same hub closed our connection.
   * A release in flight when the hub died is sent again.
   */
  welcome(m) {
    const entries = this.helloEntries ?? [];
    const why = m.hubId === this.hubId ? CLOSED_BY_HUB : undefined;
    const adoption = this.adoption;
    this.adoption = null;
    this.updateKeepAlive();
    entries.forEach((entry, i) => {
      const record = this.records.get(entry.token);
      if (record?.claimed === true) {
        // Adopted: its holder's callback has not run here yet.
        record.claimed = undefined;
        if (m.reclaimed?.[i] === 'held' && Number.isSafeInteger(m.fences?.[i])) {
          queueMicrotask(() => record.listener.granted(entry.token, { fencingToken: m.fences[i] }));
        } else {
          this.records.delete(entry.token);
          queueMicrotask(() => record.listener.failed(entry.token, new DOMException('The lock was released before this process could adopt it.', 'AbortError')));
        }
        return;
      }
      if (record === undefined || record.state !== HELD || m.reclaimed?.[i] !== 'stolen') return;
      this.records.delete(entry.token);
      record.listener.stolen(entry.token, why);
    });
    super.welcome(m);
    let resent = false;
    for (const [token, record] of this.records) {
      if (!record.releasing) continue;
      this.send({ t: C.release, token });
      resent = true;
    }
    if (resent && this.releasing.size > 0 && this.flow.open && this.flow.waiting === 0) this.flow.barrier();
    adoption?.resolve();
  }

  /** A permanent failure (a refused hello, no hub could start): the connection serves nothing more. */
  fail(error) {
    // A lock claimed for an adoption was never granted here: its request fails (it is not stolen).
    for (const record of this.records.values()) if (record.claimed === true) record.state = SENT;
    super.fail(error);
    this.settleReleases();
    this.updateKeepAlive();
    const port = this.port;
    this.port = null;
    // A client with a lease ends with a bye: a socket closed without one keeps its locks (lease).
    if (this.lease > 0) try { port?.postMessage({ t: C.bye }); } catch { /* closed */ }
    port?.close();
    const adoption = this.adoption;
    this.adoption = null;
    adoption?.reject(error);
  }

  /** The check timer (query timeouts) never keeps the thread alive by itself. */
  watch() {
    super.watch();
    this.checkTimer?.unref?.();
  }
}
