// "weblocks-wasm/machine": the machine-wide lock space as a ponyfill. `locks` is this thread's
// LockManager in the lock space named by WEBLOCKS_MACHINE_SPACE (else 'default'), shared with
// every thread of every process of this user that uses the same space (docs/api.md).
import '../node/supported-node.js';
import { LockManager, Lock } from '../api/index.js';
import { machineLocks, createMachineLockManager } from './locks.js';

/** This thread's LockManager in the machine lock space. Connects (and starts the hub) on first use. */
export const locks = machineLocks();

/** observeLocks on this machine lock space (docs/api.md, "Observing locks"): locks.observeLocks. */
export function observeLocks(callback, options) {
  return locks.observeLocks(callback, options);
}

export { createMachineLockManager, LockManager, Lock };
