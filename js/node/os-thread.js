// Whether a thread is gone, from the kernel rather than from any thread's event loop: a thread
// blocked in a synchronous engine call cannot see a Worker's 'exit', but it can look up the
// operating-system thread of the engine mutex's holder. Linux lists a process's live threads in
// /proc/self/task; an entry disappears only once that thread has ended, so nothing of it can run.
// Elsewhere (no /proc) nothing is known and callers keep waiting for the Worker's 'exit'.
import { fs } from './builtin-fs.js';

const { readlinkSync, existsSync } = fs;

/** The kernel's id of the calling thread (Linux), or 0 when it cannot be known. */
export function currentOsThreadId() {
  try {
    const id = Number(readlinkSync('/proc/thread-self').split('/').pop()); // "<pid>/task/<tid>"
    return Number.isInteger(id) && id > 0 && id <= 0x7fffffff ? id : 0;
  } catch {
    return 0;
  }
}

/** Whether this process's kernel thread list can be read (Linux /proc). */
export function osThreadsVisible() {
  return existsSync('/proc/self/task');
}

/** True only when the thread with kernel id `osThreadId` (from currentOsThreadId) has ended. */
export function osThreadIsGone(osThreadId) {
  if (!(osThreadId > 0)) return false;
  // (A thread id is reused only after the kernel's id space wraps: a new thread of this process
  // with the same id reads as alive, which only means waiting, never a false "gone".)
  return existsSync('/proc/self/task') && !existsSync(`/proc/self/task/${osThreadId}`);
}
