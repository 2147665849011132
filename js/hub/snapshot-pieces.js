// query() answers in bounded pieces. The lock state can be far larger than one message should be
// (a structured-clone message of hundreds of MB may never arrive, with no error on either side),
// so the hub cuts the snapshot into pieces of at most LIMITS.snapshotPieceBytes and the context
// puts them back together (js/browser/snapshot-pieces.js). A state beyond LIMITS.queryBytes is
// refused with a QuotaExceededError rather than sent.
//
// A piece carries its LockInfos as columns (protocol 12, LockInfoColumns): the names in one
// string with their lengths, one mode letter each, and each run of one client's entries as its
// clientId's index and length. Cloning arrays of objects cost a property walk and every entry's
// strings on both sides of the port; the columns are a few strings and arrays of small integers,
// and the context builds the LockInfo objects itself (fromColumns).
import { LIMITS } from './protocol.js';

/** @typedef {import('./protocol.js').LockInfo} LockInfo */
/** @typedef {import('./protocol.js').LockInfoColumns} LockInfoColumns */
/** @typedef {import('../engine/index.js').SnapshotColumns} SnapshotColumns */

const CHUNK = 8192; // char codes per String.fromCharCode call

/** Bytes a LockInfo takes in a message, by its two strings' lengths (UTF-16) and the rest: the bound's measure. */
export function infoBytes(nameLength, clientIdLength) {
  return 64 + 2 * (nameLength + clientIdLength);
}

function charCodes(codes, from, to) {
  let text = '';
  for (let at = from; at < to; at += CHUNK) text += String.fromCharCode.apply(null, codes.subarray(at, Math.min(to, at + CHUNK)));
  return text;
}

/**
 * Entries [from, to) of the snapshot as columns; `unit`: where entry `from`'s name starts in
 * snapshot.names. @param {SnapshotColumns} snapshot @returns {LockInfoColumns}
 */
function columnsOf(snapshot, from, to, unit) {
  const clients = [];
  const indexOf = new Map(); // clientId -> its index in clients
  const runs = [];
  let units = 0;
  let last = null;
  for (let i = from; i < to; i++) {
    units += snapshot.lengths[i];
    const clientId = snapshot.clientIds[i];
    if (clientId === last) { runs[runs.length - 1]++; continue; }
    last = clientId;
    let index = indexOf.get(clientId);
    if (index === undefined) { index = clients.push(clientId) - 1; indexOf.set(clientId, index); }
    runs.push(index, 1);
  }
  return {
    names: snapshot.names.slice(unit, unit + units),
    lengths: snapshot.lengths.slice(from, to),
    modes: charCodes(snapshot.modes, from, to),
    clients,
    runs,
  };
}

/**
 * Columns back as LockInfos (appended to `into`), in order; false, and nothing appended, when they
 * are not well-formed columns (checked as they are read: one pass).
 * @param {unknown} columns @param {LockInfo[]} into
 */
export function fromColumns(columns, into = []) {
  const { names, lengths, modes, clients, runs } = Object(columns);
  const start = into.length;
  let i = 0;
  let at = 0;
  let ok = typeof names === 'string' && typeof modes === 'string' && Array.isArray(lengths) && Array.isArray(clients)
    && Array.isArray(runs) && modes.length === lengths.length;
  for (let r = 0; ok && r < runs.length; r += 2) {
    const clientId = clients[runs[r]];
    const end = i + runs[r + 1];
    ok = typeof clientId === 'string' && Number.isInteger(end) && end > i && end <= lengths.length;
    for (; ok && i < end; i++) {
      const length = lengths[i];
      ok = Number.isInteger(length) && length >= 0 && at + length <= names.length;
      into.push({ name: names.slice(at, at += length), mode: modes[i] === 's' ? 'shared' : 'exclusive', clientId });
    }
  }
  if (ok && i === lengths.length && at === names.length) return true;
  into.length = start; // (a malformed piece adds nothing)
  return false;
}

/**
 * The snapshot (Engine.snapshotColumns()) as pieces { held, pending, more } in order (held first,
 * then pending; each as LockInfoColumns), each at most `pieceBytes` (counted as infoBytes) unless a
 * single entry is larger; the last has more: false. null when the whole is larger than `totalBytes`.
 * @param {SnapshotColumns} snapshot
 */
export function cutSnapshot(snapshot, pieceBytes = LIMITS.snapshotPieceBytes, totalBytes = LIMITS.queryBytes) {
  const { heldCount, lengths, clientIds } = snapshot;
  const count = lengths.length;
  const cuts = [0]; // where each piece starts (entry index), then the end
  let bytes = 0;
  let total = 0;
  for (let i = 0; i < count; i++) {
    const size = infoBytes(lengths[i], clientIds[i].length);
    total += size;
    if (total > totalBytes) return null;
    if (bytes + size > pieceBytes && bytes > 0) {
      cuts.push(i);
      bytes = 0;
    }
    bytes += size;
  }
  cuts.push(count);
  const pieces = [];
  let unit = 0; // where the piece's first name starts in snapshot.names
  for (let p = 0; p + 1 < cuts.length; p++) {
    const from = cuts[p];
    const to = cuts[p + 1];
    const middle = Math.min(Math.max(heldCount, from), to); // its held entries end here
    const held = columnsOf(snapshot, from, middle, unit);
    unit += held.names.length;
    const pending = columnsOf(snapshot, middle, to, unit);
    unit += pending.names.length;
    pieces.push({ held, pending, more: p + 2 < cuts.length });
  }
  return pieces;
}
