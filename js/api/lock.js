// The Lock interface: https://w3c.github.io/web-locks/#api-lock
// Script cannot construct it ("Illegal constructor"); the LockManager makes one per granted lock.
import { shapeInterface } from './webidl.js';

const CONSTRUCT = Symbol('Lock construct key');
// Each Lock's internal slots (name, mode): own properties under symbols of this module, as Node's
// lib/internal/locks.js keeps them. Not private fields: an app that bundles the polyfill for engines
// before ES2022 would get its bundler's private-field helpers, and esbuild puts those in a chunk
// that every page loads (the loader's included). Not a WeakMap: one entry per granted lock is
// garbage the collector pays for (Node's uncontended request() took about twice as long, side by side).
const NAME = Symbol('name');
const MODE = Symbol('mode');

/** The slot of a Lock, or a TypeError naming the getter called on something else. */
function slotOf(lock, slot, getter) {
  if (!Object.prototype.hasOwnProperty.call(lock, slot)) throw new TypeError(`Illegal invocation: '${getter}' getter called on an object that is not a Lock`);
  return lock[slot];
}

export class Lock {
  constructor(key, name, mode) {
    if (key !== CONSTRUCT) throw new TypeError('Illegal constructor');
    this[NAME] = name;
    this[MODE] = mode;
  }

  /** https://w3c.github.io/web-locks/#dom-lock-name : the associated lock's name. */
  get name() {
    return slotOf(this, NAME, 'name');
  }

  /** https://w3c.github.io/web-locks/#dom-lock-mode : the associated lock's mode. */
  get mode() {
    return slotOf(this, MODE, 'mode');
  }
}
shapeInterface(Lock, 'Lock');

/**
 * For the LockManager only: a new Lock object associated with a granted lock. A lock granted by a
 * distributed backend (js/etcd) carries one extension, its fencing token: a number that grows
 * from each holder of a name to the next (steals included), so a resource can refuse writes from
 * a holder that lost the lock without knowing it yet (paused past its lease). An own read-only
 * property, so the Lock interface itself (prototype, constructor) is the same for every backend.
 */
export function newLock(name, mode, fencingToken) {
  const lock = new Lock(CONSTRUCT, name, mode);
  if (fencingToken !== undefined) {
    Object.defineProperty(lock, 'fencingToken', { value: fencingToken, writable: false, enumerable: true, configurable: false });
  }
  return lock;
}
