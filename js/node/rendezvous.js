// How a thread finds its process's one lock space, whoever loaded the package first and however the
// thread was created. Environment data (lock-space.js) reaches only Workers created after it was
// set: a pool whose main thread never loads the package gives its workers none, and a thread that
// made a space of its own would silently share no lock with the others. So every thread joins
// through a process-wide rendezvous before its first grant (Linux; measured on Node 20, 22, 24, 26,
// Bun 1.4 and Deno 2.6/2.9):
// - The gate: an abstract Unix socket name of this process. Binding it succeeds in one thread at a
//   time, synchronously (server.listening right after listen()), and the kernel frees it when its
//   thread closes it or ends. Only the gate's holder decides to create a space or to join one.
// - Members: each thread in the space binds a name of its own that says which space it is in
//   (.../member/<space id>/<kernel thread id>), for as long as it lives. /proc/net/unix lists
//   them, so the gate's holder sees every live member and which space they share.
// - The keeper: members may all be blocked (an idle pool worker waits in Atomics.wait), so the
//   space is handed over by a tiny Worker that does nothing else (keeper.js), started by a worker
//   thread that creates the space, and by a member that answers an ask or sees a thread end while
//   none is alive (a keeper ends with the thread that started it). It is a member as well.
// - The space travels over worker_threads.BroadcastChannel, which every thread of a process
//   shares and which carries shared memory: a thread that finds members of a space it does not
//   have asks one of them (a keeper first), which answers as soon as its event loop turns.
// A thread joins the space its candidate (inherited) is in only if no live member is in another
// one; it creates one only when no live member exists at all. So at every moment all live
// members share one space. Nothing is written to disk; no traffic leaves the process.
import { BroadcastChannel, Worker, threadId } from 'node:worker_threads';
import { createServer } from 'node:net';
// Node's own timers: a DOM test environment may replace the global ones.
import { setTimeout, clearTimeout } from 'node:timers';
import { fs } from './builtin-fs.js';
import { currentOsThreadId, osThreadIsGone } from './os-thread.js';
import { KEEPER_SOURCE } from './keeper.js';

const CHANNEL = 'weblocks-wasm/lock-space@1';
const NAME_PREFIX = 'weblocks-wasm/lock-space@1';
// How soon a thread that found the gate taken, or asked and heard nothing yet, looks again.
const RETRY_MS = 2;
const ASK_AGAIN_MS = 50;
// Waiting this long for the space is worth a warning (every member blocked, no keeper).
const WARN_AFTER_MS = 5000;

/** A new id for a lock space (in member names). */
export function newSpaceId() {
  // (node:crypto loaded here, not at import: a worker that joins the space it inherited never
  // needs it, and it took several ms of each one's start)
  return process.getBuiltinModule('node:crypto').randomUUID().replaceAll('-', '');
}

/**
 * This process's key for the rendezvous names: its pid namespace and pid (unique on the machine
 * while it runs), or null where the rendezvous cannot work (no /proc, no Unix sockets, or no
 * BroadcastChannel that can be unref'd: Deno 2.6's would keep every thread alive): there a thread
 * can use only a space it inherited.
 */
function processKey() {
  if (typeof BroadcastChannel?.prototype?.unref !== 'function' || process.platform !== 'linux') return null;
  try {
    const ns = fs.readlinkSync('/proc/self/ns/pid').replace(/\D/g, '');
    fs.readFileSync('/proc/net/unix', 'utf8');
    return ns === '' || currentOsThreadId() === 0 ? null : `${ns}/${process.pid}`;
  } catch {
    return null;
  }
}

let key; // undefined until first asked
export function rendezvousAvailable() {
  if (key === undefined) key = processKey();
  return key !== null;
}

// Binds an abstract socket name; returns the (unref'd) server, or null if another holds it.
function bindName(name) {
  const server = createServer((socket) => socket.destroy());
  server.on('error', () => {});
  try {
    server.listen(`\0${name}`);
  } catch {
    return null;
  }
  if (!server.listening) return null;
  server.unref();
  return server;
}

