// LockManagers that can observe their lock space (observeLocks), for hosts that load the
// observeLocks client up front (Node, an in-context engine); a file of its own so that the
// browsers' page code, which loads that client on the first call (lazy-observe-locks.js), never
// imports it.
import { createLockManager } from './lock-manager.js';
import { observeSource } from './observe-locks.js';

/**
 * For hosts: observeLocks(callback, options) on the lock space of `backend` (its observeSource();
 * docs/api.md, "Observing locks").
 */
export function createObserveLocks(backend) {
  return function observeLocks(callback, options) {
    return observeSource(backend.observeSource(), callback, options);
  };
}

// Every LockManager made by observableLockManager(), with its observeLocks.
const observeLocksOfManager = new WeakMap();

/**
 * For hosts: a LockManager on `backend` that can observe its lock space. ownMethod: it also gets an
 * own observeLocks method (managers the script creates itself; never one that becomes
 * navigator.locks, which keeps exactly the standard members). observeLocksOf() finds it either way.
 */
export function observableLockManager(backend, { ownMethod = true } = {}) {
  const manager = createLockManager(backend);
  const observeLocks = createObserveLocks(backend);
  observeLocksOfManager.set(manager, observeLocks);
  if (ownMethod) Object.defineProperty(manager, 'observeLocks', { value: observeLocks, writable: true, configurable: true });
  return manager;
}

/** The observeLocks of a manager made by observableLockManager(), or undefined. */
export function observeLocksOf(manager) {
  return observeLocksOfManager.get(manager);
}
