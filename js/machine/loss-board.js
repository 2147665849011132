// The loss board: what lets a machine client settle a request as soon as its callback ends, without
// waiting for the hub to confirm the release (one round trip per request instead of two).
//
// The guarantee of issue 28: a holder never takes its request as done while its lock may have been
// given to someone else before its callback ended (a steal, or the hub closing its connection): its
// request rejects instead. A confirmed release gives that by order (the news of a loss comes before
// the confirmation). The board gives it by a file: each client thread has one in the lock space's
// private folder, named after its clientId, holding the highest of its request tokens that any hub
// took from it. A hub raises it BEFORE it grants the lost lock to anyone else (machine-hub.js); the
// client reads it when its callback ends. Below the token being released, no hub had given that lock
// away when the callback ended (the thief's grant follows the write), so nobody else held it during
// the callback: the request settles at once, and the release goes to the hub as a one-way message.
// At or above it (or unreadable): the slow way, the hub's confirmation, after any news of the loss.
// The board outlives hubs (a next hub's steal raises it too); the journal carries no copy of it.
//
// The file holds the token twice (16 bytes): a read that sees two different values (a torn read
// of a write in progress) counts as a loss. Writes go to the page cache, as the journal's do.
import { fs } from '../node/builtin-fs.js';
import path from 'node:path';
import { createHash } from 'node:crypto';

const BYTES = 16;

// Boards this thread has open: removed when it exits (one listener for them all).
const open = new Set();
let listening = false;
function removeOpenBoards() {
  for (const board of [...open]) board.remove();
}

/** The board file of client `clientId` in lock space `files` (place.js spaceFiles). */
export function boardPath(files, clientId) {
  const hash = createHash('sha256').update(String(clientId)).digest('hex').slice(0, 32);
  return path.join(files.folder, `${files.space}.lost-${hash}`);
}

/** The client's side: its own board, opened (created) once, read at every release. */
export class OwnBoard {
  /** @param {string} file @param {string | null} [clientId] the client it is the board of */
  constructor(file, clientId = null) {
    this.file = file;
    this.clientId = clientId;
    this.fd = -1;
    this.bytes = Buffer.alloc(BYTES);
  }

  /** Creates the file if it is missing (before the first hello: a hub writes only to it). */
  open() {
    if (this.fd !== -1) return;
    try {
      this.fd = fs.openSync(this.file, fs.constants.O_RDWR | fs.constants.O_CREAT, 0o600);
      open.add(this);
      if (!listening) { listening = true; process.on('exit', removeOpenBoards); }
    } catch {
      this.fd = -1; // (no board: every release takes the slow way)
    }
  }

  /** True unless the board proves that no hub took token `token` (or a later one) from us. */
  mayHaveLost(token) {
    if (this.fd === -1) return true;
    let read;
    try {
      read = fs.readSync(this.fd, this.bytes, 0, BYTES, 0);
    } catch {
      return true;
    }
    if (read === 0) return false; // never written: nothing was ever lost
    if (read !== BYTES) return true;
    const first = this.bytes.readDoubleLE(0);
    return first !== this.bytes.readDoubleLE(8) || first >= token;
  }

  remove() {
    if (this.fd === -1) return;
    try { fs.closeSync(this.fd); } catch { /* closed */ }
    this.fd = -1;
    open.delete(this);
    try { fs.rmSync(this.file, { force: true }); } catch { /* gone */ }
  }
}

/**
 * The hub's side: raises a client's board to at least `token` (before the lost lock goes to anyone
 * else). A board that does not exist throws ENOENT: its client reads none (it takes the slow way).
 */
export function raiseBoard(file, token) {
  const fd = fs.openSync(file, fs.constants.O_RDWR);
  try {
    const bytes = Buffer.alloc(BYTES);
    const read = fs.readSync(fd, bytes, 0, BYTES, 0);
    const before = read === BYTES && bytes.readDoubleLE(0) === bytes.readDoubleLE(8) ? bytes.readDoubleLE(0) : 0;
    if (before >= token) return;
    bytes.writeDoubleLE(token, 0);
    bytes.writeDoubleLE(token, 8);
    fs.writeSync(fd, bytes, 0, BYTES, 0);
  } finally {
    fs.closeSync(fd);
  }
}

/** A client whose thread has ended reads its board no more. */
export function removeBoard(file) {
  try { fs.rmSync(file, { force: true }); } catch { /* gone */ }
}