/** Live members: a Map of space id -> { keepers, members } (kernel thread ids). */
function liveMembers() {
  const prefix = `@${NAME_PREFIX}/${key}/`;
  const spaces = new Map();
  for (const line of fs.readFileSync('/proc/net/unix', 'utf8').split('\n')) {
    const at = line.indexOf(prefix);
    if (at < 0) continue;
    // Some runtimes pad the name with NULs, which the kernel shows as '@'.
    const [role, spaceId, tid] = line.slice(at + prefix.length).replace(/@+$/, '').split('/');
    if (role !== 'member' && role !== 'keeper') continue;
    const osThread = Number(tid);
    // A name outliving its thread (a runtime that did not close its handles) is no member.
    if (osThreadIsGone(osThread)) continue;
    if (!spaces.has(spaceId)) spaces.set(spaceId, { keepers: new Set(), members: new Set() });
    spaces.get(spaceId)[`${role}s`].add(osThread);
  }
  return spaces;
}

let membership = null; // { space, server } of this thread

/**
 * Joins this process's one lock space: `candidate` (a space this thread inherited, or null) if no
 * live member is in another one, the members' space if there are any (asked for over the
 * channel), or a new one from `create()` if there are none. Returns the space, synchronously when
 * the gate was free and no asking was needed, else a Promise of it. Only where
 * rendezvousAvailable().
 */
export function joinProcessLockSpace(candidate, create) {
  const joined = tryJoin(candidate, create);
  if (joined.space !== undefined) return joined.space;
  return new Promise((resolve, reject) => waitToJoin(joined, candidate, create, resolve, reject));
}

// One attempt under the gate: { space } when joined; { want: space ids to ask for, from: the
// kernel thread ids of their members, keepers first } when the members are in a space this thread
// does not have; { want: null } when the gate was taken.
function tryJoin(candidate, create) {
  const gate = bindName(`${NAME_PREFIX}/${key}/gate`);
  if (gate === null) return { want: null };
  try {
    const spaces = liveMembers();
    if (spaces.size > 1) {
      process.emitWarning(`weblocks-wasm: threads of this process are in ${spaces.size} lock spaces (${[...spaces.keys()].join(', ')}); `
        + 'a lock may be held in each at once. Please report this.', { code: 'WEBLOCKS_SPLIT_LOCK_SPACE' });
    }
    if (spaces.size > 0 && !(candidate !== null && spaces.has(candidate.id))) {
      const from = [...spaces.values()].flatMap(({ keepers }) => [...keepers].sort((a, b) => a - b));
      for (const { members } of spaces.values()) from.push(...[...members].sort((a, b) => a - b));
      return { want: [...spaces.keys()], from };
    }
    const created = spaces.size === 0 && candidate === null;
    const space = created ? create() : candidate;
    becomeMember(space);
    // A worker that creates the space starts its keeper: threads that do not descend from it (its
    // fellow pool workers) will ask. The main thread's workers all inherit the space.
    if (created && threadId !== 0) startKeeper(space);
    return { space };
  } finally {
    gate.close();
  }
}

function becomeMember(space) {
  if (membership?.space.id === space.id) return;
  leaveProcessLockSpace();
  // null: another copy of the package in this thread (a test runner loads one per test file) has
  // made this thread a member of this space already.
  const server = bindName(`${NAME_PREFIX}/${key}/member/${space.id}/${currentOsThreadId()}`);
  membership = { space, server };
  theChannel();
}

// Starts the space's keeper: a Worker that keeps nothing else alive (unref'd), and ends with the
// thread that started it; then another member starts the next one (ensureKeeper).
function startKeeper(space) {
  try {
    const keeper = new Worker(KEEPER_SOURCE, {
      eval: true,
      workerData: { space: { ...space, module: null }, channel: CHANNEL, name: `${NAME_PREFIX}/${key}/keeper/${space.id}` },
      // Nothing the process was started with is for it (no preloads, no inspector).
      execArgv: [], stdout: false, stderr: false,
    });
    keeper.unref();
    keeper.on('error', () => {});
  } catch {
    // No keeper: members answer themselves while their event loops turn.
  }
}

