// Installs navigator.locks (and the LockManager / Lock interfaces) where they are missing, or
// everywhere when forced. One LockManager per context, whichever build installs it first.
import { LockManager, Lock } from '../api/index.js';
import { contextLocks } from './context.js';

const INSTALLED = Symbol.for('weblocks-wasm.installed');

/**
 * @param options { force, hubUrl, forceLocal, scope }
 *   force: replace a native navigator.locks too (tests); also globalThis.WEBLOCKS_FORCE = true.
 *   hubUrl: the hub script (SharedWorker); also globalThis.WEBLOCKS_HUB_URL.
 * @returns the installed LockManager, or null when a working native one was left in place.
 */
export function install(options = {}) {
  const scope = options.scope ?? globalThis;
  if (scope[INSTALLED] !== undefined) return scope[INSTALLED];
  const nav = scope.navigator;
  if (nav === undefined || nav === null) return null;
  const force = options.force ?? scope.WEBLOCKS_FORCE === true;
  if (!force && typeof nav.locks?.request === 'function') return null;
  const hubUrl = scope.WEBLOCKS_HUB_URL ?? options.hubUrl;
  const { locks, backend } = contextLocks({ hubUrl: hubUrl === undefined ? undefined : String(hubUrl), forceLocal: options.forceLocal, scope });
  Object.defineProperty(nav, 'locks', { get: () => locks, configurable: true, enumerable: true });
  for (const [name, value] of [['LockManager', LockManager], ['Lock', Lock]]) {
    if (force || typeof scope[name] !== 'function') {
      Object.defineProperty(scope, name, { value, writable: true, configurable: true, enumerable: false });
    }
  }
  Object.defineProperty(scope, INSTALLED, { value: locks, configurable: true });
  // For DevTools and tests: the connection's state (hub id, hub losses, times declared dead).
  Object.defineProperty(scope, Symbol.for('weblocks-wasm.backend'), { value: backend, configurable: true });
  return locks;
}
