// install(): navigator.locks (and the LockManager/Lock globals) in this thread's global, where
// missing or defective (polyfill.js says which); no side effect on import.
import { getEnvironmentData, setEnvironmentData } from 'node:worker_threads';
import { LockManager, Lock } from '../api/index.js';
import { threadLocks } from './thread-locks.js';
import { builtinDecision } from './builtin-policy.js';

const SAID = 'weblocks-wasm: replaced the built-in navigator.locks';

/**
 * @param options { force }: true replaces any built-in navigator.locks; false keeps any; by
 *   default a built-in known to be defective is replaced.
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
  const ours = navigator.locks !== undefined && navigator.locks !== null && navigator.locks === installedLocks;
  if (ours) return installedLocks;
  const builtIn = typeof navigator.locks?.request === 'function';
  if (builtIn) {
    const decision = builtinDecision({ force: typeof force === 'boolean' ? force : undefined });
    if (decision === 'keep') return null;
    if (force !== true) sayReplacedOnce();
    // A built-in getter lives on Navigator.prototype: remove it, so nothing reaches the old one.
    for (let proto = Object.getPrototypeOf(navigator); proto !== null; proto = Object.getPrototypeOf(proto)) {
      const desc = Object.getOwnPropertyDescriptor(proto, 'locks');
      if (desc !== undefined && desc.configurable) delete proto.locks;
    }
  }
  const locks = threadLocks();
  const Navigator = globalThis.Navigator;
  if (typeof Navigator === 'function' && navigator instanceof Navigator) {
    // Node 21+ has a WebIDL-shaped Navigator: the attribute goes where WebIDL puts it, an accessor
    // on the interface prototype that refuses any other `this`.
    const { get } = Object.getOwnPropertyDescriptor({
      get locks() {
        if (this !== navigator) throw new TypeError("Illegal invocation: 'locks' getter called on an object that is not the navigator");
        return locks;
      },
    }, 'locks');
    if (Object.getOwnPropertyDescriptor(navigator, 'locks')?.configurable) delete navigator.locks;
    Object.defineProperty(Navigator.prototype, 'locks', { get, set: undefined, enumerable: true, configurable: true });
  } else {
    // A navigator of our own (Node 20) or another library's plain object: an own property.
    // defineProperty, not assignment: some environments' locks is a getter without a setter.
    Object.defineProperty(navigator, 'locks', { value: locks, writable: false, enumerable: true, configurable: true });
  }
  for (const [name, value] of [['LockManager', LockManager], ['Lock', Lock]]) {
    if (builtIn || typeof globalThis[name] !== 'function') {
      Object.defineProperty(globalThis, name, { value, writable: true, enumerable: false, configurable: true });
    }
  }
  installedLocks = locks;
  return locks;
}

let installedLocks = null;

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