/** Starts a keeper for this thread's space if none is alive (a keeper ends with its starter). */
export function ensureKeeper() {
  if (membership === null || key === null || key === undefined) return;
  const gate = bindName(`${NAME_PREFIX}/${key}/gate`);
  if (gate === null) return;
  try {
    if (!(liveMembers().get(membership.space.id)?.keepers.size > 0)) startKeeper(membership.space);
  } finally {
    gate.close();
  }
}

// Asks go to every thread on one channel, which each thread keeps open (unref'd) for as long as
// it lives, and name the one member that answers; the answer goes to the asking thread alone, on
// a reply channel of that ask. Deno 2.6 cannot take in two messages holding the same shared
// memory on one channel (an uncatchable "could not deserialize value" in that thread), and drops
// a message whose channel is closed right after postMessage (so an answer's channel stays open a
// while). keeper.js answers the same way.
let channel = null;
function theChannel() {
  if (channel !== null) return channel;
  channel = new BroadcastChannel(CHANNEL);
  channel.unref?.();
  // Without the compiled engine (the asker compiles its own).
  channel.onmessage = ({ data }) => {
    if (data?.type !== 'ask' || data.from !== currentOsThreadId() || membership === null || !data.want.includes(membership.space.id)) return;
    const answer = new BroadcastChannel(data.reply);
    answer.unref?.();
    answer.postMessage({ type: 'space', space: { ...membership.space, module: null } });
    setTimeout(() => answer.close(), ANSWER_OPEN_MS).unref?.();
    // Threads that did not inherit the space exist: the next one may ask while this one is blocked.
    ensureKeeper();
  };
  return channel;
}
const ANSWER_OPEN_MS = 5000;

function waitToJoin(joined, candidate, create, resolve, reject) {
  let offered = candidate;
  let timer = null;
  let replies = null;
  let asked = 0;
  let warned = false;
  const since = performance.now();
  const finish = (outcome, value) => {
    if (timer !== null) clearTimeout(timer);
    replies?.close();
    outcome(value);
  };
  // One member at a time is asked, each time the next one (a member may be blocked), each time on
  // a new reply channel.
  const ask = ({ want, from }) => {
    replies?.close();
    const own = new BroadcastChannel(`${CHANNEL}/reply/${key}/${currentOsThreadId()}/${newSpaceId()}`);
    replies = own;
    own.unref?.();
    own.onmessage = ({ data }) => {
      if (own !== replies || data?.type !== 'space' || !want.includes(data.space?.id)) return;
      own.close();
      replies = null;
      offered = data.space;
      if (timer !== null) clearTimeout(timer);
      attempt();
    };
    theChannel().postMessage({ type: 'ask', want, from: from[asked++ % from.length], reply: own.name });
    if (!warned && performance.now() - since > WARN_AFTER_MS) {
      warned = true;
      process.emitWarning(`weblocks-wasm: this thread has waited over ${WARN_AFTER_MS} ms for the process's lock space; `
        + `no thread in it has answered (threads ${from.join(', ')}: blocked, or busy in synchronous code). Its requests wait meanwhile.`,
      { code: 'WEBLOCKS_LOCK_SPACE_WAIT' });
    }
  };
  const next = (outcome) => {
    if (outcome.want !== null) ask(outcome);
    timer = setTimeout(attempt, outcome.want === null ? RETRY_MS : ASK_AGAIN_MS);
    // What keeps this thread alive meanwhile is its queued requests (thread-host.js), not this.
    timer.unref?.();
  };
  const attempt = () => {
    timer = null;
    let outcome;
    try {
      outcome = tryJoin(offered, create);
    } catch (error) {
      finish(reject, error);
      return;
    }
    if (outcome.space !== undefined) finish(resolve, outcome.space);
    else next(outcome);
  };
  next(joined);
}

/** Leaves the rendezvous (this thread's space is one of its own, resetLockSpace). */
export function leaveProcessLockSpace() {
  membership?.server?.close();
  membership = null;
}
