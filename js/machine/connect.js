// A connection to a machine lock space's hub, starting the hub first if none serves it: no
// command for the user to run. Any number of processes and threads may do this at once: each
// that finds no hub may start one (a marker file keeps most from starting one needlessly), and
// the hubs' own claim (claim.js) leaves exactly one serving; the others exit.
import { fs } from '../node/builtin-fs.js';
import net from 'node:net';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { setTimeout } from 'node:timers'; // (a DOM test environment may replace the global one)
import { ensurePrivateFolder, checkSocketFile, MachineSpaceError } from './place.js';

const HUB_SCRIPT = fileURLToPath(new URL('./hub-process.js', import.meta.url));
// A hub being started by someone else gets this long before another is started.
const STARTING_GRACE_MS = 3000;
const START_TIMEOUT_MS = Number(process.env.WEBLOCKS_MACHINE_START_TIMEOUT_MS ?? 15_000);

function connectOnce(socketPath) {
  return new Promise((resolve, reject) => {
    const socket = net.connect(socketPath);
    const failed = (error) => reject(error);
    socket.once('error', failed);
    socket.once('connect', () => { socket.off('error', failed); resolve(socket); });
  });
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves a connected net.Socket to the hub of `files` (place.js spaceFiles), starting it if needed. */
export async function connectToSpace(files) {
  const deadline = performance.now() + START_TIMEOUT_MS;
  let pause = 2;
  for (;;) {
    ensurePrivateFolder(files.folder);
    checkSocketFile(files.socket);
    try {
      return await connectOnce(files.socket);
    } catch (error) {
      // ENOENT: no hub yet; ECONNREFUSED: the socket of a dead hub; EAGAIN: a hub too busy to accept
      // now; ECONNRESET: the hub died with this connection in its backlog (its file is stale now).
      if (!['ENOENT', 'ECONNREFUSED', 'EAGAIN', 'ECONNRESET'].includes(error.code)) {
        throw new MachineSpaceError('ERR_WEBLOCKS_MACHINE_CONNECT', `weblocks-wasm: cannot connect to the machine lock hub at ${files.socket}: ${error.message}`);
      }
      if (error.code === 'ENOENT' || error.code === 'ECONNREFUSED') startHubUnlessStarting(files);
    }
    if (performance.now() > deadline) {
      throw new MachineSpaceError('ERR_WEBLOCKS_MACHINE_START', `weblocks-wasm: the machine lock hub of space "${files.space}" did not start within ${START_TIMEOUT_MS} ms. `
        + `Its log: ${files.log}${lastLoggedError(files.log)}`);
    }
    await sleep(pause);
    pause = Math.min(pause * 2, 50);
  }
}

/** Starts a hub process, unless one was started in the last STARTING_GRACE_MS. */
function startHubUnlessStarting(files) {
  try {
    const stat = fs.statSync(files.starting);
    // One started moments ago: it is starting, or it failed (a hub that serves, or finds another
    // serving, removes the marker): either way, not another one before the grace period is over.
    if (Date.now() - stat.mtimeMs < STARTING_GRACE_MS) return;
    fs.rmSync(files.starting, { force: true });
  } catch { /* no marker */ }
  let fd;
  try {
    fd = fs.openSync(files.starting, 'wx', 0o600);
  } catch {
    return; // another process just started one
  }
  /** @type {NodeJS.ProcessEnv} */
  const env = { ...process.env, WEBLOCKS_MACHINE_DIR: files.folder, WEBLOCKS_MACHINE_SPACE: files.space };
  delete env.NODE_OPTIONS; // the hub is no client of itself (a preload there would make it one)
  const child = spawn(process.execPath, [HUB_SCRIPT], { detached: true, stdio: 'ignore', env, cwd: files.folder });
  child.unref();
  child.on('error', () => {});
  fs.writeSync(fd, String(child.pid ?? ''));
  fs.closeSync(fd);
}

/** The hub's last logged error, for the message of a hub that would not start. */
function lastLoggedError(log) {
  try {
    const line = fs.readFileSync(log, 'utf8').split('\n').reverse().find((entry) => / error /.test(entry));
    return line === undefined ? '' : `; it says: ${line.slice(line.indexOf(' error ') + 7, line.indexOf(' error ') + 400)}`;
  } catch {
    return '';
  }
}
