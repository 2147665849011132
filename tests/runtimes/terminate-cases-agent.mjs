// A worker of terminate-cases.mjs: holds `name` idle, waits for it, or holds it while busy in
// synchronous code (counting in shared memory), and says so once it is in that state.
import { workerData, parentPort } from 'node:worker_threads';
import { locks } from '../../js/node/index.js';

const { role, name, counter } = workerData;
if (role === 'hold') {
  locks.request(name, () => {
    parentPort.postMessage('holding');
    return new Promise(() => {});
  });
} else if (role === 'wait') {
  locks.request(name, () => {}).catch(() => {});
  // Queued once query() lists it: the main thread waits for this message, then looks.
  const queued = async () => {
    const { pending } = await locks.query();
    if (pending.some((lock) => lock.name === name)) parentPort.postMessage('waiting');
    else setTimeout(queued, 1);
  };
  queued();
} else {
  const count = new Int32Array(counter);
  locks.request(name, () => {
    parentPort.postMessage('busy');
    for (;;) Atomics.add(count, 0, 1);
  });
}
