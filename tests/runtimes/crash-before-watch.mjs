// A worker that takes a lock and crashes while the thread that created it is still blocked in the
// task that created it (so that thread has not yet turned its event loop: Deno emits process
// 'worker' only then). The lock must be released: prints { got, ms } as JSON.
import { locks } from '../../js/node/index.js';
import { Worker } from 'node:worker_threads';
import { setTimeout } from 'node:timers';

const holding = new Int32Array(new SharedArrayBuffer(4));
const worker = new Worker(new URL('./crash-before-watch-agent.mjs', import.meta.url), { workerData: holding });
worker.on('error', () => {}); // it crashes on purpose
Atomics.wait(holding, 0, 0, 30_000); // blocked until the worker holds the lock
const started = performance.now();
const got = await Promise.race([
  locks.request('crash-before-watch', (lock) => lock.name),
  new Promise((resolve) => setTimeout(() => resolve('never granted'), 10_000).unref()),
]);
console.log(JSON.stringify({ got, ms: Math.round(performance.now() - started) }));
