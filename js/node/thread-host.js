// The Node host of one thread: its engine client in the process-wide lock space, the doorbell
// wait, keeping the thread alive while a request is pending, and closing clients of dead threads
// (thread-watch.js says when).
import { threadId } from 'node:worker_threads';
// Node's own timers: a DOM test environment (jest's jsdom) replaces the global ones with timers
// that return numbers (no ref/unref).
import { setTimeout, setInterval, clearInterval } from 'node:timers';
import { EngineBackend } from '../api/engine-backend.js';
import { DeferredBackend, createLocalBackend } from '../api/local-backend.js';
import { findOrCreateLockSpace, attachToLockSpace, regionPoolOf } from './lock-space.js';
import {
  registerThisThread, watchWorkers, goneSubtree, forgetThread, hasRecordedChildren, threadIsWatched,
  goneRecordedThreads, recordedThreadHasStopped, threadDeathsVisible, claimSweep,
} from './thread-watch.js';
import { GoneThreadCloser, QUERY_WAITS_FOR_CLOSE_MS } from './close-gone.js';
import { ensureKeeper } from './rendezvous.js';
import { ThreadKeepAlive } from './keep-alive.js';
import { runningMarkOf } from './running-mark.js';

// A thread's clientId: a name that query() shows, unique in the process, not a secret. Not
// crypto.randomUUID(): loading node:crypto took several ms of every worker thread's start.
let clientsMade = 0;
function newClientId() {
  return `node-${process.pid}-${threadId}-${++clientsMade}`;
}

/**
 * Makes `backend` wait on its doorbell with one Atomics.waitAsync while it has requests queued or
 * locks held (a steal must reach a holder), and keep the thread alive only while one is queued
 * (keep-alive.js).
 */
function serveDoorbell(backend, keepAlive, sweepGoneThreads, mark) {
  let armed = false;
  let sweeping = null;
  const ring = () => {
    armed = false;
    try {
      backend.drain();
    } catch (error) {
      // STUCK (an agent died holding the engine mutex, not yet closed): the events wait in the
      // engine; take them on a later turn, once the event that closes that agent was handled.
      if (error?.code !== 'STUCK') throw error;
      armed = true;
      setTimeout(ring, 10);
      return;
    }
    update();
  };
  function update() {
    if (mark !== null && (backend.listeners.size === 0 || backend.closed)) mark.leave(backend);
    keepAlive.update({ alive: backend.waiting > 0 && !backend.closed, waiting: backend.listeners.size > 0 && !backend.closed });
    // While a request waits, a thread that died unseen (its creator does not watch it) may hold
    // what it waits for: look it up in the kernel's thread list now and then.
    if (backend.waiting > 0 && !backend.closed && sweeping === null) {
      sweepGoneThreads();
      sweeping = setInterval(sweepGoneThreads, SWEEP_MS);
      sweeping.unref?.();
    } else if (!(backend.waiting > 0 && !backend.closed) && sweeping !== null) {
      clearInterval(sweeping);
      sweeping = null;
    }
    if (!armed && backend.listeners.size > 0 && !backend.closed) {
      armed = true;
      const wait = Atomics.waitAsync(backend.bell, backend.bellIndex, backend.seen);
      if (wait.async) wait.value.then(ring); else queueMicrotask(ring);
    }
  }
  backend.onActivity = update;
  update();
}

// How often the threads waiting for a lock look for threads that ended unseen (one of them per
// period: a read of /proc/self/task/<tid> per recorded thread).
const SWEEP_MS = 100;

/**
 * A thread whose creator does not watch it (the creator never loaded the package, or created it
 * before loading it) is closed when it ends by itself, but if it is terminated, or its creator ends,
 * nothing learns of it and its locks stay held: say so, once, with the fix. Checked again a little
 * later if not marked yet (its creator marks it on its next tick); the timer keeps no thread alive.
 */
function warnIfUnwatched(tableBuffer) {
  // Where the kernel lists the process's threads (Linux), every thread's end is seen from there.
  if (threadDeathsVisible() || threadId === 0 || threadIsWatched(tableBuffer, threadId)) return;
  const recheck = setTimeout(() => {
    if (threadIsWatched(tableBuffer, threadId)) return;
    process.emitWarning(`weblocks-wasm: worker thread ${threadId} was created by a thread that had not loaded weblocks-wasm, `
      + 'so nothing learns of its end: if it is terminated, or the thread that created it ends, the locks it holds stay held. '
      + 'Load weblocks-wasm in the creating thread before it creates workers, or start Node with --import weblocks-wasm/register.',
    { code: 'WEBLOCKS_UNWATCHED_THREAD' });
  }, UNWATCHED_RECHECK_MS);
  recheck.unref?.();
}
// Deno emits 'worker' from process.nextTick, which it runs only at the creator's next macrotask
// (a message, a timer), so a creator that only awaits marks its Workers later than Node does.
const UNWATCHED_RECHECK_MS = process.versions.deno === undefined ? 200 : 2000;

/**
 * This thread's backend on the process-wide lock space, returned at once (requests made while the
 * thread joins the space and attaches its engine wait for it). Where shared memory is unavailable,
 * the main thread falls back to an in-context engine, once with a warning, and a worker's requests
 * reject (LockSpaceError).
 */
