// This thread's one LockManager in the process-wide lock space, created (engine started) on first
// use: the ponyfill creates it on import, the polyfill only when it installs. A process that opted
// into a machine-wide lock space (WEBLOCKS_MACHINE_SPACE, js/machine/) gets that one instead.
import './supported-node.js';
import { createLockManager } from '../api/index.js';
import { connectThread } from './thread-host.js';
import { machineLocks, machineSpaceChosen } from '../machine/locks.js';

let locks = null;

export function threadLocks() {
  if (locks === null) locks = machineSpaceChosen() !== null ? machineLocks() : createLockManager(connectThread());
  return locks;
}
