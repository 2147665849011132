// Types of "./polyfill": importing it installs navigator.locks where it is missing.
import type { LockManager, Lock } from './index.js';

export interface InstallOptions {
  /** Replace a working built-in navigator.locks too (also: globalThis.WEBLOCKS_FORCE = true). */
  force?: boolean;
}

/** Installs navigator.locks; returns the installed LockManager, or null where a built-in one was kept. */
export declare function install(options?: InstallOptions): LockManager | null;

/** Node: the LockManager the polyfill installs (this thread's, in the process-wide lock space). */
export declare const locks: LockManager;

export type { LockManager, Lock };
