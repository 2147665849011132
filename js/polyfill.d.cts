// Types of "./polyfill": importing it installs navigator.locks where it is missing (and, in Node,
// replaces a built-in known not to conform). It declares the global navigator.locks for type
// setups that lack it (@types/node before 24).
import type { LockManager as WeblocksLockManager, Lock as WeblocksLock, LockOptions } from './index.cjs';

export interface InstallOptions {
  /** true: replace any built-in navigator.locks; false: keep any (also globalThis.WEBLOCKS_FORCE). */
  force?: boolean;
}

/** Installs navigator.locks; returns the installed LockManager, or null where a built-in one was kept. */
export declare function install(options?: InstallOptions): WeblocksLockManager | null;

/** navigator.locks after installation: the polyfill's, or the built-in one it left in place. */
export declare const locks: WeblocksLockManager;

export type { WeblocksLockManager as LockManager, WeblocksLock as Lock };

// The global declarations agree with both lib.dom's (optional snapshot members, Promise<T>) and
// @types/node 24's (which declares navigator.locks itself, with required members and
// Promise<Awaited<T>>): the global LockManager interface merges with either, and Navigator.locks
// stays the one global LockManager type.
interface GlobalLockInfo {
  name: string;
  mode: 'exclusive' | 'shared';
  clientId: string;
}
// lib.dom is loaded where the global scope has `onabort` (the test @types/node uses too).
type GlobalSnapshot = typeof globalThis extends { onabort: any }
  ? { held?: Partial<GlobalLockInfo>[]; pending?: Partial<GlobalLockInfo>[] }
  : { held: GlobalLockInfo[]; pending: GlobalLockInfo[] };

declare global {
  interface LockManager {
    request<T>(name: string, callback: (lock: WeblocksLock | null) => T): Promise<Awaited<T>>;
    request<T>(name: string, options: LockOptions, callback: (lock: WeblocksLock | null) => T): Promise<Awaited<T>>;
    query(): Promise<GlobalSnapshot>;
  }
  interface Navigator {
    readonly locks: LockManager;
  }
  var navigator: Navigator;
}
