// "weblocks-wasm/machine": the machine-wide lock space as a ponyfill. `locks` is this thread's
// LockManager in the lock space named by WEBLOCKS_MACHINE_SPACE (else 'default'), shared with
// every thread of every process of this user that uses the same space (docs/api.md).
import '../node/supported-node.js';
import { LockManager, Lock, observeLocksOf } from '../api/index.js';
import { machineLocks, createMachineLockManager } from './locks.js';

/** This thread's LockManager in the machine lock space. Connects (and starts the hub) on first use. */
export const locks = machineLocks();

/** observeLocks on this thread's machine lock space (docs/api.md, "Observing locks and naming deadlocks"). */
export function observeLocks(callback, options) {
  return observeLocksOf(locks)(callback, options);
}

export { createMachineLockManager, LockManager, Lock };
