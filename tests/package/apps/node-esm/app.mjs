// Node ESM user: the polyfill and the ponyfill from the installed tarball; a worker thread that
// imports the polyfill too must see the main thread's lock (one process-wide lock space). Also run
// with Bun and Deno from the app's node_modules.
import 'weblocks-wasm/polyfill';
import { locks } from 'weblocks-wasm';
import { Worker } from 'node:worker_threads';

let release;
let held;
const holding = navigator.locks.request('app', () => { held(); return new Promise((resolve) => { release = resolve; }); });
await new Promise((resolve) => { held = resolve; });
const workerSaw = await new Promise((resolve, reject) => {
  const worker = new Worker(new URL('./worker.mjs', import.meta.url));
  worker.once('message', resolve);
  worker.once('error', reject);
});
release();
await holding;
console.log(JSON.stringify({
  same: locks === navigator.locks,
  workerSaw,
  afterRelease: await navigator.locks.request('app', { ifAvailable: true }, (lock) => lock?.name ?? null),
}));
