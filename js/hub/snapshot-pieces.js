// query() answers in bounded pieces. The lock state can be far larger than one message should be
// (a structured-clone message of hundreds of MB may never arrive, with no error on either side),
// so the hub cuts the snapshot into pieces of at most LIMITS.snapshotPieceBytes and the context
// puts them back together (js/browser/snapshot-pieces.js). A state beyond LIMITS.queryBytes is
// refused with a QuotaExceededError rather than sent.
//
// A piece carries its LockInfos as columns (protocol 12, LockInfoColumns): the names, one mode
// letter each, and the clientIds once per run of entries of one client. Cloning an array of
// objects costs a property walk and the clientId's bytes for every entry, on both sides of the
// port; columns clone in a fraction of that, and the context builds the LockInfo objects itself.
import { LIMITS } from './protocol.js';

/** @typedef {import('./protocol.js').LockInfo} LockInfo */
/** @typedef {import('./protocol.js').LockInfoColumns} LockInfoColumns */

const SHARED = 115; // 's' in LockInfoColumns.modes ('e': exclusive)

/** Bytes a LockInfo takes in a message: its two strings (UTF-16) and the rest (a bound, kept as for objects). */
export function infoBytes(info) {
  return 64 + 2 * (info.name.length + info.clientId.length);
}

/** @returns {LockInfoColumns} */
function emptyColumns() {
  return { names: [], modes: '', clients: [], runs: [] };
}

/** LockInfos `infos[from..to)` as columns. @param {LockInfo[]} infos @returns {LockInfoColumns} */
export function toColumns(infos, from = 0, to = infos.length) {
  const names = new Array(to - from);
  const clients = [];
  const indexOf = new Map(); // clientId -> its index in clients
  const runs = [];
  let modes = '';
  let last = null;
  for (let i = from; i < to; i++) {
    const info = infos[i];
    names[i - from] = info.name;
    modes += info.mode === 'shared' ? 's' : 'e';
    if (info.clientId === last) { runs[runs.length - 1]++; continue; }
    last = info.clientId;
    let index = indexOf.get(last);
    if (index === undefined) { index = clients.push(last) - 1; indexOf.set(last, index); }
    runs.push(index, 1);
  }
  return { names, modes, clients, runs };
}

/**
 * Columns back as LockInfos (appended to `into`), in order; false, and nothing appended, when they
 * are not well-formed columns.
 * @param {unknown} columns @param {LockInfo[]} into
 */
export function fromColumns(columns, into = []) {
  if (typeof columns !== 'object' || columns === null) return false;
  const { names, modes, clients, runs } = /** @type {any} */ (columns);
  if (!Array.isArray(names) || typeof modes !== 'string' || modes.length !== names.length
    || !Array.isArray(clients) || !Array.isArray(runs) || runs.length % 2 !== 0) return false;
  let total = 0;
  for (let r = 0; r < runs.length; r += 2) {
    const client = runs[r];
    const count = runs[r + 1];
    if (!Number.isInteger(client) || client < 0 || client >= clients.length || typeof clients[client] !== 'string'
      || !Number.isInteger(count) || count < 1) return false;
    total += count;
  }
  if (total !== names.length) return false;
  for (let i = 0; i < names.length; i++) if (typeof names[i] !== 'string') return false;
  let i = 0;
  for (let r = 0; r < runs.length; r += 2) {
    const clientId = clients[runs[r]];
    for (const end = i + runs[r + 1]; i < end; i++) {
      into.push({ name: names[i], mode: modes.charCodeAt(i) === SHARED ? 'shared' : 'exclusive', clientId });
    }
  }
  return true;
}

/**
 * The snapshot as pieces { held, pending, more } in order (held first, then pending; each as
 * LockInfoColumns), each at most `pieceBytes` (counted as infoBytes) unless a single entry is
 * larger; the last has more: false. null when the whole is larger than `totalBytes`.
 * @param {{ held: LockInfo[], pending: LockInfo[] }} state
 */
export function cutSnapshot(state, pieceBytes = LIMITS.snapshotPieceBytes, totalBytes = LIMITS.queryBytes) {
  // Cut points first (as [list, from, to] spans per piece), then each piece's columns at once.
  /** @type {{ held: [number, number], pending: [number, number] }[]} */
  const spans = [];
  let span = { held: /** @type {[number, number]} */ ([0, 0]), pending: /** @type {[number, number]} */ ([0, 0]) };
  let bytes = 0;
  let total = 0;
  for (const list of /** @type {const} */ (['held', 'pending'])) {
    const infos = state[list];
    for (let i = 0; i < infos.length; i++) {
      const size = infoBytes(infos[i]);
      total += size;
      if (total > totalBytes) return null;
      if (bytes + size > pieceBytes && bytes > 0) {
        spans.push(span);
        span = { held: [0, 0], pending: [0, 0] };
        bytes = 0;
      }
      if (span[list][1] === span[list][0]) span[list] = [i, i];
      span[list][1] = i + 1;
      bytes += size;
    }
  }
  spans.push(span);
  return spans.map((s, index) => ({
    held: s.held[1] > s.held[0] ? toColumns(state.held, s.held[0], s.held[1]) : emptyColumns(),
    pending: s.pending[1] > s.pending[0] ? toColumns(state.pending, s.pending[0], s.pending[1]) : emptyColumns(),
    more: index < spans.length - 1,
  }));
}
