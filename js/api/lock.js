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

/** For the LockManager only: a new Lock object associated with a granted lock. */
export function newLock(name, mode) {
  return new Lock(CONSTRUCT, name, mode);
}
