// One thread's backend in a machine lock space: the browser's hub client (js/browser/hub-backend.js)
// over a Unix domain socket instead of a MessagePort. What differs from a browser context:
// - The hub's loss is known at once: its socket closes (no silence to wait for, no probes).
//   The client reconnects, starting a new hub if needed, and re-registers its held locks and
//   waiting requests there, in their order, inside the new hub's reclaim window.
// - The thread is kept alive while a request waits (as the Node host does), and only then: the
//   socket and the timers are unref'd otherwise.
import { threadId } from 'node:worker_threads';
import { randomUUID } from 'node:crypto';
// Node's own timers: a DOM test environment may replace the global ones.
import { setInterval } from 'node:timers';
import { HubBackend } from '../browser/hub-backend.js';
import { PROTOCOL_VERSION } from '../hub/protocol.js';
import { SocketPort } from './socket-port.js';
import { connectToSpace } from './connect.js';

// The socket says when the hub is gone: silence alone never makes a client reconnect.
const LIVENESS = { HUB_SILENT_AFTER: Infinity };
const SENT = 0; // hub-backend.js: a request not granted yet

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
  }

  async openSocket() {
    const socket = await connectToSpace(this.files);
    socket.unref();
    const port = new SocketPort(socket);
    port.addEventListener('close', () => this.socketClosed(port));
    return port;
  }

  /** The hub's end closed: the hub died (or closed this connection). */
  socketClosed(port) {
    if (port !== this.port || this.failure !== null) return;
    if (this.records.size === 0 && this.aborts.size === 0 && this.queries.size === 0 && this.helloEntries === null) {
      // Nothing to keep: the next request connects afresh, as a newcomer (not as a survivor
      // of the lost hub: its requests queue after the re-registered ones).
      this.port = null;
      this.hubId = null;
      return;
    }
    this.stats.hubLosses++;
    this.reconnect(this.hubId ?? 'unknown');
  }

  /** Keeps the thread alive exactly while something waits for the hub's answer. */
  updateKeepAlive() {
    let waiting = this.aborts.size > 0 || this.queries.size > 0;
    if (!waiting) for (const record of this.records.values()) if (record.state === SENT) { waiting = true; break; }
    if (waiting === this.alive) return;
    this.alive = waiting;
    if (waiting) this.keepAlive.ref(); else this.keepAlive.unref();
  }

  request(name, mode, wait, listener) {
    const token = super.request(name, mode, wait, listener);
    this.updateKeepAlive();
    return token;
  }

  release(token) {
    super.release(token);
    this.updateKeepAlive();
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
    super.receive(message);
    this.updateKeepAlive();
  }

  /** A permanent failure (a refused hello, no hub could start): the connection serves nothing more. */
  fail(error) {
    super.fail(error);
    this.updateKeepAlive();
    const port = this.port;
    this.port = null;
    port?.close();
  }

  /** The check timer (query timeouts) never keeps the thread alive by itself. */
  watch() {
    super.watch();
    this.checkTimer?.unref?.();
  }
}
