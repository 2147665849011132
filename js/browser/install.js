// Installs navigator.locks (and the LockManager / Lock interfaces) where they are missing, or
// everywhere when forced. One LockManager per context, whichever build installs it first.
import { LockManager, Lock } from '../api/lock-manager.js';
import { createLazyObserveLocks } from '../api/lazy-observe-locks.js';
import { loadObserveClient as loadClassicObserveClient } from './observe-client.js';
import { contextLocks, bucketLocks } from './context.js';
import { installBucketLocks } from './buckets.js';
import { locksWithoutUs, serveLocks } from '../api/navigator-locks.js';

const INSTALLED = Symbol.for('weblocks-wasm.installed');
const PENDING = Symbol.for('weblocks-wasm.pending'); // loader.js

/**
 * @param {object} [options] { force, hubUrl, forceLocal, requireHub, scope }
 *   force: replace a native navigator.locks too (tests); also globalThis.WEBLOCKS_FORCE = true.
 *   hubUrl: the hub script (SharedWorker); also globalThis.WEBLOCKS_HUB_URL.
 *   prepare: worker-patch.js prepareContext, run before the context is set up (the entries that
 *     are not loaded by the loader pass it; the loader ran it itself).
 *   requireHub: where the platform offers no hub (service workers, an app's shared workers, no
 *     SharedWorker), fail every request with a NotSupportedError instead of using an engine in
 *     this context; also globalThis.WEBLOCKS_REQUIRE_HUB = true.
 *   loadObserveClient: () => Promise<observeSource> (js/api/observe-locks.js), called on the first
 *     observeLocks(): the ES module entries import() it (bundlers split it off); by default, the
 *     classic bundle weblocks-observe.js next to the hub.
 * @returns the installed LockManager, or null when a working native one was left in place.
 */
export function install(options = {}) {
  const scope = options.scope ?? globalThis;
  if (scope[INSTALLED] !== undefined) return scope[INSTALLED];
  const nav = scope.navigator;
  if (nav === undefined || nav === null) return null;
  const force = options.force ?? scope.WEBLOCKS_FORCE === true;
  // What navigator.locks is without this package: a DOM emulation may share one Navigator class
  // among windows, and another window's getter of ours is never read to decide.
  // The loader's pending navigator.locks (loader.js) is ours: replaced as a missing one would be.
  const current = locksWithoutUs(nav).value;
  if (!force && current !== scope[PENDING] && typeof current?.request === 'function') return null;
  const hubUrl = scope.WEBLOCKS_HUB_URL ?? options.hubUrl;
  const requireHub = options.requireHub ?? scope.WEBLOCKS_REQUIRE_HUB === true;
  const contextOptions = {
    hubUrl: hubUrl === undefined ? undefined : String(hubUrl), forceLocal: options.forceLocal, requireHub, scope,
  };
  // What cannot wait for the rest (worker-patch.js): done by the loader already where it ran.
  options.prepare?.(scope);
  const { locks, backend } = contextLocks(contextOptions);
  defineLocksAttribute(scope, nav, locks);
  installBucketLocks(scope, (name) => bucketLocks(name, contextOptions).locks);
  for (const [name, value] of /** @type {[string, Function][]} */ ([['LockManager', LockManager], ['Lock', Lock]])) {
    if (force || typeof scope[name] !== 'function') {
      Object.defineProperty(scope, name, { value, writable: true, configurable: true, enumerable: false });
    }
  }
  Object.defineProperty(scope, INSTALLED, { value: locks, configurable: true });
  // For DevTools and tests: the connection's state (hub id, hub losses, times declared dead).
  Object.defineProperty(scope, Symbol.for('weblocks-wasm.backend'), { value: backend, configurable: true });
  // observeLocks for classic scripts, which cannot import the package's main entry (never on navigator.locks).
  Object.defineProperty(scope, Symbol.for('weblocks-wasm.observeLocks'), { value: createLazyObserveLocks(backend, observeClientLoader(scope, options)), configurable: true });
  return locks;
}

/**
 * The observeLocks client's loader, called once. A service worker may load scripts only while its
 * own script first runs: there the client is loaded now, as the polyfill installs.
 */
function observeClientLoader(scope, options) {
  let loading = null;
  const load = () => {
    if (loading === null) loading = (options.loadObserveClient ?? loadClassicObserveClient)(scope);
    return loading;
  };
  if (typeof scope.ServiceWorkerGlobalScope === 'function' && scope instanceof scope.ServiceWorkerGlobalScope) {
    load().catch(() => {}); // reported by the observeLocks calls that need it
  }
  return load;
}

/**
 * `readonly attribute LockManager locks` of NavigatorLocks (Navigator and WorkerNavigator): on the
 * interface prototype object (navigator-locks.js: served per navigator); a navigator that is no
 * interface's instance (a plain object some host made) gets an own property.
 */
function defineLocksAttribute(scope, nav, locks) {
  const iface = ['Navigator', 'WorkerNavigator']
    .map((name) => scope[name])
    .find((ctor) => typeof ctor === 'function' && ctor.prototype !== undefined && nav instanceof ctor);
  serveLocks(nav, iface, locks);
}
