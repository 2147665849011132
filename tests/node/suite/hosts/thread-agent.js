// A worker thread acting as one context of the Node-threads host: it runs requests with
// requestHandle() on navigator.locks (the package's preload) and relays them over messages.
import { parentPort } from 'node:worker_threads';
import '../../../../js/node/register.js';
import { requestHandle } from '../handle.js';
import { runStressContext } from '../stress.js';

const locks = globalThis.navigator.locks;
const handles = new Map();

function relay(rid, handle) {
  handles.set(rid, handle);
  handle.granted.then((lock) => parentPort.postMessage({ ev: 'granted', rid, lock }));
  handle.settled.then((outcome) => {
    handles.delete(rid);
    parentPort.postMessage({ ev: 'settled', rid, outcome });
  });
}

const commands = {
  request: ({ rid, name, options }) => relay(rid, requestHandle(locks, name, options)),
  release: ({ rid, value }) => handles.get(rid)?.release(value),
  fail: ({ rid, message }) => handles.get(rid)?.fail(message),
  abort: ({ rid }) => handles.get(rid)?.abort(),
  query: async ({ qid }) => parentPort.postMessage({ ev: 'query', qid, state: await locks.query() }),
  // Ends: cleanly with callbacks pending (no more messages keep the thread alive), by an uncaught
  // error, or by process.exit(). terminate() is done by the parent.
  close: () => parentPort.close(),
  crash: () => { setTimeout(() => { throw new Error('thread agent crashes on purpose'); }, 0); },
  exit: () => process.exit(7),
  stress: async ({ config }) => {
    const log = await runStressContext({ locks, ...config });
    parentPort.postMessage({ ev: 'stress', log });
  },
};

parentPort.on('message', (message) => commands[message.op](message));
// Ready once this thread's engine is attached (requests made earlier wait for it, which would
// shift the stress run's clock: a steal would take effect later than its ticks say).
await locks.query();
parentPort.postMessage({ ev: 'ready' });
