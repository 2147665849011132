// install(): navigator.locks (and the LockManager/Lock globals) in this thread's global, where
// missing or defective (polyfill.js says which); no side effect on import.
import { getEnvironmentData, setEnvironmentData } from 'node:worker_threads';
import { LockManager, Lock } from '../api/index.js';
import { threadLocks } from './thread-locks.js';
import { builtinDecision } from './builtin-policy.js';
import { servedLocks, locksWithoutUs, serveLocks } from '../api/navigator-locks.js';
import { aliasBuiltinLocks } from './builtin-aliases.js';
import { preloadInWorkers } from './eval-worker-preload.js';

const SAID = 'weblocks-wasm: replaced the built-in navigator.locks';

/**
 * @param {object} [options] { force }: true replaces any built-in navigator.locks; false keeps any; by
 *   default a built-in known to be defective is replaced. Where a built-in is replaced, or with
 *   force, every Worker this thread creates from now on gets the package too (Node).
 * @returns the installed LockManager, or null when a built-in one was left in place.
 */
export function install({ force = globalThis.WEBLOCKS_FORCE } = {}) {
  if (typeof globalThis.navigator !== 'object' || globalThis.navigator === null) {
    Object.defineProperty(globalThis, 'navigator', {
      value: Object.create(Object.prototype, { [Symbol.toStringTag]: { value: 'Navigator', configurable: true } }),
      writable: true, configurable: true, enumerable: false,
    });
  }
  const navigator = globalThis.navigator;
  if (installedLocks !== null && servedLocks(navigator) === installedLocks) {
    // (Installed by the polyfill's import already: force still reaches the workers created next.)
    if (force === true) preloadInWorkers({ every: true });
    return installedLocks;
  }
  // Decided on what navigator.locks is without this package: another copy's LockManager (a runner
  // may load one copy per test file into a thread) is no built-in, and a getter of ours is never read.
  const without = locksWithoutUs(navigator);
  const builtIn = typeof without.value?.request === 'function';
  if (builtIn) {
    const decision = builtinDecision({ force: typeof force === 'boolean' ? force : undefined });
    if (decision === 'keep') return null;
    if (force !== true) sayReplacedOnce();
  }
  const locks = threadLocks();
  // Node 21+ has a WebIDL-shaped Navigator, and DOM emulations have theirs: the attribute goes on
  // the interface prototype. A navigator of our own (Node 20) or another library's plain object: an
  // own property.
  const Navigator = globalThis.Navigator;
  const iface = typeof Navigator === 'function' && navigator instanceof Navigator ? Navigator : undefined;
  serveLocks(navigator, iface, locks, { replaceBuiltIn: builtIn });
  for (const [name, value] of /** @type {[string, Function][]} */ ([['LockManager', LockManager], ['Lock', Lock]])) {
    if (builtIn || without.replaced || typeof globalThis[name] !== 'function') {
      Object.defineProperty(globalThis, name, { value, writable: true, enumerable: false, configurable: true });
    }
  }
  // One lock space in this thread whatever name code uses (builtin-aliases.js), and in every
  // Worker it creates from now on, which would otherwise get the built-in or, under a user's own
  // --import preload, nothing in eval workers (eval-worker-preload.js).
  if (builtIn) aliasBuiltinLocks(without.value, locks);
  if (builtIn || force === true) preloadInWorkers({ every: true });
  installedLocks = locks;
  return locks;
}

let installedLocks = null; // this module copy's LockManager, once installed

// Once per process: threads created after the first notice inherit the environment data.
function sayReplacedOnce() {
  if (getEnvironmentData(SAID) === true) return;
  setEnvironmentData(SAID, true);
  // Deno (2.9 on) has a navigator.locks of its own and reports a Node version of its choosing: it is
  // replaced too (one lock space with the ponyfill and the workers; its behaviour is not measured).
  const why = process.versions.deno !== undefined
    ? `${SAID} of Deno ${process.versions.deno}, so that navigator.locks, the ponyfill and worker threads share one lock space. `
    : `${SAID} of Node ${process.versions.node}, which does not conform across threads `
      + '(a cross-thread steal aborts the process; query() sees one thread). ';
  process.emitWarning(`${why}Set WEBLOCKS_KEEP_BUILTIN=1 to keep it.`, { code: 'WEBLOCKS_REPLACED_BUILTIN' });
}

