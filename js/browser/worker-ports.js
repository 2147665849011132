// Dedicated workers have no SharedWorker constructor: the context that creates one hands it a port
// to the hub. No message of ours may reach app code in either direction, so each side must know
// the other runs the polyfill before it posts anything:
//   - The only thing a creator can give a worker at construction that the worker reads without
//     asking is its name (`new Worker(url, { name })`, `self.name`). The patched `Worker` appends
//     NAME_MARK to it: "my creator answers port requests". The polyfill in the worker strips it
//     again (self.name reads as the app gave it) and only then asks, with a marked message the
//     creator's listener (registered in the constructor, before app code's) takes out.
//   - A worker without the mark was created by a context without the polyfill: it never asks (the
//     message would land in the creator's app code) and fails loudly instead (context.js).
//   - The creator never posts first: a worker that does not load the polyfill never asks, and sees
//     nothing but the mark on its name.
// docs/browser.md, "Dedicated workers", weighs the alternatives.
import { markerOf, markerMessage } from '../hub/protocol.js';

const PATCHED = Symbol.for('weblocks-wasm.worker-patched');

/** Appended to the name of every worker a polyfilled context creates. */
export const NAME_MARK = ' [weblocks-wasm: the creator hands out hub ports]';

/** Storage bucket names (the Storage Buckets API's rule): a lock space other than the default. */
export function isBucketName(name) {
  return typeof name === 'string' && /^[a-z0-9][a-z0-9_-]{0,63}$/.test(name);
}

/**
 * In a context that creates workers: answer their port requests through `backendFor(space)` (the
 * HubBackend of the default lock space, space null, or of a storage bucket's).
 */
export function patchWorkerConstructor(scope, backendFor) {
  const NativeWorker = scope.Worker;
  if (typeof NativeWorker !== 'function' || NativeWorker[PATCHED]) return;
  let workers = 0;
  // Per worker: its number in this context, and the backends (lock spaces) that adopted it.
  const adoptions = new WeakMap();
  function answer(event) {
    if (markerOf(event.data) !== 'need-port') return;
    event.stopImmediatePropagation();
    const space = event.data.space ?? null;
    if (space !== null && !isBucketName(space)) return;
    const adopted = adoptions.get(event.target);
    if (adopted === undefined || adopted.ended) return; // terminated: it may run on a moment, but gets no new port
    const backend = backendFor(space);
    const channel = new MessageChannel();
    adopted.backends.add(backend);
    backend.adopt(channel.port1, adopted.number);
    event.target.postMessage(markerMessage('port'), [channel.port2]);
  }
  const Worker = class Worker extends NativeWorker {
    constructor(url, options) {
      // WorkerOptions read once, here (anything but an object or nothing: the native TypeError).
      const dictionary = options === undefined || options === null || typeof options === 'object' || typeof options === 'function';
      const opts = options ?? {};
      super(url, dictionary
        ? { credentials: opts.credentials, name: (opts.name === undefined ? '' : String(opts.name)) + NAME_MARK, type: opts.type }
        : options);
      adoptions.set(this, { number: ++workers, backends: new Set(), ended: false });
      // Registered before any listener app code can add: it runs first.
      this.addEventListener('message', answer);
    }

    /**
     * The creator vouches at the hub for a worker of its own that has no sentinel (a silent one is
     * busy, not gone: js/hub/hub.js vouchedFor); once it terminated the worker it stops vouching,
     * and the heartbeat decides when the worker's locks go (a busy worker may run on a while after
     * terminate(): the hub must not grant its lock while it still runs).
     */
    terminate() {
      super.terminate();
      const adopted = adoptions.get(this);
      if (adopted === undefined || adopted.ended) return;
      adopted.ended = true;
      for (const backend of adopted.backends) backend.workerEnded(adopted.number);
      adopted.backends.clear();
    }
  };
  Object.defineProperty(Worker, PATCHED, { value: true });
  Object.defineProperty(scope, 'Worker', { value: Worker, writable: true, configurable: true, enumerable: false });
}

/**
 * In a dedicated worker: did the creating context load the polyfill (the mark on self.name)? If
 * so, removes the mark so that app code reads the name it gave.
 */
let creatorMarked = null;

export function takeCreatorMark(scope) {
  if (creatorMarked !== null) return creatorMarked;
  const name = typeof scope.name === 'string' ? scope.name : '';
  creatorMarked = name.endsWith(NAME_MARK);
  if (!creatorMarked) return false;
  const appName = name.slice(0, -NAME_MARK.length);
  Object.defineProperty(scope, 'name', { get: () => appName, configurable: true, enumerable: true });
  return true;
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
    const resolve = portWaiters.shift();
    if (resolve !== undefined && event.ports.length === 1) resolve(event.ports[0]);
  });
}

/**
 * Asks the creating context (which carries the polyfill: takeCreatorMark said so) for a port to
 * the hub. It always answers (with a refusal on the port when its own hub failed), so there is no
 * timeout: a busy creator answers late, and a creator that is gone took this worker with it.
 */
export function portFromParent(scope, space = null) {
  return new Promise((resolve) => {
    portWaiters.push(resolve);
    // The creator answers in the order asked: the first waiter gets the first port.
    scope.postMessage(space === null ? markerMessage('need-port') : { ...markerMessage('need-port'), space });
  });
}
