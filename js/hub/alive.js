// Alive databases: a crashed tab's locks released as soon as the browser knows it is gone, not a
// heartbeat later (spec 2.6, agent termination: its requests aborted, its locks released). A
// window holds an IndexedDB database of its own open while it lives (js/browser/alive-database.js)
// and names it to the hub (C.alive). The hub asks the browser to
// delete it: the delete waits while the window's connection is open (the window ignores the
// versionchange it is sent, so a busy window changes nothing), and succeeds once the browser has
// closed that connection: the window's process crashed, or the page closed or navigated away.
// The browser also closes a live page's connection when the origin's site data is cleared, so a
// success alone never costs a context its locks. A clear closes every connection of the origin,
// the hub's own to its succession record too (succession.js), before the delete it unblocked
// completes: if that connection, open since the watch began, still serves a read after the
// success, nothing was cleared, and the window is gone (confirmedBy 'storage'). Otherwise (the
// record's connection was closed or replaced, the database was already gone when the delete ran,
// no record) the hub pings the context and its sentinel (which shares the context's process, not
// its event loop, so it answers for a busy context) every LIVENESS.ALIVE_CONFIRM_WAIT, and releases
// only once neither has said anything for LIVENESS.ALIVE_SILENT_AFTER (confirmedBy 'silence'). Measured from the crash to the delete's
// success: Chromium 107-213 ms, Firefox 43-49 ms, WebKit 17-113 ms (docs/browser.md, "Liveness").
import { ALIVE_PREFIX, H } from './protocol.js';
import { askSentinel, lastHeardFrom } from './sentinels.js';
import { ENDING } from './connection.js';

export const ALIVE_CLOSED = 'alive-database-closed';

/** `conn` (registered) holds the alive database `name` open: delete it, and act when that succeeds. */
export function watchAlive(hub, conn, name) {
  if (hub.indexedDB === null || conn.alive?.name === name) return;
  unwatchAlive(conn);
  const watch = { name, timer: 0 };
  conn.alive = watch;
  // Taken before the delete is sent: a clear from now on closes this connection.
  const record = hub.succession?.connection?.() ?? null;
  try {
    hub.indexedDB.deleteDatabase(name).onsuccess = (event) => {
      if (conn.alive !== watch) return;
      if (!(event?.oldVersion > 0) || record === null) { confirm(hub, conn, watch, 1); return; }
      // The window's database was there until this delete removed it: was anything cleared?
      hub.succession.stillOpen(record).then((untouched) => {
        if (conn.alive !== watch) return;
        // The browser's word, not silence: it holds whether or not the context's sentinel ever
        // answered (one starting, or one a Content-Security-Policy forbids).
        if (!untouched) confirm(hub, conn, watch, 1);
        else if (conn.client === null) conn.alive = null;
        else declareDead(hub, conn, 'its alive database was closed while the origin\'s storage was not cleared', 'storage');
      });
    };
  } catch {
    conn.alive = null; // IndexedDB refuses here: the heartbeat tells, as without a database
  }
}

function declareDead(hub, conn, why, confirmedBy) {
  hub.log('info', `${conn.clientId} declared dead (${why})`);
  hub.end(conn, ENDING.dead, { why, cause: ALIVE_CLOSED, confirmedBy });
}

export function unwatchAlive(conn) {
  clearTimeout(conn.alive?.timer);
  conn.alive = null;
}

/**
 * The browser closed the context's alive database. Silence decides only where it proves death
 * (hub.silenceCounts: a sentinel that answered before, no creator vouching); otherwise the
 * heartbeat's rules stand. Each round pings both and waits ALIVE_CONFIRM_WAIT: no answer, it asks
 * again, until both have been silent for ALIVE_SILENT_AFTER (the context is gone); an answer in each of
 * ALIVE_CONFIRM_ROUNDS rounds, it lives and keeps its locks.
 * A hub that could not hear meanwhile (deaf: hearing.js) or woke late proves nothing: it asks again.
 */
/** @param {import('./connection.js').HubConnection} conn */
function confirm(hub, conn, watch, round, unansweredSince = null) {
  // Closed already, or the heartbeat's rules stand for it (hub.silenceCounts: no sentinel of its
  // own has answered, or a creator vouches for it): silence decides nothing.
  if (conn.client === null || !hub.silenceCounts(conn)) { conn.alive = null; return; }
  const askedAt = hub.now();
  // An answer to an earlier ask of this check that went unanswered in its round counts (a late one).
  const since = unansweredSince ?? askedAt;
  askSentinel(hub, conn);
  conn.send({ t: H.ping });
  watch.timer = setTimeout(() => {
    if (conn.alive !== watch) return;
    const heard = lastHeardFrom(conn);
    const answered = heard >= since;
    // Dead only once silent for ALIVE_SILENT_AFTER: a live sentinel on a loaded machine answered
    // later than one round (Firefox, a clean-clone run on 2 cores: a busy tab declared dead 100 ms
    // after the ask while its sentinel lived). Until then, ask again.
    const silent = hub.now() - heard;
    if (!answered && silent >= hub.liveness.ALIVE_SILENT_AFTER && hub.now() - askedAt < hub.liveness.ALIVE_CONFIRM_WAIT * 3 && !hub.deaf()) {
      declareDead(hub, conn, `its alive database was closed, and nothing came from it or its sentinel for ${Math.round(silent)} ms`, 'silence');
    } else if (!answered || round < hub.liveness.ALIVE_CONFIRM_ROUNDS) {
      confirm(hub, conn, watch, answered ? round + 1 : round, answered ? null : since);
    } else {
      conn.alive = null;
      hub.verdict(conn, ALIVE_CLOSED, false, 'silence');
    }
  }, hub.liveness.ALIVE_CONFIRM_WAIT);
}

/** The names of the origin's databases: one listing for a starting hub's sweeps (rejects where none can be had). */
export function listDatabases(indexedDB) {
  try {
    return Promise.resolve(indexedDB.databases()).then((databases) => databases.map(({ name }) => name));
  } catch (error) {
    return Promise.reject(error); // indexedDB.databases missing
  }
}

/**
 * A starting hub deletes the alive databases nobody watches any more (their windows died under an
 * earlier hub). A live window's stays open, and its delete waits, harmlessly, until that window
 * goes. Where the browser cannot list databases (indexedDB.databases missing), they stay: one
 * empty database per window that crashed while no hub watched it.
 */
export function sweepAliveDatabases(indexedDB, names) {
  for (const name of names) {
    try {
      if (name?.startsWith(ALIVE_PREFIX)) indexedDB.deleteDatabase(name);
    } catch { /* gone with the storage */ }
  }
}
