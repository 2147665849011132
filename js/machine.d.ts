// Types of "./machine" (Node): the machine-wide lock space, shared by every thread of every process
// of this user that uses the same lock space name (docs/api.md, "Across processes").
import type { LockManager } from './index.cjs';

export { LockManager, Lock } from './index.cjs';
export type { LockMode, LockOptions, LockInfo, LockManagerSnapshot, LockGrantedCallback } from './index.cjs';

/** This thread's LockManager in the lock space named by WEBLOCKS_MACHINE_SPACE (else 'default'). */
export declare const locks: LockManager;

export interface MachineLockSpaceOptions {
  /** The lock space's name: 1-64 of A-Z a-z 0-9 . _ - not starting with '.'. Default: WEBLOCKS_MACHINE_SPACE, else 'default'. */
  space?: string;
  /** The private folder of the socket. Default: WEBLOCKS_MACHINE_DIR, else $XDG_RUNTIME_DIR/weblocks-wasm, else <tmpdir>/weblocks-wasm-<uid>. */
  folder?: string;
}

/** A new LockManager (a client of its own, with its own clientId) in a machine lock space. */
export declare function createMachineLockManager(options?: MachineLockSpaceOptions): LockManager;
