// Whether the hub that served this lock space before this one left clients behind.
//
// After a hub dies, its surviving clients re-register what they hold with its successor, and the
// successor holds new grants back meanwhile (the reclaim window, hub.js). A survivor says so itself
// (a hello with `lostHub`, or a `had-hub` answer to the new hub's announcement), and any script of
// the origin can say the same: measured before this record, a forged claim on a hub younger than
// 5 s held every grant back for 2.5 s. So a hub now learns from its predecessor whether a claim can
// be true. Each hub keeps one record per lock space in IndexedDB, which survives its process:
//   { hubId, clients: true, heirOf }
//                              written before it serves anyone (heirOf: the hub it succeeds, if
//                              that one was lost with clients: held-markers.js waits for both's
//                              survivors), and again, without heirOf, when a client registers after
//                              it was idle (it grants nothing until that is written);
//   { hubId, clients: false }  written when no registered client is left (every context said bye,
//                              or was declared dead): nobody can hold or wait under it any more.
// Whatever deletes it meanwhile (site data cleared) closes the hub's connection: it writes it again.
// The successor reads it first:
//   'lost'     the last hub ended with clients (crashed, or its process was killed): survivors may
//              come, and their claims open the reclaim window as before;
//   'none'     no hub served this lock space in this storage, or the last one ended with none:
//              nothing can be reclaimed, so no claim opens a window and there is no start-up hold;
//   'unknown'  IndexedDB could not be read (blocked storage): claims are trusted, as before.
// Failures err towards 'lost': a `clients: false` that did not commit before the browser ended the
// idle hub leaves `clients: true`. The record is written by hub code only; a script of the origin
// that writes IndexedDB itself could still forge one, but nothing a connection sends can.
import { storageRetryDelay } from './protocol.js';

export const PREDECESSOR = Object.freeze({ lost: 'lost', none: 'none', unknown: 'unknown' });

const DATABASE = 'weblocks-hub-succession';
const STORE = 'hubs';
// A storage that does not answer within this long is treated as unreadable: the lock space is not
// kept waiting for it.
const OPEN_TIMEOUT = 2000;
// stillOpen()'s read: past this, the question goes to the contexts instead (alive.js).
const STILL_OPEN_TIMEOUT = 250;

/**
 * The hubs whose clients may survive them, by the record the previous hub left: that hub if it
 * was lost with clients, and the hub it had succeeded the same way (a second loss while a
 * survivor of the first was still busy).
 */
export function lostHubIds(record, hubId) {
  if (predecessorFrom(record, hubId) !== PREDECESSOR.lost) return [];
  return [record.hubId, record.heirOf].filter((id) => typeof id === 'string' && id !== hubId);
}

/** What a record left by the previous hub says about its clients. */
export function predecessorFrom(record, hubId) {
  if (record === undefined || record === null || typeof record !== 'object') return PREDECESSOR.none;
  if (record.hubId === hubId) return PREDECESSOR.none;
  return record.clients === false ? PREDECESSOR.none : PREDECESSOR.lost;
}

/**
 * Reads the record of lock space `space` and writes this hub's own `{ hubId, clients: true }`
 * in one transaction, committed before it resolves. Resolves (never rejects) to
 * { predecessor, serving(), idle() }: `serving()` when a client registers: null if the record
 * already says this hub has clients, else a promise that resolves once it does (the hub grants
 * nothing meanwhile); `idle()` when no registered client is left (resolves once that is written,
 * or failed and logged).
 * @param {string} space
 * @param {string} hubId
 * @param {{ indexedDB?: any, log?: (level: string, message: string) => void, timeout?: number }} [options]
 */
