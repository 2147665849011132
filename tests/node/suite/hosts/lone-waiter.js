// A worker whose only work is one pending request (the keep-alive case). An unref'd timer proves
// the thread was still alive with nothing but that request pending; then it waits to be granted.
import { parentPort } from 'node:worker_threads';
// (Deno's global timers return numbers outside node_modules: no unref().)
import { setTimeout } from 'node:timers';
import { locks } from '../../../../js/node/index.js';
import { workerName } from './worker-kinds.js';

locks.request(workerName(import.meta.url), () => { parentPort.postMessage('granted'); });
parentPort.postMessage('requested');
setTimeout(() => parentPort.postMessage('alive while pending'), 50).unref();
parentPort.unref();
