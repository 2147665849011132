// Types of "./remote": a LockManager whose lock space is a lock server's (weblocks-wasm/server),
// reached over WebSocket, in browsers, Node 20+ (with the `ws` package where there is no global
// WebSocket), Bun and Deno. See docs/remote.md.
import type { Lock, LockManager, LockOptions, ObserveLocksCallback, ObserveLocksOptions } from './index.js';

export type {
  LockOptions, LockInfo, LockManagerSnapshot, LockMode, ObserveLocksCallback, ObserveLocksOptions, LockSpaceChange,
} from './index.js';

export interface RemoteLockManagerOptions {
  /** The lock server: ws: or wss:; in a page also http(s): or a relative URL, resolved against the page. */
  url: string | URL;
  /**
   * What a request made inside a held lock's callback that would close a certain deadlock gets: 'reject' (an
   * OperationError) or 'report' (default: the global WEBLOCKS_DEADLOCK, else 'report'; observeLocks names it).
   */
  deadlock?: 'reject' | 'report';
}

/** A lock granted through a lock server: its fencing token grows from each holder of a name to the next, per space. */
export interface FencedLock extends Lock {
  readonly fencingToken: number;
}

export interface RemoteLockManager extends LockManager {
  request<T>(name: string, callback: (lock: FencedLock | null) => T): Promise<Awaited<T>>;
  request<T>(name: string, options: LockOptions, callback: (lock: FencedLock | null) => T): Promise<Awaited<T>>;
  /** Watches this client's space on the server. */
  observeLocks(callback: ObserveLocksCallback, options?: ObserveLocksOptions): () => void;
  /** Ends this client's session: the server releases its locks at once; its held requests reject with an AbortError. */
  close(): void;
}

/** A LockManager on the lock server at `url`. Nothing connects until the first request or query. */
export declare function createLockManager(options: RemoteLockManagerOptions): RemoteLockManager;

/** The HTTP headers that carry `lock` to the app's own endpoints (checked there by lockServer.fence(req)). */
export declare function lockHeaders(lock: FencedLock): {
  'weblocks-lock': string;
  'weblocks-lock-mode': 'exclusive' | 'shared';
  'weblocks-fencing-token': string;
};
