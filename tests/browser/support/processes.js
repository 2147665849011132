// Processes of a browser we launched, read from /proc: which content or web processes it runs,
// and killing one of them (SIGKILL, as a crash would) by pid. Never by name: other browsers run
// on the same machine.
import fs from 'node:fs';

function parentOf(pid) {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
}

/**
 * The descendants of `root` as [{ pid, command }], children before grandchildren. `command` is
 * the command line joined by spaces (a process forked by Firefox's fork server rewrites its
 * command line as one string).
 */
export function descendants(root) {
  const children = new Map();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const parent = parentOf(entry);
      if (!children.has(parent)) children.set(parent, []);
      children.get(parent).push(Number(entry));
    } catch { /* exited while we looked */ }
  }
  const found = [];
  const queue = [root];
  while (queue.length) {
    for (const pid of children.get(queue.shift()) ?? []) {
      let command;
      try { command = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' '); } catch { continue; }
      found.push({ pid, command });
      queue.push(pid);
    }
  }
  return found;
}

export function alive(pid) {
  try {
    // A zombie has exited: only its parent's wait() is missing.
    return !/^\S+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch { return false; }
}

/** SIGKILLs `pid` and resolves once it has exited (at once if it already had: no such process). */
export async function killAndWait(pid, timeoutMs = 10_000) {
  try {
    process.kill(pid, 'SIGKILL');
  } catch (error) {
    // Gone between the caller's look and the kill (a WebKit browser ending after its session's
    // delete: WebKit liveness.spec.js:108 failed so in clean-clone run AI).
    if (error.code === 'ESRCH') return;
    throw error;
  }
  const deadline = Date.now() + timeoutMs;
  while (alive(pid)) {
    if (Date.now() > deadline) throw new Error(`process ${pid} still alive ${timeoutMs} ms after SIGKILL`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** The names of a process's threads (/proc/<pid>/task/<tid>/comm, 15 characters at most). */
export function threadNames(pid) {
  try {
    return fs.readdirSync(`/proc/${pid}/task`).map((tid) => {
      try { return fs.readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim(); } catch { return ''; }
    });
  } catch { return []; }
}

/** The one process among `pids` with a thread whose name matches `pattern`; throws unless exactly one. */
export function processWithThread(pids, pattern, what) {
  const found = pids.filter((pid) => threadNames(pid).some((name) => pattern.test(name)));
  if (found.length !== 1) throw new Error(`cannot tell which process runs ${what}: processes with a ${pattern} thread: ${JSON.stringify(found)} of ${JSON.stringify(pids)}`);
  return found[0];
}
