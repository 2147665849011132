// query() answers in bounded pieces. The lock state can be far larger than one message should be
// (a structured-clone message of hundreds of MB may never arrive, with no error on either side),
// so the hub cuts the snapshot into pieces of at most LIMITS.snapshotPieceBytes and the context
// puts them back together (js/browser/snapshot-pieces.js). A state beyond LIMITS.queryBytes is
// refused with a QuotaExceededError rather than sent.
//
// A piece carries its LockInfos as columns (protocol 12, LockInfoColumns): the names in one
// string with their lengths, and each run of entries of one client and mode as its clientId, mode
// and length. Cloning arrays of objects cost a property walk and every entry's
// strings on both sides of the port; the columns are a few strings and arrays of small integers,
// and the context builds the LockInfo objects itself (fromColumns).
import { LIMITS } from './protocol.js';

/** @typedef {import('./protocol.js').LockInfo} LockInfo */
/** @typedef {import('./protocol.js').LockInfoColumns} LockInfoColumns */
/** @typedef {import('../engine/index.js').SnapshotColumns} SnapshotColumns */

/**
 * Entries [from, to) of the snapshot as columns; `unit`: where entry `from`'s name starts in
 * `names`. @param {SnapshotColumns} snapshot @returns {LockInfoColumns}
 */
function columnsOf({ names, lengths, modes, clientIds }, from, to, unit) {
  const runs = /** @type {any[]} */ ([]);
  let units = 0;
  for (let i = from; i < to; i++) {
    const n = runs.length;
    units += lengths[i];
    if (clientIds[i] === runs[n - 3] && modes[i] === runs[n - 2]) runs[n - 1]++;
    else runs.push(clientIds[i], modes[i], 1);
  }
  return { names: names.slice(unit, unit + units), lengths: lengths.slice(from, to), runs };
}

/**
 * Columns back as LockInfos (appended to `into`), in order; false, and nothing appended, when they
 * are not well-formed. (Our hub sent them: the checks keep a broken piece from hanging or adding
 * anything, without a check per entry.)
 * @param {any} columns (LockInfoColumns, if well-formed) @param {LockInfo[]} into
 */
export function fromColumns(columns, into) {
  const start = into.length;
  try {
    const { names, lengths, runs } = columns;
    let i = 0;
    let at = 0;
    for (let r = 0; r < runs.length && i + runs[r + 2] <= lengths.length; r += 3) {
      for (const end = i + runs[r + 2]; i < end; i++) into.push({ name: names.slice(at, at += lengths[i]), mode: runs[r + 1], clientId: runs[r] });
    }
    if (i === lengths.length && at === names.length) return true;
  } catch {
    // not columns: below
  }
  into.length = start;
  return false;
}

/**
 * The snapshot (Engine.snapshotColumns()) as pieces { held, pending, more } in order (held first,
 * then pending; each as LockInfoColumns), each at most `pieceBytes` (as counted below) unless a
 * single entry is larger; the last has more: false. null when the whole is larger than `totalBytes`.
 * @param {SnapshotColumns} snapshot
 */
export function cutSnapshot(snapshot, pieceBytes = LIMITS.snapshotPieceBytes, totalBytes = LIMITS.queryBytes) {
  const { heldCount, lengths, clientIds } = snapshot;
  const pieces = [];
  let from = 0; // the piece's first entry
  let unit = 0; // where its first name starts in snapshot.names
  let bytes = 0;
  let total = 0;
  const cut = (/** @type {number} */ to) => {
    const middle = Math.min(Math.max(heldCount, from), to); // its held entries end here
    const held = columnsOf(snapshot, from, middle, unit);
    const pending = columnsOf(snapshot, middle, to, (unit += held.names.length));
    unit += pending.names.length;
    pieces.push({ held, pending, more: true });
    from = to;
  };
  for (let i = 0; i < lengths.length; i++) {
    // What a LockInfo takes in a message: its two strings (UTF-16) and the rest.
    const size = 64 + 2 * (lengths[i] + clientIds[i].length);
    if ((total += size) > totalBytes) return null;
    if (bytes + size > pieceBytes && bytes > 0) {
      cut(i);
      bytes = 0;
    }
    bytes += size;
  }
  cut(lengths.length);
  pieces[pieces.length - 1].more = false;
  return pieces;
}
