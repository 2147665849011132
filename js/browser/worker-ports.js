// Dedicated workers have no SharedWorker constructor: the context that creates one hands it a port
// to the hub. Transparently: `Worker` is patched so that each worker's request for a port (a marked
// message, sent only by the polyfill inside the worker) is answered by its creator and never
// reaches app code; a worker that does not load the polyfill never asks, and sees nothing.
import { markerOf, markerMessage } from '../hub/protocol.js';

const PATCHED = Symbol.for('weblocks-wasm.worker-patched');

/** In a context that creates workers: answer their port requests through `backend` (a HubBackend). */
export function patchWorkerConstructor(scope, backend) {
  const NativeWorker = scope.Worker;
  if (typeof NativeWorker !== 'function' || NativeWorker[PATCHED]) return;
  function answer(event) {
    if (markerOf(event.data) !== 'need-port') return;
    event.stopImmediatePropagation();
    const channel = new MessageChannel();
    backend.adopt(channel.port1);
    event.target.postMessage(markerMessage('port'), [channel.port2]);
  }
  const Worker = class Worker extends NativeWorker {
    constructor(...args) {
      super(...args);
      // Registered before any listener app code can add: it runs first.
      this.addEventListener('message', answer);
    }
  };
  Object.defineProperty(Worker, PATCHED, { value: true });
  Object.defineProperty(scope, 'Worker', { value: Worker, writable: true, configurable: true, enumerable: false });
}

let portWaiters = [];
let listening = false;

/** In a dedicated worker: listen (before app code does) for the ports the creator sends. */
export function listenForParentPorts(scope) {
  if (listening) return;
  listening = true;
  scope.addEventListener('message', (event) => {
    if (markerOf(event.data) !== 'port') return;
    event.stopImmediatePropagation();
    const waiter = portWaiters.shift();
    if (waiter !== undefined && event.ports.length === 1) waiter.resolve(event.ports[0]);
  });
}

/** Asks the creating context for a port to the hub. Rejects after `timeout` ms without an answer. */
export function portFromParent(scope, timeout) {
  return new Promise((resolve, reject) => {
    const waiter = { resolve: (port) => { clearTimeout(timer); resolve(port); } };
    const timer = setTimeout(() => {
      portWaiters = portWaiters.filter((w) => w !== waiter);
      reject(new Error('the context that created this worker did not answer (does it load the polyfill?)'));
    }, timeout);
    portWaiters.push(waiter);
    scope.postMessage(markerMessage('need-port'));
  });
}
