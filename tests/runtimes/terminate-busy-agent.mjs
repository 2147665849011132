// The holder of terminate-busy.mjs: takes the lock, says so with its kernel thread id, then stays
// busy in synchronous code, noting if it sees the waiter's grant while it still runs.
import { workerData, parentPort } from 'node:worker_threads';
import { readlinkSync } from 'node:fs';
import { locks } from '../../js/node/index.js';

const GRANTED = 0;
const SEEN = 1;
// Long enough for terminate() to be called; the loop ends earlier if the grant is seen.
const BUSY_MS = 3000;
const shared = new Int32Array(workerData);
const osThread = Number(readlinkSync('/proc/thread-self').split('/').pop());
await locks.request('busy', () => {
  parentPort.postMessage(osThread);
  for (const end = Date.now() + BUSY_MS; Date.now() < end;) {
    if (Atomics.load(shared, GRANTED) === 1) {
      Atomics.store(shared, SEEN, 1);
      break;
    }
  }
});
