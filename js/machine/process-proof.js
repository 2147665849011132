// Whether a machine client's thread still lives, from the kernel rather than from anything the
// client does: a thread paused (SIGSTOP, a debugger) or busy in a synchronous task is alive, and
// keeps its locks across hub deaths; one that ended never comes back, and its locks go to waiters.
// A client names itself in its hello (protocol.js `proc`): its pid, its kernel thread id, and its
// process's start time (field 22 of /proc/<pid>/stat, in clock ticks since boot), which tells a
// reused pid from the process that had it. The hub checks that claim when the client registers.
// Where there is no /proc (macOS) only the pid is known: a process that exists is taken as alive.
import { fs } from '../node/builtin-fs.js';
import { currentOsThreadId } from '../node/os-thread.js';
import { processAlive } from './place.js';

const HAS_PROC = fs.existsSync('/proc/self/stat');

/** The fields of /proc/<pid>[/task/<tid>]/stat from field 3 (state) on, or null if there is none. */
function statFields(file) {
  let text;
  try {
    text = fs.readFileSync(file, 'latin1');
  } catch {
    return null;
  }
  // Field 2 is the command in parentheses, and may itself hold spaces and parentheses.
  return text.slice(text.lastIndexOf(')') + 2).split(' ');
}

/** The start time of process `pid` (clock ticks since boot), or null when it cannot be read. */
export function startTimeOf(pid) {
  const fields = statFields(`/proc/${pid}/stat`);
  if (fields === null) return null;
  const start = Number(fields[19]); // field 22
  return Number.isSafeInteger(start) ? start : null;
}

/** This thread's `proc` (protocol.js): { pid, tid, start }. */
export function ownProcess() {
  return { pid: process.pid, tid: currentOsThreadId(), start: HAS_PROC ? startTimeOf(process.pid) : null };
}

const ENDED = new Set(['Z', 'X', 'x']); // a zombie is a process that can run no more

/** True while the thread `proc` names can still run (or, without /proc, while its pid exists). */
export function threadLives({ pid, tid, start }) {
  if (!HAS_PROC) return processAlive(pid);
  const fields = statFields(`/proc/${pid}/stat`);
  if (fields === null || ENDED.has(fields[0]) || Number(fields[19]) !== start) return false;
  if (tid === 0 || tid === pid) return true;
  const thread = statFields(`/proc/${pid}/task/${tid}/stat`);
  return thread !== null && !ENDED.has(thread[0]);
}

/**
 * Null when the hub can vouch for `proc` (a client's hello) from here, else why not: a client
 * whose process the hub cannot see (another PID namespace: a container) could never be proven
 * alive after a hub's death, so it is refused, loudly, rather than served with locks that the
 * next hub would hand to others while it runs.
 */
export function unprovable(proc) {
  if (proc === undefined) return 'its hello does not say which process it is';
  if (!HAS_PROC) return processAlive(proc.pid) ? null : `no process ${proc.pid} is visible to the hub`;
  if (proc.start === null || startTimeOf(proc.pid) !== proc.start || !threadLives(proc)) {
    return `the hub sees no thread ${proc.tid} of process ${proc.pid} started at ${proc.start} `
      + '(processes in another PID namespace, such as another container, cannot share a machine lock space)';
  }
  return null;
}
