// Types of "./etcd": the Web Locks API on a lock space kept in an etcd cluster (Node only; needs
// the npm package etcd3). See docs/api.md, "The etcd lock space".
import type { Lock, LockManager, LockOptions, ObserveLocksCallback, ObserveLocksOptions } from './index.js';

export { Lock, LockManager } from './index.js';
export type {
  LockOptions, LockInfo, LockManagerSnapshot, LockMode, ObserveLocksCallback, ObserveLocksOptions, LockSpaceChange,
} from './index.js';

export interface EtcdLockSpaceOptions {
  /** The etcd endpoints, e.g. ["http://10.0.0.1:2379", "http://10.0.0.2:2379"] (or one comma-separated string). */
  hosts: string[] | string;
  /** Key prefix of the lock space (default "weblocks/"): clients share locks only within one namespace. */
  namespace?: string;
  /**
   * The lease TTL in whole seconds (default 10). A client that crashes or is cut off keeps its
   * locks at most this long; a client that cannot renew its lease for this long takes its locks as
   * lost (their request promises reject with an AbortError).
   */
  leaseTtl?: number;
  /** How often the lease is renewed, in ms (default a third of the TTL); below the TTL. */
  keepAliveInterval?: number;
  /** A unary etcd call that takes longer (ms, default 5000) fails and is retried. */
  callTimeout?: number;
  /** This client's id in query() (default a random UUID). */
  clientId?: string;
  /** Further options for etcd3's client (credentials, auth, grpcOptions). */
  etcd3Options?: Record<string, unknown>;
}

/**
 * A lock granted by the etcd lock space: a Lock with its fencing token, which grows from each
 * holder of a name to the next (steals included). Pass it to the resource you protect and have the
 * resource refuse a token lower than one it has already seen.
 */
export interface FencedLock extends Lock {
  readonly fencingToken: number;
}

/** The LockManager of the etcd lock space: its callbacks get FencedLock (or null with ifAvailable). */
export interface EtcdLockManager extends LockManager {
  request<T>(name: string, callback: (lock: FencedLock | null) => T): Promise<T>;
  request<T>(name: string, options: LockOptions, callback: (lock: FencedLock | null) => T): Promise<T>;
  /** Watches this lock space (one etcd watch). Deadlocks are not detected on etcd. */
  observeLocks(callback: ObserveLocksCallback, options?: ObserveLocksOptions): () => void;
}

/** locks.observeLocks(callback, options) for a lock manager of this module. */
export declare function observeLocks(locks: LockManager, callback: ObserveLocksCallback, options?: ObserveLocksOptions): () => void;

/** A LockManager on etcd; returned at once (the etcd client loads in the background). */
export declare function createLockManager(options: { etcd: EtcdLockSpaceOptions }): EtcdLockManager;

/** Revokes the client's lease (its locks are released, its requests dropped) and closes its connections. */
export declare function closeLockManager(locks: LockManager): Promise<void>;

/** The clientId this lock manager's requests carry in query(). */
export declare function clientIdOf(locks: LockManager): string | undefined;
