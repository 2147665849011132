// The Node host of one thread: its engine client in the process-wide lock space, the doorbell
// wait, keeping the thread alive while a request is pending, and closing clients of dead threads.
import { threadId } from 'node:worker_threads';
import { randomUUID } from 'node:crypto';
// Node's own timers: a DOM test environment (jest's jsdom) replaces the global ones with timers
// that return numbers (no ref/unref).
import { setInterval, clearInterval } from 'node:timers';
import { EngineBackend } from '../api/engine-backend.js';
import { DeferredBackend, createLocalBackend } from '../api/local-backend.js';
import { findOrCreateLockSpace, attachToLockSpace } from './lock-space.js';
import { registerThisThread, watchWorkers, takeGoneSubtree } from './thread-watch.js';

const noop = () => {};

const ENGINE_CALLS = [
  'openClient', 'closeClient', 'closeClientsOfOwner', 'request', 'release', 'abort',
  'takeEvents', 'snapshot', 'doorbell', 'stats',
];

/** The engine with every call marked in the thread table (so terminate() never cuts one short). */
function guardEngine(engine, guard) {
  if (guard === null) return engine;
  const guarded = Object.create(engine);
  for (const name of ENGINE_CALLS) {
    const call = engine[name];
    guarded[name] = (a, b, c, d) => {
      guard.enter();
      try {
        return call.call(engine, a, b, c, d);
      } finally {
        guard.leave();
      }
    };
  }
  return guarded;
}

/**
 * Makes `backend` wait on its doorbell with one Atomics.waitAsync while it has requests queued or
 * locks held (a steal must reach a holder), and keep the thread alive only while one is queued
 * (a pending waitAsync does not keep a Node thread alive; a ref'd interval does, cheaply).
 */
function serveDoorbell(backend, keepAlive) {
  keepAlive.unref();
  let alive = false;
  let armed = false;
  const ring = () => {
    armed = false;
    backend.drain();
    update();
  };
  function update() {
    const wantAlive = backend.waiting > 0 && !backend.closed;
    if (wantAlive !== alive) {
      alive = wantAlive;
      if (wantAlive) keepAlive.ref(); else keepAlive.unref();
    }
    if (!armed && backend.listeners.size > 0 && !backend.closed) {
      armed = true;
      const wait = Atomics.waitAsync(backend.bell, backend.bellIndex, backend.seen);
      if (wait.async) wait.value.then(ring); else queueMicrotask(ring);
    }
  }
  backend.onActivity = update;
}

/**
 * This thread's backend on the process-wide lock space, returned at once (requests made while the
 * engine attaches wait for it). Falls back to an in-context engine, once with a warning, where
 * shared memory is unavailable.
 */
export function connectThread() {
  const space = findOrCreateLockSpace();
  if (space === null) {
    process.emitWarning('weblocks-wasm: shared WebAssembly memory is unavailable; ' +
      'navigator.locks serves this thread alone (an in-context engine).');
    return createLocalBackend();
  }
  const guard = registerThisThread(space.threads);
  const clientId = randomUUID();
  const engineReady = attachToLockSpace(space).then((engine) => guardEngine(engine, guard));

  // Threads this one creates from now on are watched: when one is gone, its clients and those of
  // the threads it took with it are closed (agent termination), which wakes their waiters.
  watchWorkers(space.threads, (goneId) => {
    engineReady.then((engine) => {
      engine.closeClientsOfOwner(goneId);
      for (const descendant of takeGoneSubtree(space.threads, goneId)) engine.closeClientsOfOwner(descendant);
    }, noop);
  });

  // Requests made while the engine attaches are queued: the thread stays alive until it is ready.
  const keepAlive = setInterval(noop, 0x7fffffff);
  let backend = null;
  const ready = engineReady.then((engine) => {
    backend = new EngineBackend(engine, clientId, threadId);
    serveDoorbell(backend, keepAlive);
    return backend;
  }, (error) => {
    clearInterval(keepAlive);
    throw error;
  });
  // A thread that ends by itself (end of work, process.exit(), an uncaught error) closes its own
  // client, and those of the threads it created: Node terminates them with it.
  process.once('exit', () => {
    if (backend === null) return;
    backend.close();
    for (const descendant of takeGoneSubtree(space.threads, threadId)) backend.engine.closeClientsOfOwner(descendant);
  });
  return new DeferredBackend(clientId, ready);
}
