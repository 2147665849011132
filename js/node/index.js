// The Node ponyfill: `locks` is this thread's LockManager in the process-wide lock space (every
// worker_thread that loads this package shares it, whoever loaded it first: rendezvous.js). Nothing
// global is touched: threads that die have their locks released once they have stopped, learned
// from process.on('worker') and each Worker's 'exit', and from the kernel's thread list (thread-watch.js).
import { createLockManager, LockManager, Lock, createLocalBackend } from '../api/index.js';
import { threadLocks } from './thread-locks.js';

/** This thread's LockManager, shared with every thread of the process. Usable at once. */
export const locks = threadLocks();

/** A LockManager on an in-context engine that serves its caller alone (no other thread sees it). */
export function createLocalLockManager() {
  return createLockManager(createLocalBackend());
}

export { LockManager, Lock };
