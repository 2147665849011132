// A MessagePort-like end of a local socket, so that the hub (js/hub/hub.js) and its client
// (js/browser/hub-backend.js) run over it unchanged: postMessage() sends a frame (frames.js),
// `onmessage` gets { data } per frame, `onmessageerror` a frame that is not JSON, and the 'close'
// event fires when the socket closes, which is how each side learns at once that the other
// process (or thread) is gone: the operating system closes a dead process's sockets.
import { FrameDecoder, encodeFrame } from './frames.js';

// A peer that does not read what it is sent makes this side keep it: beyond this much unsent,
// the connection is closed (its peer is treated as gone).
export const MAX_UNSENT_BYTES = 64 * 1024 * 1024;

export class SocketPort {
  /** @param {object} [options] { frameBudget }: the hub's bound on unfinished frames (hub-limits.js) */
  constructor(socket, options = {}) {
    this.socket = socket;
    this.onmessage = null;
    this.onmessageerror = null;
    this.closed = false;
    this.closeListeners = [];
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
    if (this.socket.writableLength > MAX_UNSENT_BYTES) {
      this.close();
      return;
    }
    this.socket.write(encodeFrame(message));
  }

  start() {}

  addEventListener(type, listener) {
    if (type === 'close') this.closeListeners.push(listener);
  }

  /** Closes the socket; the 'close' listeners run once it is closed. */
  close() {
    this.socket.destroy();
  }

  ended() {
    if (this.closed) return;
    this.closed = true;
    for (const listener of this.closeListeners.splice(0)) listener();
  }
}
