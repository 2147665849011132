// The Node polyfill: navigator.locks (and the LockManager/Lock globals) where they are missing.
// Node 18 and 20 have no navigator: one is created. `install({ force: true })` (or
// globalThis.WEBLOCKS_FORCE = true before the import) replaces a built-in one, as Node 24's.
// Same shape as the browser polyfill (js/browser/polyfill.js).
import { locks, LockManager, Lock } from './index.js';

/**
 * @param options { force }: replace a working built-in navigator.locks too.
 * @returns the installed LockManager, or null when a working built-in one was left in place.
 */
export function install({ force = globalThis.WEBLOCKS_FORCE === true } = {}) {
  if (typeof globalThis.navigator !== 'object' || globalThis.navigator === null) {
    Object.defineProperty(globalThis, 'navigator', {
      value: Object.create(Object.prototype, { [Symbol.toStringTag]: { value: 'Navigator', configurable: true } }),
      writable: true, configurable: true, enumerable: false,
    });
  }
  const navigator = globalThis.navigator;
  if (navigator.locks === locks) return locks;
  if (!force && typeof navigator.locks?.request === 'function') return null;
  if (force) {
    // A built-in getter lives on Navigator.prototype: remove it, so nothing reaches the old one.
    for (let proto = Object.getPrototypeOf(navigator); proto !== null; proto = Object.getPrototypeOf(proto)) {
      const desc = Object.getOwnPropertyDescriptor(proto, 'locks');
      if (desc !== undefined && desc.configurable) delete proto.locks;
    }
  }
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
    // A navigator of our own (Node 18, 20) or another library's plain object: an own property.
    // defineProperty, not assignment: some environments' locks is a getter without a setter.
    Object.defineProperty(navigator, 'locks', { value: locks, writable: false, enumerable: true, configurable: true });
  }
  for (const [name, value] of [['LockManager', LockManager], ['Lock', Lock]]) {
    if (force || typeof globalThis[name] !== 'function') {
      Object.defineProperty(globalThis, name, { value, writable: true, enumerable: false, configurable: true });
    }
  }
  return locks;
}

install();

export { locks };
