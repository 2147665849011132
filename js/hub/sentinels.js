// Sentinels: a context's liveness that does not depend on its event loop. A context hands the hub
// one end of a channel whose other end a small dedicated worker of its own holds (its sentinel,
// js/browser/sentinel.js). The sentinel runs in the context's process and dies with it (crash,
// close, terminate() of a worker context: nested workers die too) but not with a long task of the
// context's own: while either the context or its sentinel answers, the context is alive and keeps
// its locks, as with native Web Locks. The hub pings the sentinel on its own clock, so the
// sentinel also hears when the hub stops (it then alerts its context: hub loss).
import { C, H } from './protocol.js';
/** @import { HubMessage } from './protocol.js' */

/** Attaches `port` as the sentinel of `conn` (a registered connection); replaces any earlier one. */
export function attachSentinel(hub, conn, port) {
  detachSentinel(conn);
  const sentinel = { port, lastSeen: hub.now(), lastPing: 0, answers: 0 };
  conn.sentinel = sentinel;
  port.onmessage = (event) => {
    if (conn.sentinel !== sentinel) return;
    const m = event.data;
    // The only message a sentinel sends; anything else is ignored (it proves nothing).
    if (m !== null && typeof m === 'object' && m.t === C.pong) {
      sentinel.lastSeen = hub.now();
      sentinel.answers++;
    }
  };
  port.start?.();
  port.postMessage(/** @satisfies {HubMessage} */ ({ t: H.ping }));
  sentinel.lastPing = hub.now();
}

export function detachSentinel(conn) {
  const sentinel = conn.sentinel;
  if (sentinel === undefined || sentinel === null) return;
  conn.sentinel = null;
  sentinel.port.onmessage = null;
  try { sentinel.port.close(); } catch { /* gone */ }
}

/** When the context was last heard from, itself or through its sentinel. */
export function lastHeardFrom(conn) {
  const sentinel = conn.sentinel;
  return sentinel ? Math.max(conn.lastSeen, sentinel.lastSeen) : conn.lastSeen;
}

/** Why a silent context was declared dead, for its console (it may be alive after all). */
export function silenceOf(conn, now) {
  const sentinel = conn.sentinel;
  const self = `no message from it for ${Math.round(now - conn.lastSeen)} ms`;
  if (!sentinel) return `${self}, and it has no sentinel`;
  if (sentinel.answers === 0) return `${self}, and its sentinel never answered`;
  return `${self}, nor from its sentinel for ${Math.round(now - sentinel.lastSeen)} ms`;
}

/** On each hub tick: ping every sentinel not heard from for PING_AFTER (its own clock, not the context's). */
export function pingSentinel(hub, conn, now) {
  const sentinel = conn.sentinel;
  if (!sentinel) return;
  if (now - sentinel.lastSeen >= hub.liveness.PING_AFTER && now - sentinel.lastPing >= hub.liveness.PING_AFTER) askSentinel(hub, conn, now);
}

/** Pings the sentinel now, whenever it last answered (an alive database's close: js/hub/alive.js). */
export function askSentinel(hub, conn, now = hub.now()) {
  const sentinel = conn.sentinel;
  if (!sentinel) return;
  sentinel.lastPing = now;
  try { sentinel.port.postMessage(/** @satisfies {HubMessage} */ ({ t: H.ping })); } catch { /* gone: silence will tell */ }
}
