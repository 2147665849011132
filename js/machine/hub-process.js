// The lock hub of one machine lock space, in a process of its own (started detached by the first
// process that needs it: start-hub.js). The same Hub as in browsers (js/hub/hub.js), serving each
// connection of its Unix domain socket as one client (one thread of one process), with the same
// protocol, validation, quotas and reclaim. Liveness needs no heartbeat here: when a process or
// thread dies, the operating system closes its socket and the hub releases its locks at once.
// The lock space is named by WEBLOCKS_MACHINE_SPACE, its folder by WEBLOCKS_MACHINE_DIR.
// It exits by itself once no process has been connected for WEBLOCKS_MACHINE_IDLE_MS (30 s).
import { fs } from '../node/builtin-fs.js';
import net from 'node:net';
import { randomUUID } from 'node:crypto';
import { Hub } from '../hub/hub.js';
import { PREDECESSOR } from '../hub/succession.js';
import { loadHubEngine } from '../hub/load-engine.js';
import { SocketPort } from './socket-port.js';
import { claimSocket } from './claim.js';
import { spaceFiles, ensurePrivateFolder, defaultFolder, defaultSpaceName } from './place.js';

// Connections end with their socket, which the OS closes when their process or thread dies: no
// client is ever declared dead for being silent (a process busy in a long synchronous task keeps
// its locks, as a thread does in one process), and the hub pings no one.
// Each waiting request learns its place in the queue on the next turn (not after a 50 ms batch as
// in browsers): after a hub's death, the survivors re-register their waiting requests in that order.
const LIVENESS = { DEAD_AFTER: Infinity, PING_AFTER: Infinity, QUEUE_ORDER_BATCH: 0 };
const IDLE_MS = Number(process.env.WEBLOCKS_MACHINE_IDLE_MS ?? 30_000);
const CHECK_EVERY_MS = 500;
const LOG_KEEP_BYTES = 1 << 20;

const files = spaceFiles(ensurePrivateFolder(defaultFolder()), defaultSpaceName());
const log = openLog(files.log);
// (clients that cannot reach a hub for 15 s fail with an error naming this log)
for (const event of ['uncaughtException', 'unhandledRejection']) {
  process.on(event, (error) => {
    log('error', `stopped by an uncaught error: ${error?.stack ?? error}`);
    process.exit(1);
  });
}

const engine = await loadHubEngine({ preferShared: false });
let closing = false;
// No claim of a lost hub opens the reclaim window until the pid file says a hub died (below).
const hub = new Hub(engine, { hubId: randomUUID(), log, liveness: LIVENESS, predecessor: PREDECESSOR.none });
const server = net.createServer((socket) => {
  if (closing) socket.destroy();
  else hub.connect(new SocketPort(socket));
});

const claim = await claimSocket(server, files);
if (claim === null) {
  // Another hub serves this lock space: its clients connect there.
  fs.rmSync(files.starting, { force: true });
  hub.stop();
  process.exit(0);
}
const socketInode = fs.lstatSync(files.socket).ino;
// A pid file left behind is a hub that died (a hub that exits cleanly removes it): its clients
// re-register what they hold and wait for here, so nothing new is granted before they have.
const predecessor = readPid(files.pid);
if (predecessor !== null && predecessor !== process.pid) {
  hub.predecessor = PREDECESSOR.lost;
  hub.openReclaimWindow();
}
writeFileAtomically(files.pid, String(process.pid));
fs.rmSync(files.starting, { force: true });
log('info', `serving lock space ${files.space} on ${files.socket} (pid ${process.pid}, ${process.version})`);

let idleSince = performance.now();
setInterval(() => {
  // Someone removed or replaced our socket file: new processes would start another hub, a
  // second lock space. Stop, so that our clients go to the one the path names now.
  if (ownsSocket() === false) return shutdown('the socket file was removed or replaced', { keepPid: true });
  if (hub.connections.size > 0) idleSince = performance.now();
  else if (performance.now() - idleSince >= IDLE_MS) shutdown(`no process connected for ${IDLE_MS} ms`, { keepPid: false });
  return undefined;
}, CHECK_EVERY_MS);
for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(signal, () => shutdown(signal, { keepPid: true }));

function ownsSocket() {
  try {
    return fs.lstatSync(files.socket).ino === socketInode;
  } catch {
    return false;
  }
}

/**
 * Stops serving. The socket file goes first, so that a process arriving now starts a new hub.
 * keepPid: clients may still hold locks (they re-register them with the next hub, which the pid
 * file tells to wait for them).
 */
function shutdown(reason, { keepPid }) {
  if (closing) return;
  closing = true;
  log('info', `stopping: ${reason}`);
  if (ownsSocket()) fs.rmSync(files.socket, { force: true });
  if (!keepPid && readPid(files.pid) === process.pid) fs.rmSync(files.pid, { force: true });
  server.close();
  hub.stop();
  process.exit(0);
}

function readPid(file) {
  try {
    const pid = Number.parseInt(fs.readFileSync(file, 'utf8'), 10);
    return Number.isSafeInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

function writeFileAtomically(file, text) {
  const temporary = `${file}.${process.pid}`;
  fs.writeFileSync(temporary, text, { mode: 0o600 });
  fs.renameSync(temporary, file);
}

function openLog(file) {
  try {
    if (fs.statSync(file).size > LOG_KEEP_BYTES) fs.truncateSync(file, 0);
  } catch { /* no log yet */ }
  return (level, text) => {
    try {
      fs.appendFileSync(file, `${new Date().toISOString()} ${level} ${text}\n`, { mode: 0o600 });
    } catch { /* the log is best effort */ }
  };
}
