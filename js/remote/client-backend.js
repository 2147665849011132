// The remote client's backend (docs/api.md, "The backend contract"): every call becomes a frame to
// the lock server (js/remote/protocol.js), every answer a call on the request's listener. The
// LockManager in front of it (js/api/lock-manager.js) is the one every other host uses, so argument
// checks and errors are the same. The connection opens on first use; a connection lost without the
// server's word is resumed (the server keeps the session for its grace); nothing here runs on a
// timer while the connection is up, so a throttled tab changes nothing (the server's pings are
// answered by the browser itself). Over 400 lines: one class, the protocol's client side, whose
// parts (frames out, the connection and its resume, frames in) all share the session's state.
import { PROTOCOL_VERSION, C, S, CLOSE, ACK_EVERY } from './protocol.js';

const RETRY_FIRST_MS = 100;
const RETRY_MAX_MS = 5000;
const HELLO_ACCOUNT_BYTES = 12 * 1024;
const HELD = 'held';

function domError(message, name) {
  return new DOMException(message, name);
}

function lostWhy(code) {
  switch (code) {
    case CLOSE.sessionGone: return 'The lock was released: the lock server no longer has this client\'s session (the connection was lost for longer than its grace period, or the server restarted).';
    case CLOSE.serverClosing: return 'The lock was released: the lock server closed.';
    case CLOSE.clientClosing: return 'The lock was released: this lock manager was closed.';
    default: return `The lock was released: the lock server closed this connection (code ${code}, docs/remote.md "Close codes").`;
  }
}

export class RemoteBackend {
  /**
   * @param {string} url  ws: or wss:
   * @param {() => Promise<any>} openSocketClass  resolves to the WebSocket class to use
   * @param {{ opened?: (socket: any) => void, busy?: (busy: boolean) => void }} [host]  Node's hooks: an
   *   idle client must not keep the process running (node.js)
   */
  constructor(url, openSocketClass, host = {}, options = {}) {
    this.host = host;
    this.options = options; // (its `deadlock` is read as each nested request is made)
    this.wasBusy = false;
    this.url = url;
    this.socketClass = openSocketClass;
    this.socket = null;
    this.welcomed = false;
    this.session = null;     // { id, secret, clientId, grace }
    this.sent = 0;
    this.received = 0;
    this.ackedToServer = 0;
    this.outbox = [];        // frames not acknowledged by the server: [seq, text]
    this.nextId = 0;
    this.requests = new Map();   // id -> { listener, state }
    this.releases = new Map();   // id -> resolve
    this.aborts = new Map();     // id -> resolve(removed)
    this.queries = new Map();    // id -> { resolve, reject }
    this.observers = new Map();  // id -> sink
    this.observersStarted = new Set(); // ids whose sink has had its start
    this.retryMs = RETRY_FIRST_MS;
    this.retryTimer = null;
    this.lostSince = 0;
    this.welcomedAt = 0;
    this.froze = false;      // this connection told the server that the page is being frozen
    this.closed = false;
    // Chromium closes a frozen page's socket as it thaws it: told on the freeze event, the server
    // keeps the session for its grace then (docs/remote.md, "Liveness and grace").
    this.onFreeze = () => {
      if (!this.welcomed || this.closed) return;
      this.froze = true;
      try { this.socket.send(JSON.stringify({ t: C.freezing, a: this.received })); } catch { /* closing */ }
    };
    globalThis.document?.addEventListener?.('freeze', this.onFreeze);
  }

  // ---- the backend contract ----

  /** `within`: { under } the id of this client's held lock inside whose callback it was made. */
  request(name, mode, waitMode, listener, within) {
    const id = ++this.nextId;
    if (this.closed) {
      queueMicrotask(() => listener.failed(id, domError('This lock manager is closed.', 'InvalidStateError')));
      return id;
    }
    this.requests.set(id, { listener, state: 'pending', name, mode, wait: waitMode });
    const frame = { t: C.request, id, name, mode, wait: waitMode };
    // Made inside a held lock's callback: the server looks for a deadlock (docs/api.md).
    if (within !== undefined && this.requests.get(within.under)?.state === HELD) {
      frame.under = within.under;
      if ((this.options.deadlock ?? globalThis.WEBLOCKS_DEADLOCK) === 'reject') frame.reject = true;
    }
    this.send(frame);
    return id;
  }

