// What one same-user process can make the machine hub keep, beyond what the protocol's quotas
// already bound (js/hub/quota.js): the bytes of frames not finished yet, across every connection;
// the number of connections; connections that never say hello. An honest client says hello at
// once and sends small frames, so none of these touches it.
import { PROTOCOL_VERSION, H } from '../hub/protocol.js';
import { encodeFrame } from './frames.js';
import { ENDING } from '../hub/connection.js';

const fromEnv = (name, fallback) => {
  const value = Number(process.env[name]);
  return Number.isSafeInteger(value) && value > 0 ? value : fallback;
};

export const HUB_LIMITS = Object.freeze({
  // Bytes of unfinished frames kept for all connections together (one frame may be 64 MiB: frames.js).
  unfinishedFrameBytes: fromEnv('WEBLOCKS_MACHINE_FRAME_BYTES', 96 << 20),
  // Connections at once (each thread of each process using the lock space has one).
  connections: fromEnv('WEBLOCKS_MACHINE_MAX_CONNECTIONS', 4096),
  // Connections that have not said hello: at most this many at once (the oldest goes first), and
  // each for at most unregisteredMs.
  unregistered: fromEnv('WEBLOCKS_MACHINE_MAX_UNREGISTERED', 64),
  unregisteredMs: fromEnv('WEBLOCKS_MACHINE_UNREGISTERED_MS', 5000),
});

/**
 * The bytes that frame decoders (frames.js) keep, across connections. When they pass the limit,
 * the decoder that keeps the most is broken (its connection closed): the connection sending a
 * huge frame slowly, never one sending ordinary ones.
 */
export class FrameBudget {
  constructor(limit = HUB_LIMITS.unfinishedFrameBytes) {
    this.limit = limit;
    this.total = 0;
    this.kept = new Map(); // decoder -> bytes
  }

  /** Decoder `decoder` now keeps `bytes`. */
  update(decoder, bytes) {
    this.total += bytes - (this.kept.get(decoder) ?? 0);
    if (bytes === 0) this.kept.delete(decoder); else this.kept.set(decoder, bytes);
    while (this.total > this.limit) {
      let largest = null;
      for (const [candidate, size] of this.kept) if (largest === null || size > this.kept.get(largest)) largest = candidate;
      largest.breakOff(`unfinished frames of all connections over the hub's ${this.limit} bytes, this one's the largest (${this.kept.get(largest)} bytes)`);
    }
  }
}

/**
 * Admits connections to the hub: refuses one over the connection limit (it is told why: its
 * requests fail with a QuotaExceededError), and closes connections that do not say hello in time,
 * or the oldest such one when too many wait.
 */
export class ConnectionGate {
  constructor(hub, limits = HUB_LIMITS) {
    this.hub = hub;
    this.limits = limits;
    this.sockets = 0;
    this.unregistered = new Map(); // conn -> timer, oldest first
    this.warned = new Map(); // kind -> connections closed for it (the log says the first few of each kind)
  }

  /** A new socket: false when it was refused. */
  admit(socket) {
    if (this.sockets >= this.limits.connections) {
      this.hub.log('warn', `refused a connection: ${this.sockets} are open, the most this hub serves`);
      socket.end(Buffer.concat([
        encodeFrame({ t: H.hub, hubId: this.hub.hubId }),
        encodeFrame({ t: H.rejected, v: PROTOCOL_VERSION, reason: 'quota', message: `The machine lock hub serves at most ${this.limits.connections} connections at once, and that many are open.` }),
      ]));
      return false;
    }
    this.sockets++;
    socket.once('close', () => { this.sockets--; });
    return true;
  }

  /** `conn` (the hub's connection of an admitted socket) must say hello in time. */
  watch(conn) {
    if (this.unregistered.size >= this.limits.unregistered) {
      const [oldest] = this.unregistered.keys();
      this.close(oldest, 'crowd', `more than ${this.limits.unregistered} connections had not said hello`);
    }
    const timer = setTimeout(() => this.close(conn, 'late', `no hello within ${this.limits.unregisteredMs} ms`), this.limits.unregisteredMs);
    this.unregistered.set(conn, timer);
    conn.port.addEventListener('close', () => this.settled(conn));
  }

  /** `conn` said hello (or closed): it no longer counts as unregistered. */
  settled(conn) {
    clearTimeout(this.unregistered.get(conn));
    this.unregistered.delete(conn);
  }

  close(conn, kind, why) {
    this.settled(conn);
    // It said hello meanwhile (a hello waiting in its inbox counts: a busy hub handles it in its turn).
    if (conn.clientId !== null || conn.helloQueued > 0) return;
    const count = (this.warned.get(kind) ?? 0) + 1;
    this.warned.set(kind, count);
    if (count <= 10 || count % 1000 === 0) this.hub.log('warn', `closed a connection that never said hello: ${why} [${count}]`);
    this.hub.end(conn, ENDING.gone);
  }
}
