// The worker of crash-before-watch.mjs: holds the lock, wakes its creator, crashes.
import { workerData } from 'node:worker_threads';
import { locks } from '../../js/node/index.js';

await new Promise((held) => { locks.request('crash-before-watch', () => { held(); return new Promise(() => {}); }); });
Atomics.store(workerData, 0, 1);
Atomics.notify(workerData, 0);
throw new Error('crashes on purpose while holding');
