// Types of "./machine" (Node): the machine-wide lock space, shared by every thread of every process
// of this user that uses the same lock space name (docs/api.md, "Across processes").
import type { LockManager, Lock, LockOptions, ObserveLocksCallback, ObserveLocksOptions } from './index.cjs';

export { LockManager, Lock } from './index.cjs';
export type {
  LockMode, LockOptions, LockInfo, LockManagerSnapshot, LockGrantedCallback, ObserveLocksCallback, ObserveLocksOptions,
  LockSpaceChange, LockChange, DeadlockChange, DeadlockMember, ObservedSnapshot, ObservedLockInfo,
} from './index.cjs';

/**
 * A lock granted by a machine lock space: a Lock with its fencing token, one counter of the lock
 * space that grows with every grant (steals and hub deaths included). Pass it to the resource you
 * protect and have the resource refuse a token lower than one it has already seen.
 */
export interface FencedLock extends Lock {
  readonly fencingToken: number;
}

/** A LockManager on a machine lock space: its callbacks get FencedLock (or null with ifAvailable). */
export interface MachineLockManager extends LockManager {
  request<T>(name: string, callback: (lock: FencedLock | null) => T): Promise<T>;
  request<T>(name: string, options: LockOptions, callback: (lock: FencedLock | null) => T): Promise<T>;
  /**
   * Watches this manager's machine lock space; keeps the thread alive until stopped. Absent on the
   * manager that is the process's navigator.locks (use observeLocks() of this module there).
   */
  observeLocks?(callback: ObserveLocksCallback, options?: ObserveLocksOptions): () => void;
}

/** locks.observeLocks: this thread's machine lock space, watched without polling. */
export declare function observeLocks(callback: ObserveLocksCallback, options?: ObserveLocksOptions): () => void;

/** This thread's LockManager in the lock space named by WEBLOCKS_MACHINE_SPACE (else 'default'). */
export declare const locks: MachineLockManager;

export interface MachineLockSpaceOptions {
  /** The lock space's name: 1-64 of A-Z a-z 0-9 . _ - not starting with '.'. Default: WEBLOCKS_MACHINE_SPACE, else 'default'. */
  space?: string;
  /** The private folder of the socket. Default: WEBLOCKS_MACHINE_DIR, else $XDG_RUNTIME_DIR/weblocks-wasm, else <tmpdir>/weblocks-wasm-<uid>. */
  folder?: string;
  /** 'reject': a request that would close a certain deadlock rejects with an OperationError. */
  deadlock?: 'reject' | 'report';
}

/** A new LockManager (a client of its own, with its own clientId) in a machine lock space. */
export declare function createMachineLockManager(options?: MachineLockSpaceOptions): MachineLockManager & {
  observeLocks(callback: ObserveLocksCallback, options?: ObserveLocksOptions): () => void;
};
