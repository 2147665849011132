// Types of the ponyfill ("." export): the Web Locks API without touching navigator. A .d.cts so
// that CommonJS (require) and ES module (js/index.d.ts re-exports it) users share one declaration;
// assignable to and from lib.dom's LockManager and Lock (no Symbol.toStringTag member: lib.dom has none).
// https://w3c.github.io/web-locks/

export type LockMode = 'exclusive' | 'shared';

export interface LockOptions {
  /** "exclusive" (the default) or "shared". */
  mode?: LockMode;
  /** Grant only if it can be done without waiting; otherwise the callback gets null. */
  ifAvailable?: boolean;
  /** Take the lock from its holders (whose promises reject with an AbortError), ahead of the queue. */
  steal?: boolean;
  /** Aborts the request while it is pending (the promise rejects with signal.reason). */
  signal?: AbortSignal;
}

// Optional members, as lib.dom has them (WebIDL dictionary members); query() always fills them.
export interface LockInfo {
  name?: string;
  mode?: LockMode;
  clientId?: string;
}

export interface LockManagerSnapshot {
  held?: LockInfo[];
  pending?: LockInfo[];
}

export type LockGrantedCallback<T> = (lock: Lock | null) => T;

/** A granted lock. Script cannot construct it. */
export declare class Lock {
  private constructor();
  readonly name: string;
  readonly mode: LockMode;
}

/** navigator.locks. Script cannot construct it. */
export declare class LockManager {
  private constructor();
  // lib.dom's signatures exactly (the callback gets Lock | null, T is not unwrapped): a LockManager
  // of lib.dom is assignable to this one and back, and code typed against either compiles with both.
  request<T>(name: string, callback: LockGrantedCallback<T>): Promise<T>;
  request<T>(name: string, options: LockOptions, callback: LockGrantedCallback<T>): Promise<T>;
  query(): Promise<LockManagerSnapshot>;
}

/**
 * This context's LockManager. In Node, every worker_thread that loads the package shares one
 * lock space; in browsers, every tab and worker of the origin (through a SharedWorker hub).
 */
export declare const locks: LockManager;

/** A lock or request as observeLocks reports it (query()'s LockInfo, every member filled). */
export interface ObservedLockInfo {
  name: string;
  mode: LockMode;
  clientId: string;
}

export interface ObservedSnapshot {
  held: ObservedLockInfo[];
  pending: ObservedLockInfo[];
}

/** One member of a deadlock cycle: it holds `holds` and, inside that lock, waits for `waitsFor`. */
export interface DeadlockMember {
  clientId: string;
  holds: string;
  waitsFor: string;
}

export type LockChangeType = 'requested' | 'granted' | 'released' | 'aborted' | 'stolen';

export interface LockChange extends ObservedLockInfo {
  type: LockChangeType;
}

/**
 * A deadlock: certain (requests made inside the held locks' callbacks: none of them is ever
 * released) or possible (certain: false, a cycle of contexts waiting for each other that lasted
 * deadlockDelay). name, mode and clientId are those of the closing request (cycle[0]).
 */
export interface DeadlockChange {
  type: 'deadlock';
  name: string | undefined;
  mode: LockMode | undefined;
  clientId: string | undefined;
  /** In wait order (each waits for what the next holds); null when too long to list. */
  cycle: DeadlockMember[] | null;
  certain: boolean;
  /** The closing request was rejected with an OperationError (the deadlock: 'reject' option). */
  rejected: boolean;
}

export type LockSpaceChange = LockChange | DeadlockChange;

export interface ObserveLocksOptions {
  /** Observe only these names (an array, or a function of a name). */
  names?: readonly string[] | ((name: string) => boolean);
  /** Stops observing when aborted. */
  signal?: AbortSignal;
  /** Report possible deadlocks (certain: false). Default: where requests' async context is unknown. */
  possibleDeadlocks?: boolean;
  /** How long (ms) a possible deadlock must last before it is reported (default 1000). */
  deadlockDelay?: number;
}

/**
 * callback(snapshot, changes): once at once with the current state (changes: `granted` for each
 * held lock, `requested` for each pending request), then after every change of the observed names,
 * in the order the lock space made them (several may come together under load; the last call
 * always shows the current state).
 */
export type ObserveLocksCallback = (snapshot: ObservedSnapshot, changes: LockSpaceChange[]) => void;

/** Watches this context's lock space without polling. Returns a function that stops. */
export declare function observeLocks(callback: ObserveLocksCallback, options?: ObserveLocksOptions): () => void;

/** A LockManager that can observe its own lock space (an own method: never LockManager.prototype's). */
export interface ObservableLockManager extends LockManager {
  observeLocks(callback: ObserveLocksCallback, options?: ObserveLocksOptions): () => void;
}

export interface LocalLockManagerOptions {
  /** 'reject': a request that would close a certain deadlock rejects with an OperationError. */
  deadlock?: 'reject' | 'report';
}

/**
 * A LockManager on an in-context engine that serves its caller alone, sharing nothing with other
 * threads (or tabs); its observeLocks observes that engine.
 */
export declare function createLocalLockManager(options?: LocalLockManagerOptions): ObservableLockManager;
