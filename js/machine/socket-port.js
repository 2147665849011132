// A MessagePort-like end of a local socket, so that the hub (js/hub/hub.js) and its client
// (js/browser/hub-backend.js) run over it unchanged: postMessage() sends a frame (frames.js),
// `onmessage` gets { data } per frame, `onmessageerror` a frame that is not JSON, and the 'close'
// event fires when the socket closes, which is how each side learns at once that the other
// process (or thread) is gone: the operating system closes a dead process's sockets.
//
// Frames are not written at once: every port of a thread posts into one outbox (Outbox), written
// once the current task and its microtasks are done, in the order they were posted (consecutive
// frames to one socket in one write). A release and the next request made as its request settles
// go in one write; a hub's journal lines of a turn go in one write before its answers (beforeWrite).
// Each write is a system call, the largest cost of a request on a loaded machine (measured:
// bench/machine, docs/bench.md).
import { FrameDecoder, encodeFrame } from './frames.js';

// Frames that nobody waits for (a hub's release confirmations, when the client settled the request
// by its loss board: loss-board.js) are lazy: they go with the next frame to their socket, or at the
// latest this long after they were posted.
export const LAZY_MS = 20;

/** The frames a thread's SocketPorts posted in this task, written together when it ends. */
export class Outbox {
  constructor() {
    this.frames = [];        // [port, frame, lazy], in the order posted
    this.scheduled = false;
    this.lazyTimer = null;
    /** Called before anything is written: what must be on record before anyone hears (the hub's journal). */
    this.beforeWrite = null;
    this.flushTask = () => this.flush();
    this.flushAllTask = () => { this.lazyTimer = null; this.flush(null, true); };
  }

  post(port, frame, lazy = false) {
    this.frames.push([port, frame, lazy]);
    port.unsent += frame.length;
    if (lazy) {
      port.lazy++;
      if (this.lazyTimer === null) {
        this.lazyTimer = setTimeout(this.flushAllTask, LAZY_MS);
        this.lazyTimer.unref?.();
      }
      return;
    }
    port.eager++;
    if (this.scheduled) return;
    this.scheduled = true;
    // (process.nextTick: after the microtasks of this task, where a settled request's next one is made)
    process.nextTick(this.flushTask);
  }

  /**
   * Writes, in the order posted, the frames of every socket that has an eager frame waiting (or of
   * `only`, or of all with `all`); the lazy frames of other sockets wait.
   */
  flush(only = null, all = false) {
    this.scheduled = false;
    if (this.frames.length === 0) return;
    const frames = this.frames;
    const kept = [];
    const due = [];
    for (const entry of frames) {
      const port = entry[0];
      if (all || port === only || port.eager > 0) due.push(entry); else kept.push(entry);
    }
    this.frames = kept;
    if (due.length === 0) return;
    this.beforeWrite?.();
    for (let i = 0; i < due.length;) {
      const port = due[i][0];
      let j = i + 1;
      while (j < due.length && due[j][0] === port) j++;
      const run = j - i === 1 ? due[i][1] : Buffer.concat(due.slice(i, j).map((entry) => entry[1]));
      for (let k = i; k < j; k++) if (due[k][2]) port.lazy--; else port.eager--;
      port.unsent -= run.length;
      if (!port.socket.destroyed) port.socket.write(run);
      i = j;
    }
    if (kept.length === 0 && this.lazyTimer !== null) {
      clearTimeout(this.lazyTimer);
      this.lazyTimer = null;
    }
  }
}

/** This thread's outbox (every SocketPort's, unless given another). */
export const outbox = new Outbox();

// A peer that does not read what it is sent makes this side keep it: beyond this much unsent,
// the connection is closed (its peer is treated as gone).
export const MAX_UNSENT_BYTES = 64 * 1024 * 1024;

export class SocketPort {
  /**
   * @param {object} [options] { frameBudget, outbox, isLazy }: the hub's bound on unfinished frames
   *   (hub-limits.js); the outbox (this thread's by default); which messages are lazy (Outbox)
   */
  constructor(socket, options = {}) {
    this.socket = socket;
    this.onmessage = null;
    this.onmessageerror = null;
    this.closed = false;
    this.closeListeners = [];
    this.outbox = options.outbox ?? outbox;
    this.isLazy = options.isLazy ?? null;
    this.unsent = 0; // bytes in the outbox
    this.eager = 0;  // frames in the outbox, not lazy
    this.lazy = 0;   // lazy frames in the outbox
    const decoder = new FrameDecoder((text) => this.deliver(text), (why) => this.broken(why), undefined, options.frameBudget ?? null);
    this.onbroken = null;
    socket.on('data', (chunk) => decoder.push(chunk));
    socket.on('close', () => { decoder.breakOff('closed'); this.ended(); });
    socket.on('error', () => { /* 'close' follows */ });
  }

  /** The stream cannot be framed any more (frames.js): the connection is closed. */
  broken(why) {
    if (why !== 'closed') this.onbroken?.(why);
    this.close();
  }

  deliver(text) {
    if (this.socket.destroyed) return;
    let data;
    try {
      data = JSON.parse(text);
    } catch {
      this.onmessageerror?.({ data: null });
      return;
    }
    this.onmessage?.({ data, ports: [] });
  }

  /** @param {import('../hub/protocol.js').ContextMessage | import('../hub/protocol.js').HubMessage} message */
  postMessage(message) {
    if (this.socket.destroyed) return;
    if (this.socket.writableLength + this.unsent > MAX_UNSENT_BYTES) {
      this.close();
      return;
    }
    this.outbox.post(this, encodeFrame(message), this.isLazy?.(message) === true);
  }

  start() {}

  addEventListener(type, listener) {
    if (type === 'close') this.closeListeners.push(listener);
  }

  /** Closes the socket, after what was posted to it; the 'close' listeners run once it is closed. */
  close() {
    if (this.unsent > 0 && !this.socket.destroyed) this.outbox.flush(this);
    this.socket.destroy();
  }

  ended() {
    if (this.closed) return;
    this.closed = true;
    for (const listener of this.closeListeners.splice(0)) listener();
  }
}