export async function takeOver(space, hubId, { indexedDB = globalThis.indexedDB, log = () => {}, timeout = OPEN_TIMEOUT } = {}) {
  const unreadable = (why) => {
    log('warn', `the hub cannot keep its succession record (${why}): after a hub loss, a claim of one cannot be checked, so any claim may hold grants back for the reclaim window`);
    return { predecessor: PREDECESSOR.unknown, lostHubs: [], serving: () => null, idle: () => Promise.resolve(), connection: () => null, stillOpen: () => Promise.resolve(false) };
  };
  if (indexedDB === undefined || indexedDB === null) return unreadable('no IndexedDB here');
  let db;
  let previous;
  // heirOf: the hub lost before this one, whose survivors may still come to this one's successor.
  const serving = (before) => ({ hubId, clients: true, heirOf: lostHubIds(before, hubId)[0] });
  try {
    // A database this open creates (a fresh profile, or site data cleared) has no record yet: this
    // hub's is written by the transaction that creates it, committed before the open succeeds
    // (one transaction less before the first grant).
    let created = false;
    db = await withTimeout(openDatabase(indexedDB, (store) => { created = true; putRecord(store, space, serving(undefined)); }), timeout, 'IndexedDB did not open');
    if (!created) previous = await withTimeout(writeRecord(db, space, serving, true), timeout, 'IndexedDB did not answer');
  } catch (error) {
    try { db?.close(); } catch { /* not open */ }
    return unreadable(error?.message ?? String(error));
  }
  let clients = true;
  let chain = Promise.resolve();
  // Writes what is true now (`clients`), retried while the storage refuses: the browser closes the
  // connection when the origin's site data is cleared, deletes the record, and refuses to open it
  // again for a moment (as the windows' alive databases show: js/browser/alive-database.js). Without a record, this hub's successor would take itself for the origin's
  // first and refuse the claims of the contexts that survive this hub.
  const write = (attempt = 0) => {
    chain = chain.then(async () => {
      if (db === null) keepOpen(db = await withTimeout(openDatabase(indexedDB), timeout, 'IndexedDB did not open'));
      await writeRecord(db, space, { hubId, clients }, false);
    }).catch((error) => {
      try { db?.close(); } catch { /* closed */ }
      db = null;
      const delay = storageRetryDelay(attempt);
      if (delay !== null) { setTimeout(() => write(attempt + 1), delay); return; }
      log('error', `the hub could not record that it ${clients ? 'serves clients' : 'is idle'} (${error?.message ?? error})${clients ? ': if it dies, its successor will not hold grants back for the contexts that survive it' : ''}`);
    });
    return chain;
  };
  const keepOpen = (open) => {
    open.onclose = () => {
      if (db !== open) return;
      db = null;
      log('warn', 'the browser closed the succession record (site data cleared?): writing it again');
      write();
    };
  };
  keepOpen(db);
  return {
    predecessor: predecessorFrom(previous, hubId),
    lostHubs: lostHubIds(previous, hubId),
    serving() {
      if (clients) return null;
      clients = true;
      return write();
    },
    idle() {
      if (!clients) return chain;
      clients = false;
      return write();
    },
    /** The connection to the record open now (null while there is none): a mark for stillOpen(). */
    connection: () => db,
    /**
     * Whether the browser has not closed `connection` (from connection()) since it was taken:
     * resolves true once a read on it commits, false if it was replaced, is closed, or the read
     * fails or takes longer than `timeout`. Clearing the origin's site data closes every
     * connection of the origin at once, this one with the windows' alive databases (alive.js),
     * before any request that waited on them completes; a read sent after such a completion
     * therefore fails if a clear caused it.
     */
    stillOpen(connection) {
      if (connection === null || connection !== db) return Promise.resolve(false);
      return withTimeout(new Promise((resolve) => {
        const transaction = connection.transaction(STORE, 'readonly');
        transaction.objectStore(STORE).count(); // a request: the read really reaches the browser's storage
        transaction.oncomplete = () => resolve(db === connection);
        transaction.onabort = () => resolve(false);
      }), Math.min(timeout, STILL_OPEN_TIMEOUT), 'IndexedDB did not answer').catch(() => false);
    },
  };
}

/** Opens the record's database; `onCreate(store)`, if given, writes into the one it creates. */
function openDatabase(indexedDB, onCreate) {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(DATABASE, 1);
    request.onupgradeneeded = () => {
      const store = request.result.createObjectStore(STORE);
      onCreate?.(store);
    };
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
    request.onblocked = () => reject(new Error('IndexedDB upgrade blocked'));
  });
}

/**
 * Puts `value` under `space` (with `read`, `value` is a function of the record it replaces);
 * resolves once committed, to the value it replaced when `read`.
 */
function writeRecord(db, space, value, read) {
  return new Promise((resolve, reject) => {
    const transaction = db.transaction(STORE, 'readwrite');
    const store = transaction.objectStore(STORE);
    let previous;
    // Sent as soon as the last request is, not when this task ends: an idle hub may be ended by
    // the browser at any moment.
    const put = (record) => { putRecord(store, space, record); transaction.commit?.(); };
    if (read) {
      store.get(space).onsuccess = (event) => {
        previous = event.target.result;
        put(value(previous));
      };
    } else {
      put(value);
    }
    transaction.oncomplete = () => resolve(previous);
    transaction.onerror = () => reject(transaction.error);
    transaction.onabort = () => reject(transaction.error ?? new Error('transaction aborted'));
  });
}

function putRecord(store, space, record) {
  store.put({ ...record, at: Date.now() }, space);
}

function withTimeout(promise, ms, message) {
  let timer;
  return Promise.race([
    promise,
    new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(`${message} within ${ms} ms`)), ms); }),
  ]).finally(() => clearTimeout(timer));
}
