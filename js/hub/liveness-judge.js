// The liveness judge: from what the hub knows of a connection (when it and its sentinel were last
// heard, whether a creator vouches for it, whether it was terminated) and of itself (its clock,
// whether it hears at all: hearing.js), it returns a verdict; it ends nothing. The hub's tick
// (hub.js) acts on it: it closes the dead, warns of the unwatched, forgets ports that never spoke.
import { lastHeardFrom, silenceOf } from './sentinels.js';
/** @import { HubConnection } from './connection.js' */

/**
 * @typedef {{ verdict: 'forget' } | { verdict: 'terminated' } | { verdict: 'dead', why: string }
 *   | { verdict: 'unwatched', unheard: number } | null} Verdict
 */

/**
 * The verdict on `conn` (not a frame: frames live and go with their embedder) at `now`.
 * `deaf`: the hub's own echo is late (it hears no one now); `hearingSince`: when it heard again
 * (the silence before does not count); `deadAfter`: LIVENESS.DEAD_AFTER.
 * @param {HubConnection} conn
 * @param {{ now: number, deaf: boolean, hearingSince: number, deadAfter: number }} facts
 * @returns {Verdict}
 */
export function judge(conn, { now, deaf, hearingSince, deadAfter }) {
  if (conn.client === null) {
    // Never registered, or closed and not back: forget it after a while.
    return now - conn.lastSeen > deadAfter * 20 ? { verdict: 'forget' } : null;
  }
  // Dead when neither the context nor its sentinel answered for DEAD_AFTER: a context busy in
  // its own long task keeps its locks while its sentinel answers. Silence proves nothing of a
  // context whose sentinel never answered (none could start: a Content-Security-Policy, a
  // missing weblocks-sentinel.js): it keeps its locks until its port closes or it says bye.
  // A dedicated worker that was terminated has stopped running by stoppedBy: unless its own
  // sentinel, which answers while it runs, tells otherwise, it is gone then.
  const unheard = now - Math.max(lastHeardFrom(conn), hearingSince);
  if (conn.ended && now >= conn.stoppedBy && silenceProvesNothing(conn)) return { verdict: 'terminated' };
  if (unheard >= deadAfter && !deaf && !vouchedFor(conn) && !silenceProvesNothing(conn)) return { verdict: 'dead', why: silenceOf(conn, now) };
  if (unheard >= deadAfter && !deaf && !conn.toldUnwatched && !conn.ended && silenceProvesNothing(conn)) return { verdict: 'unwatched', unheard };
  return null;
}

/** Whether a silence of `conn` proves it gone (a sentinel of its own answered before; no creator vouches for it). @param {HubConnection} conn */
export function silenceCounts(conn) {
  return !vouchedFor(conn) && !silenceProvesNothing(conn);
}

/**
 * A dedicated worker without a sentinel (Firefox, js/browser/sentinel.js isFirefox; or a
 * Content-Security-Policy without blob: workers) is alive while the context that created it is: a
 * worker ends with its creator (whose liveness the hub follows; its end closes the worker's
 * connections too, close()), by its creator's terminate() (which says so once the worker has
 * stopped running: C.ended), or by its own close() (which says bye). So a silent one is busy in a
 * long task and keeps its locks, as with native Web Locks. A terminate() the polyfill does not
 * see (the browser's own, through a reference taken before it loaded) leaves such a worker's
 * locks held until its creator goes.
 * @param {HubConnection} conn
 */
export function vouchedFor(conn) {
  return conn.sentinel === null && conn.parent !== null && !conn.ended && conn.parent.client !== null && !conn.parent.gone;
}

/**
 * Silence proves a context gone only where a sentinel of its own has answered (it shares the
 * context's process, not its event loop: both silent means the process stopped). Otherwise a
 * silent context may just be busy in a long task: declaring it dead would hand its lock to another
 * while its callback runs. (A terminated dedicated worker goes by stoppedBy instead: tick.)
 * @param {HubConnection} conn
 */
export function silenceProvesNothing(conn) {
  return !(conn.sentinel !== null && conn.sentinel !== undefined && conn.sentinel.answers > 0);
}

