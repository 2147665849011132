import 'weblocks-wasm/polyfill';
import { parentPort } from 'node:worker_threads';

parentPort.postMessage(await navigator.locks.request('app', { ifAvailable: true }, (lock) => (lock === null ? 'held elsewhere' : 'granted')));
