// The lock hub of one machine lock space, in a process of its own (started detached by the first
// process that needs it: connect.js). The same Hub as in browsers (js/hub/hub.js) with a journal
// (machine-hub.js), serving each connection of its Unix domain socket as one client (one thread
// of one process), with the same protocol, validation and quotas, and limits of its own
// (hub-limits.js). Liveness needs no heartbeat here: when a process or thread dies, the operating
// system closes its socket and the hub releases its locks at once; after a hub's death, the next
// one takes over from the journal what the living clients held and waited for.
// The lock space is named by WEBLOCKS_MACHINE_SPACE, its folder by WEBLOCKS_MACHINE_DIR.
// It exits by itself once no process has been connected for WEBLOCKS_MACHINE_IDLE_MS (30 s).
import { fs } from '../node/builtin-fs.js';
import net from 'node:net';
import { randomUUID } from 'node:crypto';
import { loadHubEngine } from '../hub/load-engine.js';
import { MachineHub } from './machine-hub.js';
import { Journal } from './journal.js';
import { FrameBudget, ConnectionGate } from './hub-limits.js';
import { SocketPort, outbox } from './socket-port.js';
import { H } from '../hub/protocol.js';
import { claimSocket } from './claim.js';
import { spaceFiles, ensurePrivateFolder, defaultFolder, defaultSpaceName } from './place.js';

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
const journal = new Journal(files.journal, (error) => {
  // Nobody may be told of what the journal could not record: stop before anything more is sent.
  log('error', `stopped: cannot write the journal ${files.journal}: ${error?.message ?? error}`);
  process.exit(1);
});
// What the journal records is written before anything goes to any client (one write per turn).
outbox.beforeWrite = () => journal.flush();
const hub = new MachineHub(engine, { hubId: randomUUID(), log, journal, files });
const frameBudget = new FrameBudget();
const gate = new ConnectionGate(hub);
let broken = 0; // connections closed for their frames (the log says the first few)
hub.gate = gate;
const server = net.createServer((socket) => {
  if (closing) return socket.destroy();
  if (!gate.admit(socket)) return undefined;
  const port = new SocketPort(socket, { frameBudget, isLazy: onlyConfirmsReleases });
  port.onbroken = (why) => { if (++broken <= 10 || broken % 1000 === 0) log('warn', `closed a connection: ${why} [${broken}]`); };
  gate.watch(hub.connect(port));
  return undefined;
});

const claim = await claimSocket(server, files);
if (claim === null) {
  // Another hub serves this lock space: its clients connect there.
  fs.rmSync(files.starting, { force: true });
  hub.stop();
  process.exit(0);
}
const socketInode = fs.lstatSync(files.socket).ino;
// Before any connection is served (no I/O callback has run since the claim): what the hubs before
// this one granted and queued, for the clients that still live.
const took = hub.takeOver();
if (took.clients + took.dead > 0) {
  log('info', `took over from the journal: ${took.held} locks held and ${took.waiting} requests waiting by ${took.clients} living clients; `
    + `${took.dead} ended clients' locks released${took.conflicts > 0 ? `; ${took.conflicts} unsent grants dropped` : ''}`);
}
writeFileAtomically(files.pid, String(process.pid));
fs.rmSync(files.starting, { force: true });
log('info', `serving lock space ${files.space} on ${files.socket} (pid ${process.pid}, ${process.version})`);

let idleSince = performance.now();
setInterval(() => {
  // Someone removed or replaced our socket file: new processes would start another hub, a
  // second lock space. Stop, so that our clients go to the one the path names now.
  if (ownsSocket() === false) return shutdown('the socket file was removed or replaced', { keepPid: true });
  hub.compactJournal();
  if (hub.connections.size > 0) idleSince = performance.now();
  else if (performance.now() - idleSince >= IDLE_MS) shutdown(`no process connected for ${IDLE_MS} ms`, { keepPid: false });
  return undefined;
}, CHECK_EVERY_MS);
for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(signal, () => shutdown(signal, { keepPid: true }));

/**
 * Release confirmations wait for the next message to their client (socket-port.js Outbox): a
 * client waits for one only when its loss board cannot rule a loss out, and it asks then (C.sync).
 */
function onlyConfirmsReleases(message) {
  if (message.t === H.released) return true;
  return message.t === H.batch && message.m.every((inner) => inner.t === H.released);
}

function ownsSocket() {
  try {
    return fs.lstatSync(files.socket).ino === socketInode;
  } catch {
    return false;
  }
}

/**
 * Stops serving. The socket file goes first, so that a process arriving now starts a new hub.
 * keepPid: clients may still be connected (the pid file of a hub that did not go idle stays).
 * The journal stays either way: the next hub takes over from it.
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
