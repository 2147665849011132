// Browser TypeScript user (lib.dom, bundler resolution): the polyfill, and our types against lib.dom's both ways.
import 'weblocks-wasm/polyfill';
import { locks, type LockManager as OurLockManager, type Lock as OurLock } from 'weblocks-wasm';

const toDom: LockManager = locks;
const fromDom: OurLockManager = navigator.locks;
const lockToDom = (lock: OurLock): Lock => lock;
const lockFromDom = (lock: Lock): OurLock => lock;
void [toDom, fromDom, lockToDom, lockFromDom];
const n: number = await navigator.locks.request('x', async (lock) => (lock === null ? 0 : lock.name.length));
void n;
export {};
