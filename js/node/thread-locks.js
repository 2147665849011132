// This thread's one LockManager in the process-wide lock space, created (engine started) on first
// use: the ponyfill creates it on import, the polyfill only when it installs. A process that opted
// into a machine-wide lock space (WEBLOCKS_MACHINE_SPACE, js/machine/) gets that one instead, whose
// code is loaded only then, on the first request or query: other threads never load it (about 10 ms
// of module loading per thread).
import './supported-node.js';
import { createLockManager, createObserveLocks, observableLockManager, observeLocksOf } from '../api/index.js';
import { connectThread } from './thread-host.js';
import { createLockSpace } from './lock-space.js';
import { ResettableBackend } from './reset-backend.js';
import { DeferredBackend } from '../api/local-backend.js';
import { ThreadKeepAlive } from './keep-alive.js';
import { machineSpaceChosen, chosenSpaceLockManager } from './chosen-space.js';

let locks = null;
let backend = null; // this thread's client in the process-wide lock space
let resettable = null; // what the LockManager talks to: `backend`, moved by resetLockSpace()

export function threadLocks() {
  if (locks === null) {
    if (machineSpaceChosen() !== null) return (locks = chosenSpaceLockManager(machineSpaceLocks));
    backend = connectThread();
    resettable = new ResettableBackend(backend);
    locks = createLockManager(resettable);
  }
  return locks;
}

/**
 * observeLocks(callback, options) on this thread's lock space (docs/api.md, "Observing locks").
 */
export function observeThreadLocks(callback, options) {
  const manager = threadLocks();
  // The machine-wide lock space this process opted into: its manager observes it.
  if (resettable === null) return observeLocksOf(manager)(callback, options);
  return createObserveLocks(resettable)(callback, options);
}

// (It is navigator.locks too: no member beyond the standard ones; observeLocksOf finds its observeLocks.)
function machineSpaceLocks() {
  return observableLockManager(new DeferredBackend(undefined, loadMachineSpaceBackend), { ownMethod: false });
}

// No require(esm) (not on every runtime the package supports): a dynamic import, during which the
// requests that wait for it keep the thread alive, as a queued request does.
async function loadMachineSpaceBackend() {
  const keepAlive = new ThreadKeepAlive();
  keepAlive.update({ alive: true, waiting: false });
  try {
    const machine = await import('../machine/locks.js');
    return machine.chosenSpaceBackend();
  } finally {
    keepAlive.stop();
  }
}

/**
 * Gives this thread a new, empty lock space: its locks are released and its waiting requests
 * dropped in the old one, as if its context had ended (their promises never settle, their
 * callbacks are never called), and this thread's
 * LockManager, and every Worker this thread creates from now on, use the new one. Workers created
 * before stay in the old one. For test runners: a test file that forgot a lock cannot leak it
 * into the next file. (Not for the machine-wide lock space, which other processes share.)
 */
export function resetLockSpace() {
  if (machineSpaceChosen() !== null) {
    throw new Error('weblocks-wasm: resetLockSpace() cannot reset the machine-wide lock space (WEBLOCKS_MACHINE_SPACE): other processes share it.');
  }
  createLockSpace();
  if (locks === null) return;
  backend.end?.();
  backend = connectThread();
  resettable.moveTo(backend);
}
