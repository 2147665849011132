// A worker thread acting as one context of the Node-threads host: it runs requests with
// requestHandle() on navigator.locks (the package's preload) and relays them over messages.
import { parentPort, workerData } from 'node:worker_threads';
import '../../../../js/node/register.js';
import { requestHandle } from '../handle.js';
import { runStressContext } from '../stress.js';
import { serveRelayedCommands } from './relay.js';

await serveRelayedCommands({
  locks: globalThis.navigator.locks,
  send: (message) => parentPort.postMessage(message),
  listen: (fn) => parentPort.on('message', fn),
  // (Deno's parentPort has no close(), and a Web Worker ends only by close(): both end by the
  // worker scope's close(), as a browser worker does.)
  close: () => (workerData?.kind === 'web' || process.versions.deno ? globalThis.close() : parentPort.close()),
  requestHandle,
  runStressContext,
});
