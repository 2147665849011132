// The part of the dedicated-worker handshake (worker-ports.js) that must run synchronously, as the
// polyfill's first script runs, even where the rest of the polyfill loads later (loader.js):
//   - in a context that creates workers: `Worker` patched at once, so that a worker created in the
//     page's first line carries the name mark and its port requests are taken out of app code's
//     sight (kept until the rest answers them);
//   - in a dedicated worker: the mark taken off self.name, and a message listener registered
//     before app code's, which hands the creator's answers to the rest.
// Every browser entry runs prepareContext() before the rest (context.js) is set up. Its state
// lives on the global under registry symbols (worker-ports.js reads them), not in this module:
// the rest never imports this file, so a bundler splits no shared chunk off the loader's, and the
// classic loader and the bundle it loads (two copies) share it.
// Written for size (the loader's budget): no ?? or ?. (the classic bundle's target lowers them).

/**
 * Appended to the name of every worker a polyfilled context creates. A contract between
 * contexts that may run different versions (a page loaded before a deploy, its new worker loading
 * the polyfill after): kept as it was, whatever it costs the loader.
 */
export const NAME_MARK = ' [weblocks-wasm: the creator hands out hub ports]';

// js/hub/protocol.js PORT_MARKER (kept equal by tests/node/package/loader.test.js): importing
// protocol.js would bring its tables into the loader.
const PORT_MARKER = '__weblocksWasmHubPort';

/**
 * The marker of a message of ours on an app port ('need-port', 'port', ...), or undefined. Looser
 * than protocol.js markerOf (any object, where it wants a plain one): what this takes out of app
 * code's sight, the rest checks with markerOf before acting on it.
 */
const markerIn = (data) => data && data[PORT_MARKER];

/**
 * Does at once what cannot wait for the rest: patches scope.Worker (once), and in a dedicated
 * worker takes the creator's mark and listens for its answers. The state, for worker-ports.js:
 *   Worker[Symbol.for('weblocks-wasm.worker-patch')] = { handle, ended, queue }: handle(event)
 *     answers the marked messages of the workers created here, ended(worker) hears terminate();
 *     until the rest sets them, both wait in queue, in the order they happened (the events, and
 *     the workers terminated). This shape is shared with other versions of the package (two
 *     copies on one page): a rest that sets only handle and ended, and a patch that drops a
 *     terminated worker's queued messages itself, work with this one either way round.
 *   scope[Symbol.for('weblocks-wasm.creator-mark')]: whether this worker's creator answers;
 *   scope[Symbol.for('weblocks-wasm.parent-inbox')] = { handle(marker, event) }: its answers.
 */
export function prepareContext(scope) {
  patchWorker(scope);
  const markKey = Symbol.for('weblocks-wasm.creator-mark');
  if (!(scope.DedicatedWorkerGlobalScope && scope instanceof scope.DedicatedWorkerGlobalScope) || markKey in scope) return;
  // A dedicated worker: did its creator load the polyfill? Then app code reads the name it gave.
  const name = typeof scope.name === 'string' ? scope.name : '';
  const marked = name.endsWith(NAME_MARK);
  Object.defineProperty(scope, markKey, { value: marked, configurable: true });
  if (!marked) return;
  Object.defineProperty(scope, 'name', { value: name.slice(0, -NAME_MARK.length), configurable: true, enumerable: true });
  const inbox = { handle: null };
  Object.defineProperty(scope, Symbol.for('weblocks-wasm.parent-inbox'), { value: inbox, configurable: true });
  scope.addEventListener('message', (event) => {
    const marker = markerIn(event.data);
    if (marker !== 'port' && marker !== 'no-port') return;
    event.stopImmediatePropagation();
    if (inbox.handle) inbox.handle(marker, event);
  });
}

/** The creating side alone (the classic loader: a worker loads the rest at once, by importScripts). */
export function patchWorker(scope) {
  const NativeWorker = scope.Worker;
  const patchKey = Symbol.for('weblocks-wasm.worker-patch');
  if (typeof NativeWorker === 'function' && !NativeWorker[patchKey]) {
    const state = { handle: null, ended: null, queue: [] };
    const route = (event) => {
      if (markerIn(event.data)) {
        event.stopImmediatePropagation();
        if (state.handle) state.handle(event);
        else state.queue.push(event);
      }
    };
    // Assigned: the global's Worker property keeps its attributes (writable, configurable, not enumerable).
    (scope.Worker = /** @type {any} */ (class Worker extends NativeWorker {
      constructor(url, options) {
        // WorkerOptions read once, here (anything but an object or nothing: the native TypeError;
        // the name converted as a DOMString is, by a template literal: a symbol throws).
        const opts = options === undefined || options === null ? {} : options;
        super(url, Object(opts) === opts
          ? { credentials: opts.credentials, name: `${opts.name === undefined ? '' : opts.name}${NAME_MARK}`, type: opts.type }
          : opts);
        // Registered before any listener app code can add: it runs first.
        this.addEventListener('message', route);
      }

      terminate() {
        super.terminate();
        if (state.ended) state.ended(this);
        else state.queue.push(this);
      }
    }))[patchKey] = state;
  }
}
