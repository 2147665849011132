// Types of "./polyfill": importing it installs navigator.locks where it is missing (and, in Node,
// replaces a built-in known not to conform). It declares the global navigator.locks for type
// setups that lack it (Node's): the global LockManager interface gets lib.dom's signatures (the
// same declarations merge where lib.dom is loaded).
import type { LockManager as WeblocksLockManager, Lock as WeblocksLock, LockOptions, LockManagerSnapshot, LockGrantedCallback } from './index.cjs';

export interface InstallOptions {
  /** true: replace any built-in navigator.locks; false: keep any (also globalThis.WEBLOCKS_FORCE). */
  force?: boolean;
}

/** Installs navigator.locks; returns the installed LockManager, or null where a built-in one was kept. */
export declare function install(options?: InstallOptions): WeblocksLockManager | null;

/** navigator.locks after installation: the polyfill's, or the built-in one it left in place. */
export declare const locks: WeblocksLockManager;

export type { WeblocksLockManager as LockManager, WeblocksLock as Lock };

declare global {
  interface LockManager {
    request<T>(name: string, callback: LockGrantedCallback<T>): Promise<T>;
    request<T>(name: string, options: LockOptions, callback: LockGrantedCallback<T>): Promise<T>;
    query(): Promise<LockManagerSnapshot>;
  }
  interface Navigator {
    readonly locks: LockManager;
  }
  var navigator: Navigator;
}
