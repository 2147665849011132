// Every kind of worker a runtime has, behind one shape, so the Node-threads host runs the suite on
// each: 'default' (the default export's Worker of node:worker_threads), 'named' (the named
// export) and 'web' (the global Web Worker: Bun and Deno have one, Node does not).
import workerThreads, { Worker as NamedWorker } from 'node:worker_threads';

export const WORKER_KINDS = ['default', 'named', 'web'];

/** The kinds this runtime has. */
export function availableWorkerKinds() {
  return WORKER_KINDS.filter((kind) => kind !== 'web' || typeof globalThis.Worker === 'function');
}

/**
 * Starts `url` as a worker of `kind` with `workerData` (also given to Web Workers: Bun takes it;
 * its `name` is also the URL's ?name=). Returns { post(message), onMessage(fn), exited (a promise
 * of the exit code, or null where the runtime gives none), terminate() }.
 */
export function startWorker(kind, url, workerData = {}) {
  if (kind === 'web') {
    const workerUrl = new URL(url);
    if (workerData.name !== undefined) workerUrl.searchParams.set('name', workerData.name);
    // (Bun drops a worker URL's query, but takes workerData as node:worker_threads does.)
    const worker = new globalThis.Worker(workerUrl, { type: 'module', workerData });
    // Bun's Web Worker says 'close' once it has ended (its 'error' is the 'crash' ending's throw).
    const exited = new Promise((resolve) => worker.addEventListener('close', (event) => resolve(event.code ?? null), { once: true }));
    worker.addEventListener('error', (event) => event.preventDefault?.());
    return {
      post: (message) => worker.postMessage(message),
      onMessage: (fn) => worker.addEventListener('message', (event) => fn(event.data)),
      exited,
      terminate: async () => { worker.terminate(); await exited; },
    };
  }
  const WorkerClass = kind === 'named' ? NamedWorker : workerThreads.Worker;
  const worker = new WorkerClass(url, { workerData });
  // (events.once would reject on the 'error' event a crashing thread emits first.)
  const exited = new Promise((resolve) => worker.once('exit', resolve));
  worker.on('error', () => {}); // the 'crash' ending throws on purpose
  return {
    post: (message) => worker.postMessage(message),
    onMessage: (fn) => worker.on('message', fn),
    exited,
    terminate: async () => { await worker.terminate(); await exited; },
  };
}

/** In a worker of any kind: the name it was given (workerData.name or ?name=). */
export function workerName(moduleUrl) {
  return workerThreads.workerData?.name ?? new URL(moduleUrl).searchParams.get('name');
}
