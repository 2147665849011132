// Deno: a Web Worker cannot reach the process's lock space (Deno passes worker_threads environment
// data to node:worker_threads Workers only). Its first request must reject with the named error,
// while the main thread holds the lock: never a lock space of its own (two holders).
// Prints one JSON line: { granted, error: { name, code } | null }.
import { locks } from '../../js/node/index.js';

let release;
await new Promise((held) => { locks.request('web-worker-space', () => { held(); return new Promise((resolve) => { release = resolve; }); }); });
const worker = new Worker(new URL('./deno-web-worker-agent.mjs', import.meta.url), { type: 'module' });
const outcome = await new Promise((resolve) => { worker.onmessage = (event) => resolve(event.data); });
worker.terminate();
release();
console.log(JSON.stringify(outcome));
