// A worker whose only work is one pending request (the keep-alive case). An unref'd timer proves
// the thread was still alive with nothing but that request pending; then it waits to be granted.
import { parentPort, workerData } from 'node:worker_threads';
import { locks } from '../../../../js/node/index.js';

locks.request(workerData.name, () => { parentPort.postMessage('granted'); });
parentPort.postMessage('requested');
setTimeout(() => parentPort.postMessage('alive while pending'), 50).unref();
parentPort.unref();
