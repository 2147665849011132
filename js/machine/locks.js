// LockManagers on a machine lock space: one client of its hub per manager (per thread, in
// practice: `machineLocks()` gives each thread one).
import { observableLockManager } from '../api/index.js';
import { MachineBackend } from './machine-backend.js';
import { spaceFiles, defaultFolder, defaultSpaceName } from './place.js';
import { machineSpaceChosen, chosenSpaceLockManager } from '../node/chosen-space.js';

export { machineSpaceChosen };

const managers = new Map(); // socket path -> this thread's LockManager on it

/**
 * A new LockManager (a new client: its own clientId) on the machine lock space `space` (default:
 * WEBLOCKS_MACHINE_SPACE, else 'default') in `folder` (default: place.js defaultFolder()).
 * Nothing connects until its first request; the hub is started then if none serves the space.
 * @param {{ space?: string, folder?: string, deadlock?: 'reject' | 'report' }} [options]
 */
export function createMachineLockManager({ space = defaultSpaceName(), folder = defaultFolder(), deadlock } = {}) {
  // (Its observeLocks is an own method: never on LockManager.prototype or navigator.locks.)
  return observableLockManager(new MachineBackend(spaceFiles(folder, space), { deadlock }));
}

/** This thread's one LockManager on a machine lock space (created on first use). */
export function machineLocks(options = {}) {
  const files = spaceFiles(options.folder ?? defaultFolder(), options.space ?? defaultSpaceName());
  if (machineSpaceChosen() !== null && files.socket === chosenSpaceFiles().socket) {
    // The one navigator.locks and weblocks-wasm's `locks` also are (js/node/thread-locks.js).
    // navigator.locks too: no member beyond the standard ones (observeLocksOf finds its observeLocks).
    return chosenSpaceLockManager(() => observableLockManager(new MachineBackend(files), { ownMethod: false }));
  }
  let locks = managers.get(files.socket);
  if (locks === undefined) {
    locks = observableLockManager(new MachineBackend(files));
    managers.set(files.socket, locks);
  }
  return locks;
}

function chosenSpaceFiles() {
  return spaceFiles(defaultFolder(), defaultSpaceName());
}

/** A backend on the lock space this process opted into (for js/node/thread-locks.js). */
export function chosenSpaceBackend() {
  return new MachineBackend(chosenSpaceFiles());
}
