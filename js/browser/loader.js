// The loader: what the polyfill's entries run on every page (≤ 1 KB gzip, tests/node/package/
// size-budget.test.js). Where navigator.locks works natively (and no install is forced), it does
// nothing else and loads nothing else. Where it is missing or forced, it installs at once a
// navigator.locks that keeps every call in order (pending-locks.js), does now what cannot wait
// (worker-patch.js: workers created meanwhile share the lock space), and loads the rest; the
// rest's install() (install.js) then serves the real LockManager, which takes the kept calls.
// A rest that cannot be loaded (a 404 after a deploy) is said at once: reportError, and every
// kept and later call rejects with a NotSupportedError that names the file and the fix.
// Written for size: no ?? or ?. (the classic bundle's target lowers them).
import { pendingLocks } from './pending-locks.js';

export const INSTALLED = Symbol.for('weblocks-wasm.installed');
/** The pending LockManager of this context, while the rest loads (install.js replaces it). */
const PENDING = Symbol.for('weblocks-wasm.pending');

/**
 * Whether this context needs the polyfill: install.js's decision (no navigator: none; forced:
 * yes; a navigator.locks without request(), or a getter that throws: yes). It reads
 * navigator.locks itself, where install.js reads the attribute as it was before any copy of this
 * package (navigator-locks.js locksWithoutUs): the same here, since a copy that installed in this
 * context set INSTALLED (looked at first), and the getter of a copy in another window of a DOM
 * emulation gives this navigator what it gave before.
 */
export function needsPolyfill(scope, force) {
  const nav = scope.navigator;
  try {
    return !!nav && (force || typeof nav.locks.request !== 'function');
  } catch (error) {
    return true;
  }
}

/**
 * The error of a rest that could not be loaded (what: its file or chunk; fix: what to do about it).
 * @returns {(error: any) => DOMException}
 */
export const restFailure = (what, fix) => (error) => new DOMException(`Web Locks: the rest of the polyfill, ${what}, could not be loaded (${error.message || error}). ${fix}`, 'NotSupportedError');

/**
 * install() of the loader entries. options: as install.js's (force, hubUrl, requireHub, ...);
 * loadRest(options) -> Promise<the real LockManager>: loads the rest and installs it with these
 * options; failure(error): the error to give every call when the rest cannot be loaded
 * (restFailure); prepare(scope): worker-patch.js's, what cannot wait. Returns this context's
 * LockManager (the pending one until the rest loads), or null where a working native one was left
 * in place.
 * @param {(options: any) => Promise<any>} loadRest
 * @param {(error: any) => DOMException} failure
 */
export function installWhereNeeded(options, loadRest, failure, prepare) {
  const scope = options.scope || globalThis;
  const force = options.force === undefined ? scope.WEBLOCKS_FORCE === true : options.force;
  const present = scope[INSTALLED] || scope[PENDING];
  if (present || !needsPolyfill(scope, force)) return present || null;
  const ready = Promise.resolve({ ...options, force }).then(loadRest).then((real) => {
    if (!real) throw Error('it installed nothing');
    return real;
  }).catch((error) => {
    const failed = failure(error);
    (scope.reportError || console.error)(failed);
    throw failed;
  });
  const locks = pendingLocks(ready);
  // An own property of this navigator: install.js's serveLocks deletes it as it serves the real one.
  Object.defineProperty(scope.navigator, 'locks', { value: scope[PENDING] = locks, configurable: true, enumerable: true });
  prepare(scope);
  return locks;
}
