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

/**
 * Node only (the "node" export condition): a LockManager on an in-context engine that serves its
 * caller alone, sharing nothing with other threads.
 */
export declare function createLocalLockManager(): LockManager;
