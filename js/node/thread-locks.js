// This thread's one LockManager in the process-wide lock space, created (engine started) on first
// use: the ponyfill creates it on import, the polyfill only when it installs.
import './supported-node.js';
import { createLockManager } from '../api/index.js';
import { connectThread } from './thread-host.js';

let locks = null;

export function threadLocks() {
  if (locks === null) locks = createLockManager(connectThread());
  return locks;
}
