// The Lock interface: https://w3c.github.io/web-locks/#api-lock
// Script cannot construct it ("Illegal constructor"); the LockManager makes one per granted lock.
import { shapeInterface } from './webidl.js';

const CONSTRUCT = Symbol('Lock construct key');

export class Lock {
  #name;
  #mode;

  constructor(key, name, mode) {
    if (key !== CONSTRUCT) throw new TypeError('Illegal constructor');
    this.#name = name;
    this.#mode = mode;
  }

  /** https://w3c.github.io/web-locks/#dom-lock-name : the associated lock's name. */
  get name() {
    if (!(#name in this)) throw new TypeError("Illegal invocation: 'name' getter called on an object that is not a Lock");
    return this.#name;
  }

  /** https://w3c.github.io/web-locks/#dom-lock-mode : the associated lock's mode. */
  get mode() {
    if (!(#mode in this)) throw new TypeError("Illegal invocation: 'mode' getter called on an object that is not a Lock");
    return this.#mode;
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
