// A worker thread acting as one context of the Node-threads host: it runs requests with
// requestHandle() on navigator.locks (the package's preload) and relays them over messages.
import { parentPort } from 'node:worker_threads';
import '../../../../js/node/register.js';
import { requestHandle } from '../handle.js';
import { runStressContext } from '../stress.js';
import { serveRelayedCommands } from './relay.js';

await serveRelayedCommands({
  locks: globalThis.navigator.locks,
  send: (message) => parentPort.postMessage(message),
  listen: (fn) => parentPort.on('message', fn),
  close: () => parentPort.close(),
  requestHandle,
  runStressContext,
});