export function connectThread() {
  let space;
  try {
    space = findOrCreateLockSpace();
  } catch (error) {
    // No lock space this thread may use: every request rejects with why (never a private one).
    return new DeferredBackend(newClientId(), Promise.reject(error));
  }
  if (space === null) {
    // Without shared memory no thread can share a lock space: the main thread gets one of its own
    // (an in-context engine), and every other thread refuses, so no two threads hold one lock.
    if (threadId !== 0) return new DeferredBackend(newClientId(), Promise.reject(noSharedMemory()));
    process.emitWarning('weblocks-wasm: shared WebAssembly memory is unavailable; ' +
      'navigator.locks serves the main thread alone (an in-context engine), and worker threads refuse every request.');
    return createLocalBackend();
  }
  const clientId = newClientId();
  // Requests made while the thread joins and attaches are queued: the thread stays alive meanwhile.
  const keepAlive = new ThreadKeepAlive();
  keepAlive.update({ alive: true, waiting: false });
  let backend = null;
  let ended = false; // by end()
  // Joined at once when the space is at hand (a Worker created right after the import inherits
  // it), else once another thread has handed it over (rendezvous.js).
  const joined = typeof space.then === 'function' ? space.then(joinSpace) : joinSpace(space);
  const ready = Promise.resolve(joined).then(({ engineReady, closer, threads }) => engineReady.then((engine) => {
    backend = new EngineBackend(engine, clientId, threadId);
    // Deno: held while this thread has anything in the lock space, so that terminate() stops it.
    const mark = runningMarkOf(threadId);
    if (mark !== null) {
      const client = backend;
      client.beforeRequest = () => mark.enter(client);
    }
    backend.beforeQuery = () => closer.reportedEndsClosed(QUERY_WAITS_FOR_CLOSE_MS);
    serveDoorbell(backend, keepAlive, () => {
      if (!claimSweep(threads, Math.floor(Date.now() / SWEEP_MS) % 0x40000000)) return;
      const gone = goneRecordedThreads(threads);
      if (gone.length === 0) return;
      closer.add(gone);
      ensureKeeper();
    }, mark);
    if (ended) backend.close();
    return backend;
  })).catch((error) => {
    keepAlive.stop();
    throw error;
  });
  // A thread that ends by itself (end of work, process.exit(), an uncaught error) closes its own
  // client. Never its workers': they run until after this listener (their creator's 'exit' or an
  // ancestor's closes them).
  process.once('exit', () => {
    if (backend === null) return;
    try {
      backend.close();
    } catch (error) {
      process.emitWarning(`weblocks-wasm: closing this thread's locks at exit failed: ${error?.message ?? error}`);
    }
  });
  /** @type {DeferredBackend & { end?: () => void }} */
  const deferred = new DeferredBackend(clientId, ready);
  // Ends this client while the thread goes on (resetLockSpace), as if its context had ended (spec
  // 2.6, agent termination): its locks are released and its queued requests dropped; their
  // promises never settle and their callbacks are never called (the next test file must not get
  // unhandled rejections from the previous one's leftovers).
  deferred.end = () => {
    if (ended) return;
    ended = true;
    if (backend === null) deferred.queue = [];
    else backend.close();
    keepAlive.stop();
  };
  return deferred;
}

function noSharedMemory() {
  /** @type {Error & { code?: string }} */
  const error = new Error(`weblocks-wasm: worker thread ${threadId} cannot share the process's lock space: shared WebAssembly memory `
    + '(SharedArrayBuffer) is unavailable here, and a lock space of its own would not exclude the other threads. '
    + 'Run without --no-harmony-sharedarraybuffer (or the like), or use locks from the main thread only.');
  error.name = 'LockSpaceError';
  error.code = 'ERR_WEBLOCKS_NO_LOCK_SPACE';
  return error;
}

// Records this thread in the space, watches the Workers it creates, and attaches its engine.
function joinSpace(space) {
  if (!registerThisThread(space.threads)) {
    process.emitWarning('weblocks-wasm: the thread table is full; if this thread\'s parent dies, its locks stay held.');
  }
  warnIfUnwatched(space.threads);
  const engineReady = attachToLockSpace(space);
  const regions = regionPoolOf(space);
  // A thread is closed once it is gone (agent termination): its clients and those of the threads
  // it took with it are closed, which wakes their waiters, and their stacks and scratch areas go
  // back to the pool. Learned from each Worker this thread creates from now on ('exit'), and from
  // the kernel's thread list for every recorded thread (whoever created it) while this thread
  // waits for a lock (serveDoorbell); closed only once the kernel confirms it has stopped.
  const records = {
    forget: (goneId) => forgetThread(space.threads, goneId),
    hasRecordedChildren: (goneId) => hasRecordedChildren(space.threads, goneId),
    stopped: (goneId, reported) => recordedThreadHasStopped(space.threads, goneId, reported),
  };
  const closer = new GoneThreadCloser(engineReady, regions, records, (goneId, error) => {
    process.emitWarning(`weblocks-wasm: closing the locks of exited thread ${goneId}: ${error?.message ?? error}`);
  });
  watchWorkers(space.threads, (goneId) => {
    closer.add(goneSubtree(space.threads, goneId), goneId);
    // The space's keeper ends with the thread that started it (rendezvous.js).
    ensureKeeper();
  });
  return { engineReady, closer, threads: space.threads };
}
