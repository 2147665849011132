// Node ESM TypeScript user: with @types/node 20 (no navigator) the polyfill declares navigator.locks; with 24 it agrees.
import 'weblocks-wasm/polyfill';
import { locks, type LockManager } from 'weblocks-wasm';

const installed: LockManager = navigator.locks;
const name: string = await navigator.locks.request('x', async (lock) => lock?.name ?? "");
const free: boolean = await locks.request('x', { ifAvailable: true }, (lock) => lock === null);
void [installed, name, free];
