// Exactly one hub per lock space: how a starting hub takes the socket path, or learns that
// another hub serves it.
//
// A hub listens on a private path of its own first, then hard-links its socket to the lock
// space's path: link() fails if the path exists, so of any number of starters exactly one wins,
// and the path only ever names a socket that already listens. A path that exists but refuses
// connections is the socket of a dead hub (nothing listens on it any more: a hub killed with
// SIGKILL cannot remove it). Every starter may see that stale file at once, so removing it is
// itself exclusive: the one that creates a marker file named after the stale file's identity
// (inode and change time) removes it, and only while the path still names that same file. A
// starter that wins a marker and dies before removing the file leaves its pid in the marker; the
// next marker, named after that dead pid too, is taken the same way.
import { fs } from '../node/builtin-fs.js';
import net from 'node:net';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { processAlive } from './place.js';

const RETRY_MS = 5;
const CLAIM_TIMEOUT_MS = 10_000;

/** The identity of the file at `file` (its inode and change time), or null if there is none. */
export function identityOf(file) {
  try {
    const stat = fs.lstatSync(file, { bigint: true });
    return `${stat.dev}-${stat.ino}-${stat.ctimeNs}`;
  } catch (error) {
    if (error.code === 'ENOENT') return null;
    throw error;
  }
}

/** 'live' when something accepts connections at `socketPath`, 'stale' when it refuses, 'gone' when there is no file. */
export function probeSocket(socketPath) {
  return new Promise((resolve) => {
    const socket = net.connect(socketPath);
    socket.once('connect', () => { socket.destroy(); resolve('live'); });
    socket.once('error', (/** @type {NodeJS.ErrnoException} */ error) => {
      if (error.code === 'ECONNREFUSED') resolve('stale');
      else if (error.code === 'ENOENT') resolve('gone');
      else resolve('live'); // EAGAIN: a full backlog is a live hub
    });
  });
}

function listen(server, file) {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ path: file, backlog: 511 }, () => { server.off('error', reject); resolve(); });
  });
}

/**
 * Removes the stale socket whose identity is `stale`, if this process is the one allowed to.
 * Returns true when this process removed it.
 */
function removeStale(files, stale, marker = path.join(files.folder, `.${files.space}.stale-${stale}`), depth = 0) {
  let fd;
  try {
    fd = fs.openSync(marker, 'wx', 0o600);
  } catch (error) {
    if (error.code !== 'EEXIST' || depth >= 4) return false;
    // Another starter is removing it; if that starter died before it could, take over from it.
    const holder = Number.parseInt(fs.readFileSync(marker, 'utf8'), 10);
    if (Number.isSafeInteger(holder) && holder > 0 && !processAlive(holder) && identityOf(files.socket) === stale) {
      return removeStale(files, stale, `${marker}-${holder}`, depth + 1);
    }
    return false;
  }
  try {
    fs.writeSync(fd, String(process.pid));
    fs.closeSync(fd);
    if (identityOf(files.socket) !== stale) return false;
    fs.unlinkSync(files.socket);
    return true;
  } finally {
    fs.rmSync(marker, { force: true });
  }
}

/**
 * Makes `server` the lock space's socket. Resolves { identity } (of the socket file) once it is, or
 * null when another hub serves the lock space (then `server` is closed).
 */
export async function claimSocket(server, files) {
  const own = path.join(files.folder, `.${files.space}.${process.pid}.${randomBytes(4).toString('hex')}.sock`);
  await listen(server, own);
  fs.chmodSync(own, 0o600);
  const identity = identityOf(own);
  const deadline = Date.now() + CLAIM_TIMEOUT_MS;
  try {
    for (;;) {
      try {
        fs.linkSync(own, files.socket);
        return { identity };
      } catch (error) {
        if (error.code !== 'EEXIST') throw error;
      }
      const seen = identityOf(files.socket);
      if (seen === null) continue;
      const state = await probeSocket(files.socket);
      if (state === 'live') {
        server.close();
        return null;
      }
      if (state !== 'stale' || !removeStale(files, seen)) await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
      if (Date.now() > deadline) throw new Error(`could not take ${files.socket} within ${CLAIM_TIMEOUT_MS} ms`);
    }
  } finally {
    fs.rmSync(own, { force: true });
  }
}
