// Where a machine-wide lock space lives: a Unix domain socket in a folder only this user can
// enter. The folder is the security boundary (a socket's own mode bits are not honoured
// everywhere), so it is checked before every use, and a folder or socket that another user owns,
// or that the group or others may enter, is refused loudly with the fix, never used.
import { fs } from '../node/builtin-fs.js';
import os from 'node:os';
import path from 'node:path';

/** The lock space used when none is named (WEBLOCKS_MACHINE_SPACE or the `space` option). */
export const DEFAULT_SPACE = 'default';

// A name is one path component: it cannot climb out of the folder (no '/', no leading '.').
const SPACE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

// sun_path is 108 bytes on Linux, 104 on macOS (with its terminating NUL).
const SOCKET_PATH_MAX = process.platform === 'linux' ? 107 : 103;

export class MachineSpaceError extends Error {
  constructor(code, message) {
    super(message);
    this.name = 'MachineSpaceError';
    this.code = code;
  }
}

/** Checks a lock space name; returns it, or throws a TypeError that says what a name may be. */
export function checkSpaceName(name) {
  if (typeof name !== 'string' || !SPACE_NAME.test(name)) {
    throw new TypeError(`weblocks-wasm: machine lock space name ${JSON.stringify(String(name)).slice(0, 80)} is not allowed: `
      + 'use 1-64 characters of A-Z a-z 0-9 . _ - that do not start with "." (it names a file in the lock space folder).');
  }
  return name;
}

/**
 * The folder of this user's machine lock spaces: WEBLOCKS_MACHINE_DIR when set, else
 * $XDG_RUNTIME_DIR/weblocks-wasm (a per-user runtime folder), else <tmpdir>/weblocks-wasm-<uid>.
 */
export function defaultFolder(env = process.env) {
  if (process.platform === 'win32') {
    throw new MachineSpaceError('ERR_WEBLOCKS_MACHINE_PLATFORM', 'weblocks-wasm: the machine lock space needs Unix domain sockets and file permissions (Linux, macOS); '
      + 'it is not available on Windows. Use the process-wide lock space (weblocks-wasm/register) there.');
  }
  if (env.WEBLOCKS_MACHINE_DIR) return path.resolve(env.WEBLOCKS_MACHINE_DIR);
  if (env.XDG_RUNTIME_DIR) return path.join(env.XDG_RUNTIME_DIR, 'weblocks-wasm');
  return path.join(os.tmpdir(), `weblocks-wasm-${process.getuid()}`);
}

/** The files of one lock space. */
export function spaceFiles(folder, space) {
  checkSpaceName(space);
  const files = {
    folder,
    space,
    socket: path.join(folder, `${space}.sock`),
    pid: path.join(folder, `${space}.pid`),
    log: path.join(folder, `${space}.log`),
    starting: path.join(folder, `${space}.starting`),
    journal: path.join(folder, `${space}.journal`),
  };
  if (Buffer.byteLength(files.socket) > SOCKET_PATH_MAX) {
    throw new MachineSpaceError('ERR_WEBLOCKS_MACHINE_PATH', `weblocks-wasm: the socket path ${files.socket} is longer than a Unix socket path may be `
      + `(${SOCKET_PATH_MAX} bytes). Set WEBLOCKS_MACHINE_DIR to a shorter folder.`);
  }
  return files;
}

/**
 * Creates the folder (mode 0700) if it is missing, then checks it: a real directory (not a
 * symlink), owned by this user, with no access for group or others. Throws otherwise, with the fix.
 */
export function ensurePrivateFolder(folder) {
  try {
    fs.mkdirSync(folder, { mode: 0o700 });
  } catch (error) {
    if (error.code !== 'EEXIST') {
      throw new MachineSpaceError('ERR_WEBLOCKS_MACHINE_FOLDER', `weblocks-wasm: cannot create the machine lock space folder ${folder}: ${error.message}. `
        + 'Set WEBLOCKS_MACHINE_DIR to a folder this user may create.');
    }
  }
  checkPrivateFolder(folder);
  return folder;
}

export function checkPrivateFolder(folder) {
  const stat = fs.lstatSync(folder);
  const uid = process.getuid();
  if (!stat.isDirectory()) {
    throw new MachineSpaceError('ERR_WEBLOCKS_MACHINE_FOLDER', `weblocks-wasm: refusing the machine lock space folder ${folder}: it is not a directory (a symlink or a file). `
      + `Remove it (it is recreated) or set WEBLOCKS_MACHINE_DIR to a private folder.`);
  }
  if (stat.uid !== uid) {
    throw new MachineSpaceError('ERR_WEBLOCKS_MACHINE_FOLDER', `weblocks-wasm: refusing the machine lock space folder ${folder}: it belongs to user ${stat.uid}, not to this user (${uid}), `
      + 'so another user could reach or replace the lock hub. Set WEBLOCKS_MACHINE_DIR to a folder of your own, or remove that folder.');
  }
  if ((stat.mode & 0o077) !== 0) {
    throw new MachineSpaceError('ERR_WEBLOCKS_MACHINE_FOLDER', `weblocks-wasm: refusing the machine lock space folder ${folder}: its mode is ${(stat.mode & 0o777).toString(8)}, `
      + `so other users may enter it and reach the lock hub. Fix: chmod 700 ${folder}`);
  }
}

/**
 * Checks the socket file before connecting to it: a socket owned by this user. Returns false
 * when it does not exist.
 */
export function checkSocketFile(socketPath) {
  let stat;
  try {
    stat = fs.lstatSync(socketPath);
  } catch (error) {
    if (error.code === 'ENOENT') return false;
    throw error;
  }
  if (!stat.isSocket()) {
    throw new MachineSpaceError('ERR_WEBLOCKS_MACHINE_SOCKET', `weblocks-wasm: refusing ${socketPath}: it is not a socket. Remove it (the lock hub creates it again).`);
  }
  if (stat.uid !== process.getuid()) {
    throw new MachineSpaceError('ERR_WEBLOCKS_MACHINE_SOCKET', `weblocks-wasm: refusing ${socketPath}: it belongs to user ${stat.uid}, not to this user (${process.getuid()}). `
      + 'Remove it, and check who can write to its folder.');
  }
  return true;
}

/** The lock space this process uses by default: WEBLOCKS_MACHINE_SPACE, or DEFAULT_SPACE. */
export function defaultSpaceName(env = process.env) {
  return env.WEBLOCKS_MACHINE_SPACE ? checkSpaceName(env.WEBLOCKS_MACHINE_SPACE) : DEFAULT_SPACE;
}

/** Whether process `pid` exists (one of another user counts: it exists). */
export function processAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}
