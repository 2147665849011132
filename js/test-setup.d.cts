// Types of "./test-setup" (jest or vitest `setupFiles`): run before each test file, it installs
// navigator.locks, gives the thread a new, empty lock space, and lets the runner exit while a
// request is pending. Node only.
import type { InstallOptions, LockManager } from './polyfill.cjs';

/** Installs navigator.locks; returns the installed LockManager, or null where a built-in one was kept. */
export declare function install(options?: InstallOptions): LockManager | null;

/**
 * Gives this thread a new, empty lock space: its held locks are released and its waiting requests
 * dropped in the old one, as if this context had ended (their promises never settle), and its
 * LockManager, and the Workers it creates from then on, use the new one.
 */
export declare function resetLockSpace(): void;
