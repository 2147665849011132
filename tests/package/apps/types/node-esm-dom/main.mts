// Node ESM TypeScript user whose tsconfig also loads lib.dom: both declarations of navigator.locks agree.
import 'weblocks-wasm/polyfill';
import { locks, type LockManager } from 'weblocks-wasm';

const installed: LockManager = navigator.locks;
const name: string = await navigator.locks.request('x', async (lock) => lock?.name ?? "");
const free: boolean = await locks.request('x', { ifAvailable: true }, (lock) => lock === null);
void [installed, name, free];
