// Types of the ponyfill ("." export): the Web Locks API without touching navigator.
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

export interface LockInfo {
  name: string;
  mode: LockMode;
  clientId: string;
}

export interface LockManagerSnapshot {
  held: LockInfo[];
  pending: LockInfo[];
}

export type LockGrantedCallback<T> = (lock: Lock | null) => T | PromiseLike<T>;

/** A granted lock. Script cannot construct it. */
export declare class Lock {
  private constructor();
  readonly name: string;
  readonly mode: LockMode;
  readonly [Symbol.toStringTag]: 'Lock';
}

/** navigator.locks. Script cannot construct it. */
export declare class LockManager {
  private constructor();
  request<T>(name: string, callback: (lock: Lock) => T | PromiseLike<T>): Promise<Awaited<T>>;
  request<T>(
    name: string,
    options: LockOptions & { ifAvailable: true },
    callback: (lock: Lock | null) => T | PromiseLike<T>,
  ): Promise<Awaited<T>>;
  request<T>(
    name: string,
    options: LockOptions & { ifAvailable?: false },
    callback: (lock: Lock) => T | PromiseLike<T>,
  ): Promise<Awaited<T>>;
  request<T>(name: string, options: LockOptions, callback: LockGrantedCallback<T>): Promise<Awaited<T>>;
  query(): Promise<LockManagerSnapshot>;
  readonly [Symbol.toStringTag]: 'LockManager';
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
