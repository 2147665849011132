// What hosts build on: the spec-shaped LockManager/Lock on a backend, and the in-context engine.
export { LockManager, Lock, createLockManager } from './lock-manager.js';
export { createObserveLocks, observableLockManager, observeLocksOf } from './observable-lock-manager.js';
export { createLocalBackend, DeferredBackend } from './local-backend.js';
export { EngineBackend, createEngineBackend, randomClientId } from './engine-backend.js';
