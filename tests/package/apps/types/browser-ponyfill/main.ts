// The ponyfill alone: lib.dom's own LockManager and Lock, unmerged, against ours.
import { locks, type LockManager as OurLockManager, type Lock as OurLock } from 'weblocks-wasm';

const toDom: LockManager = locks;
const fromDom: OurLockManager = navigator.locks;
const lockToDom = (lock: OurLock): Lock => lock;
const lockFromDom = (lock: Lock): OurLock => lock;
void [toDom, fromDom, lockToDom, lockFromDom];
