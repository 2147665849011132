// The framing of protocol messages on a local socket: each message is one JSON text in UTF-8,
// preceded by its byte length (4 bytes, big-endian).
//
// Why JSON and not v8.serialize: every protocol message is plain data (objects, arrays, strings,
// numbers, booleans, null), which JSON carries exactly (lone surrogates in lock names included:
// JSON.stringify escapes them), and JSON.parse builds only plain objects and arrays, so the hub's
// validator (js/hub/protocol.js) sees what it sees from a structured clone. JSON is also the same
// on every Node version, and processes of different Node versions share one hub; v8.serialize's
// format is not (an older Node cannot read a newer one's), and v8.deserialize is not meant for
// input from a process that may be hostile. A length prefix rather than newlines: a frame's size
// is known before any of it is kept, so an oversized one is refused at once.

/** The largest frame either side accepts (a query answer's piece, a hello re-registering many locks). */
export const MAX_FRAME_BYTES = 64 * 1024 * 1024;

/** @param {import('../hub/protocol.js').ContextMessage | import('../hub/protocol.js').HubMessage} message */
export function encodeFrame(message) {
  const body = Buffer.from(JSON.stringify(message), 'utf8');
  const frame = Buffer.allocUnsafe(4 + body.length);
  frame.writeUInt32BE(body.length, 0);
  body.copy(frame, 4);
  return frame;
}

/**
 * Cuts a byte stream into frames. `onFrame(text)` gets each frame's JSON text; `onBroken(reason)`
 * is called once when the stream cannot be framed any more (a frame over `maxBytes`, or the
 * `budget` of the bytes all decoders keep took it back: hub-limits.js); nothing is delivered after it.
 */
export class FrameDecoder {
  constructor(onFrame, onBroken, maxBytes = MAX_FRAME_BYTES, budget = null) {
    this.onFrame = onFrame;
    this.onBroken = onBroken;
    this.maxBytes = maxBytes;
    this.budget = budget;
    this.chunks = [];
    this.buffered = 0;
    this.needed = 4;       // bytes needed before the next step (length or body)
    this.bodyLength = -1;  // -1 while reading a length
    this.broken = false;
  }

  push(chunk) {
    if (this.broken) return;
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    while (!this.broken && this.buffered >= this.needed) {
      const bytes = this.take(this.needed);
      if (this.bodyLength < 0) {
        const length = bytes.readUInt32BE(0);
        if (length > this.maxBytes) {
          this.breakOff(`a frame of ${length} bytes, over the ${this.maxBytes} allowed`);
          return;
        }
        this.bodyLength = length;
        this.needed = length;
      } else {
        this.bodyLength = -1;
        this.needed = 4;
        this.onFrame(bytes.toString('utf8'));
      }
    }
    this.budget?.update(this, this.buffered);
  }

  /** Nothing more is framed: what is kept is dropped, and `onBroken(reason)` is told once. */
  breakOff(reason) {
    if (this.broken) return;
    this.broken = true;
    this.chunks = [];
    this.buffered = 0;
    this.budget?.update(this, 0);
    this.onBroken(reason);
  }

  /** The first `n` buffered bytes, as one Buffer. */
  take(n) {
    const first = this.chunks[0];
    let out;
    if (first.length >= n) {
      out = first.subarray(0, n);
      if (first.length === n) this.chunks.shift(); else this.chunks[0] = first.subarray(n);
    } else {
      out = Buffer.allocUnsafe(n);
      let at = 0;
      while (at < n) {
        const chunk = this.chunks[0];
        const part = Math.min(chunk.length, n - at);
        chunk.copy(out, at, 0, part);
        at += part;
        if (part === chunk.length) this.chunks.shift(); else this.chunks[0] = chunk.subarray(part);
      }
    }
    this.buffered -= n;
    return out;
  }
}
