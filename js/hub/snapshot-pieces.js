// query() answers in bounded pieces. The lock state can be far larger than one message should be
// (a structured-clone message of hundreds of MB may never arrive, with no error on either side),
// so the hub cuts the snapshot into pieces of at most LIMITS.snapshotPieceBytes and the context
// puts them back together (js/browser/snapshot-pieces.js). A state beyond LIMITS.queryBytes is
// refused with a QuotaExceededError rather than sent.
import { LIMITS } from './protocol.js';

/** Bytes a LockInfo takes in a message: its two strings (UTF-16) and the rest. */
export function infoBytes(info) {
  return 64 + 2 * (info.name.length + info.clientId.length);
}

/**
 * The snapshot as pieces { held, pending, more } in order (held first, then pending), each at most
 * `pieceBytes` unless a single entry is larger; the last has more: false. null when the whole is
 * larger than `totalBytes`.
 */
export function cutSnapshot(state, pieceBytes = LIMITS.snapshotPieceBytes, totalBytes = LIMITS.queryBytes) {
  const pieces = [];
  let piece = { held: [], pending: [], more: true };
  let bytes = 0;
  let total = 0;
  for (const list of ['held', 'pending']) {
    for (const info of state[list]) {
      const size = infoBytes(info);
      total += size;
      if (total > totalBytes) return null;
      if (bytes + size > pieceBytes && bytes > 0) {
        pieces.push(piece);
        piece = { held: [], pending: [], more: true };
        bytes = 0;
      }
      piece[list].push(info);
      bytes += size;
    }
  }
  piece.more = false;
  pieces.push(piece);
  return pieces;
}
