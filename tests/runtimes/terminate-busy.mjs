// A worker that holds a lock and is busy in synchronous code when terminate() is called keeps the
// lock until it can no longer run (spec: a lock passes on when its holder's agent has terminated;
// Deno's terminate() resolves while such a worker still runs). The waiter's grant raises a flag in
// shared memory; the worker, while it runs, looks at that flag in its loop. Once the kernel no
// longer lists the worker's thread, the flag tells whether it ran after the grant.
// Prints { got, ranAfterGrant }. Run by tests/runtimes/run.mjs (Bun, Deno) and
// tests/node/host/terminate-busy.test.js (Node).
import { Worker } from 'node:worker_threads';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import { locks } from '../../js/node/index.js';

const GRANTED = 0;
const SEEN = 1;
const shared = new Int32Array(new SharedArrayBuffer(8));
const worker = new Worker(new URL('./terminate-busy-agent.mjs', import.meta.url), { workerData: shared.buffer });
const [osThread] = await once(worker, 'message');
const waiter = locks.request('busy', () => { Atomics.store(shared, GRANTED, 1); });
await worker.terminate();
await waiter;
// (Polling for the thread's end: no runtime reports it.)
while (existsSync(`/proc/self/task/${osThread}`)) await delay(5);
console.log(JSON.stringify({ got: 'terminate-busy', ranAfterGrant: Atomics.load(shared, SEEN) === 1 }));
