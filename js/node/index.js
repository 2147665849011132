// The Node ponyfill: `locks` is this thread's LockManager in the process-wide lock space (every
// worker_thread that loads this package shares it, whoever loaded it first: rendezvous.js). Nothing
// global is touched: threads that die have their locks released once they have stopped, learned
// from process.on('worker') and each Worker's 'exit', and from the kernel's thread list (thread-watch.js).
import { observableLockManager, LockManager, Lock, createLocalBackend } from '../api/index.js';
import { threadLocks, observeThreadLocks } from './thread-locks.js';

/** This thread's LockManager, shared with every thread of the process. Usable at once. */
export const locks = threadLocks();

/**
 * Watches the locks of this thread's lock space without polling: callback(snapshot, changes) at
 * once, then after every change (docs/api.md, "Observing locks"). Returns a function that stops.
 */
export const observeLocks = observeThreadLocks;

/**
 * A LockManager on an in-context engine that serves its caller alone (no other thread sees it).
 * options.deadlock 'reject': a request that would close a certain deadlock rejects (OperationError).
 * The manager's observeLocks(callback, options) observes its own lock space.
 */
export function createLocalLockManager({ deadlock } = {}) {
  return observableLockManager(createLocalBackend({ deadlock }));
}

export { LockManager, Lock };