  release(id) {
    const record = this.requests.get(id);
    if (record === undefined || record.state !== HELD) return undefined;
    record.state = 'releasing';
    return new Promise((resolve) => {
      this.releases.set(id, resolve);
      this.send({ t: C.release, id });
    });
  }

  abort(id) {
    const record = this.requests.get(id);
    if (record === undefined || record.state !== 'pending') return Promise.resolve(false);
    return new Promise((resolve) => {
      this.aborts.set(id, resolve);
      this.send({ t: C.abort, id });
    });
  }

  query() {
    if (this.closed) return Promise.reject(domError('This lock manager is closed.', 'InvalidStateError'));
    const id = ++this.nextId;
    return new Promise((resolve, reject) => {
      this.queries.set(id, { resolve, reject });
      this.send({ t: C.query, id });
    });
  }

  observeSource() {
    return {
      observe: (sink) => {
        const id = ++this.nextId;
        this.observers.set(id, sink);
        this.send({ t: C.observe, id });
        return () => {
          this.observersStarted.delete(id);
          if (!this.observers.delete(id)) return;
          if (!this.closed) this.send({ t: C.unobserve, id });
          this.checkBusy();
        };
      },
    };
  }

  /** Ends the session: the server releases this client's locks at once. */
  close() {
    if (this.closed) return;
    this.closed = true;
    globalThis.document?.removeEventListener?.('freeze', this.onFreeze);
    clearTimeout(this.retryTimer);
    const socket = this.socket;
    this.socket = null;
    try { socket?.close(CLOSE.clientClosing); } catch { /* gone */ }
    this.endSession(lostWhy(CLOSE.clientClosing), 'InvalidStateError');
  }

  /** Tells the host whether anything waits on the server (a request, release, query or observer). */
  checkBusy() {
    const busy = this.requests.size + this.queries.size + this.observers.size + this.releases.size + this.aborts.size !== 0;
    if (busy !== this.wasBusy) {
      this.wasBusy = busy;
      this.host.busy?.(busy);
    }
  }

  // ---- frames out ----

  send(frame) {
    frame.s = ++this.sent;
    frame.a = this.received;
    const text = JSON.stringify(frame);
    this.outbox.push([frame.s, text]);
    if (this.welcomed) {
      this.ackedToServer = this.received;
      this.socket.send(text);
    } else {
      this.connect();
    }
    this.checkBusy();
  }

  // ---- the connection ----

  connect() {
    if (this.socket !== null || this.closed || this.retryTimer !== null) return;
    const marker = {};
    this.socket = marker; // connecting (the class may load asynchronously)
    this.socketClass().then((WebSocketClass) => {
      if (this.socket !== marker) return;
      let socket;
      try {
        socket = new WebSocketClass(this.url);
      } catch (error) {
        this.socket = null;
        this.failEverything(error instanceof Error || error instanceof DOMException ? error : domError(String(error), 'SyntaxError'));
        return;
      }
      this.socket = socket;
      this.host.opened?.(socket);
      this.open(socket);
    }, (error) => {
      this.socket = null;
      this.failEverything(error);
    });
  }

  open(socket) {
    let opened = false;
    let status = 0;
    socket.onopen = () => {
      opened = true;
      const hello = { t: C.hello, v: PROTOCOL_VERSION };
      if (this.session !== null) hello.resume = { session: this.session.id, secret: this.session.secret, received: this.received, sent: this.sent, state: this.account() };
      let text = JSON.stringify(hello);
      // Within the server's default frame limit (16 KiB): without its account, a session only the
      // process that has it can resume.
      if (hello.resume !== undefined && new TextEncoder().encode(text).length > HELLO_ACCOUNT_BYTES) {
        delete hello.resume.state;
        text = JSON.stringify(hello);
      }
      socket.send(text);
    };
    socket.onmessage = (event) => {
      if (this.socket !== socket) return;
      let frame;
      try { frame = JSON.parse(event.data); } catch { return; }
      this.onFrame(frame, socket);
    };
    // The `ws` package says why an upgrade failed (a browser's WebSocket never does).
    socket.onerror = (event) => {
      const match = /Unexpected server response: (\d+)/.exec(String(event?.message ?? ''));
      if (match !== null) status = Number(match[1]);
    };
    let gone = false;
    const onClose = (code) => {
      if (gone) return;
      gone = true;
      if (this.socket !== socket) return;
      this.socket = null;
      this.welcomed = false;
      this.closedBy(code ?? 1006, opened, status);
    };
    socket.onclose = (event) => onClose(event.code);
  }

  closedBy(code, opened, status) {
    if (this.closed) return;
    if (code === CLOSE.sessionGone || (code >= 4000 && code < 5000) || code === CLOSE.serverClosing || code === CLOSE.serverError || code === 1009) {
      // The server ended the session: everything of it is gone.
      this.session = null;
      this.endSession(lostWhy(code), 'AbortError');
      return;
    }
    if (this.session === null && !opened) {
      // The first connection failed: never let requests wait on a server that refused or is not there.
      const error = status === 401 || status === 403
        ? Object.assign(domError(`The lock server refused this client (HTTP ${status}).`, 'NotAllowedError'), { status })
        : domError(`Could not connect to the lock server at ${this.url}${status ? ` (HTTP ${status})` : ''}.`, 'NetworkError');
      this.failEverything(error);
      return;
    }
    if (this.session === null) {
      // Opened, but closed before the welcome: start over on next use.
      this.failEverything(domError('The lock server closed the connection before it took this client.', 'NetworkError'));
      return;
    }
    // Lost without the server's word: resume within the grace the server gave. The first try after a
    // freeze or a connection that lasted goes at once: a hidden tab's timers are throttled (1 s and more).
    if (this.lostSince === 0) this.lostSince = Date.now();
    const now = opened && this.retryMs === RETRY_FIRST_MS && (this.froze || Date.now() - this.welcomedAt >= RETRY_MAX_MS);
    this.froze = false;
    if (now) {
      this.retryMs = RETRY_FIRST_MS * 2;
      this.connect();
      return;
    }
    if (Date.now() - this.lostSince > this.session.grace + RETRY_MAX_MS) {
      this.session = null;
      this.endSession(lostWhy(CLOSE.sessionGone), 'AbortError');
      return;
    }
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      this.connect();
    }, this.retryMs);
    this.retryMs = Math.min(this.retryMs * 2, RETRY_MAX_MS);
  }

  onFrame(frame, socket) {
    if (frame.t === S.welcome) {
      this.session = { id: frame.session, secret: frame.secret, clientId: frame.clientId, grace: frame.grace };
      this.welcomed = true;
      this.welcomedAt = Date.now();
      this.lostSince = 0;
      this.retryMs = RETRY_FIRST_MS;
      this.acknowledged(frame.received);
      if (!frame.resumed) this.received = 0;
      this.ackedToServer = this.received;
      for (const [, text] of this.outbox) socket.send(text);
      return;
    }
    if (typeof frame.a === 'number') this.acknowledged(frame.a);
    if (frame.t === S.ack) return;
    if (frame.t === S.observeStart) {
      const sink = this.observers.get(frame.id);
      if (sink === undefined) return;
      // A second start (after a resume: the pushes in between were lost) is a gap in the records:
      // observeLocks reports the difference between the snapshots around it.
      if (this.observersStarted.has(frame.id)) sink.changes([{ type: 'lost' }], frame.snapshot);
      else {
        this.observersStarted.add(frame.id);
        sink.start(frame.snapshot);
      }
      return;
    }
    if (frame.t === S.observeChanges) {
      this.observers.get(frame.id)?.changes(frame.records, frame.snapshot);
      return;
    }
    if (typeof frame.s !== 'number' || frame.s <= this.received) return; // already had it
    this.received = frame.s;
    if (this.received - this.ackedToServer >= ACK_EVERY) {
      this.ackedToServer = this.received;
      socket.send(JSON.stringify({ t: C.ack, a: this.received }));
    }
    this.act(frame);
    this.checkBusy();
  }

  /**
   * What this client has open, for a server process that adopts the session after the one that had
   * it died (docs/remote.md, "Server restarts"): it replaces the frames not acknowledged yet.
   */
  account() {
    const requests = [];
    for (const [id, r] of this.requests) {
      const state = r.state === 'pending' && this.aborts.has(id) ? 'aborting' : r.state;
      requests.push({ id, name: r.name, mode: r.mode, wait: r.wait, state });
    }
    return { requests, queries: [...this.queries.keys()], observers: [...this.observers.keys()] };
  }

  acknowledged(seq) {
    let drop = 0;
    while (drop < this.outbox.length && this.outbox[drop][0] <= seq) drop++;
    if (drop !== 0) this.outbox.splice(0, drop);
  }

  act(frame) {
    const id = frame.id;
    switch (frame.t) {
      case S.granted: {
        const record = this.requests.get(id);
        if (record === undefined) return;
        record.state = HELD;
        record.listener.granted(id, { fencingToken: frame.fence });
        return;
      }
      case S.notAvailable: {
        const record = this.requests.get(id);
        this.requests.delete(id);
        record?.listener.notAvailable(id);
        return;
      }
      case S.lost: {
        const record = this.requests.get(id);
        if (record === undefined) return;
        record.lost = true;
        if (record.state === 'pending') record.listener.failed(id, domError(frame.why, 'AbortError'));
        else record.listener.stolen(id, frame.why);
        if (record.state !== 'releasing') this.requests.delete(id);
        return;
      }
      case S.failed: {
        const query = this.queries.get(id);
        const error = frame.name === 'TypeError' ? new TypeError(frame.message) : domError(frame.message, frame.name);
        if (query !== undefined) {
          this.queries.delete(id);
          query.reject(error);
          return;
        }
        const record = this.requests.get(id);
        this.requests.delete(id);
        record?.listener.failed(id, error);
        return;
      }
      case S.aborted: {
        const resolve = this.aborts.get(id);
        this.aborts.delete(id);
        if (frame.removed) this.requests.delete(id);
        resolve?.(frame.removed === true);
        return;
      }
      case S.released: {
        const record = this.requests.get(id);
        this.requests.delete(id);
        if (record !== undefined && !frame.held && !record.lost) {
          record.listener.stolen(id, 'The lock was released: it was no longer held when its release reached the lock server.');
        }
        const resolve = this.releases.get(id);
        this.releases.delete(id);
        resolve?.();
        return;
      }
      case S.snapshot: {
        const query = this.queries.get(id);
        this.queries.delete(id);
        query?.resolve({ held: frame.held, pending: frame.pending });
        return;
      }
    }
  }

  /** The session is gone: held locks are lost, waits and queries fail, releases are done. */
  endSession(why, pendingErrorName) {
    this.session = null;
    this.outbox = [];
    this.sent = 0;
    this.received = 0;
    this.welcomed = false;
    const requests = [...this.requests];
    this.requests.clear();
    for (const [id, record] of requests) {
      if (record.state === HELD || record.state === 'releasing') record.listener.stolen(id, why);
      else record.listener.failed(id, domError(why.replace('The lock was released', 'The lock request was dropped'), pendingErrorName));
    }
    for (const resolve of this.releases.values()) resolve();
    this.releases.clear();
    for (const resolve of this.aborts.values()) resolve(true);
    this.aborts.clear();
    this.failQueries(domError(why.replace('The lock was released: ', 'query(): '), pendingErrorName));
    for (const sink of this.observers.values()) sink.changes?.([{ type: 'lost' }], { held: [], pending: [] });
    this.checkBusy();
  }

  /** No session was ever had: everything waiting fails with `error`; the next use tries again. */
  failEverything(error) {
    this.outbox = [];
    this.sent = 0;
    const requests = [...this.requests];
    this.requests.clear();
    for (const [id, record] of requests) record.listener.failed(id, error);
    for (const resolve of this.aborts.values()) resolve(true);
    this.aborts.clear();
    this.failQueries(error);
    this.observers.clear();
    this.checkBusy();
  }

  failQueries(error) {
    const queries = [...this.queries.values()];
    this.queries.clear();
    for (const query of queries) query.reject(error);
  }
}
