// Thread death (spec 2.6, agent termination) in the Node host.
//
// A thread that is terminate()d or crashes runs no more code, so the thread that created it closes
// its engine clients when its Worker emits 'exit'. A thread that dies takes its own workers with it,
// and their 'exit' listeners lived in the dead thread, so every thread records itself and its parent
// in a shared table: whoever closes a dead thread closes its whole subtree.
//
// terminate() can also stop a thread in the middle of an engine call, while it holds the engine
// mutex, which would stall every other thread for good. So each thread marks the table while it
// is inside an engine call, and the patched terminate() first sets the thread's "stopping" word,
// waits for it to leave the engine, and only then terminates it; a thread that sees "stopping" does
// not enter the engine again (it blocks until the termination lands).
import workerThreads from 'node:worker_threads';
import * as nodeModule from 'node:module';

const WATCHED = Symbol.for('weblocks-wasm/watched-worker');
const EXITED = Symbol('exited');
const PARENT_KEY = 'weblocks-wasm/parent-thread@1';

// The thread table: THREAD_SLOTS records of 4 int32 (a SharedArrayBuffer of THREAD_TABLE_BYTES):
const THREAD = 0;    // threadId; 0 = free slot, -1 = being written
const PARENT = 1;    // threadId of the thread that created it (-1: unknown)
const IN_CALL = 2;   // 1 while the thread is inside an engine call
const STOPPING = 3;  // 1 once its termination has begun: it must not enter the engine again
const WORDS = 4;
export const THREAD_SLOTS = 4096;
export const THREAD_TABLE_BYTES = THREAD_SLOTS * WORDS * 4;

function claimSlot(table, threadId, parentId, stopping) {
  for (let slot = 0; slot < THREAD_SLOTS; slot++) {
    const at = slot * WORDS;
    if (Atomics.load(table, at + THREAD) === 0 && Atomics.compareExchange(table, at + THREAD, 0, -1) === 0) {
      Atomics.store(table, at + PARENT, parentId);
      Atomics.store(table, at + IN_CALL, 0);
      Atomics.store(table, at + STOPPING, stopping);
      Atomics.store(table, at + THREAD, threadId);
      return slot;
    }
  }
  return -1; // full: this thread is not guarded and its subtree not closed with it (docs/api.md)
}

function slotsOf(table, threadId) {
  const found = [];
  for (let slot = 0; slot < THREAD_SLOTS; slot++) {
    if (Atomics.load(table, slot * WORDS + THREAD) === threadId) found.push(slot);
  }
  return found;
}

function freeSlot(table, slot, threadId) {
  const at = slot * WORDS;
  if (Atomics.compareExchange(table, at + THREAD, threadId, -1) === threadId) {
    Atomics.store(table, at + PARENT, 0);
    Atomics.store(table, at + STOPPING, 0);
    Atomics.store(table, at + THREAD, 0);
    return true;
  }
  return false;
}

/**
 * Records this thread (a worker) in the table and returns the guard to wrap every engine call in:
 * enter() before, leave() after. The main thread (never terminated alone) needs no guard.
 */
export function registerThisThread(tableBuffer) {
  const table = new Int32Array(tableBuffer);
  const threadId = workerThreads.threadId;
  if (threadId === 0) return null;
  const parent = workerThreads.getEnvironmentData(PARENT_KEY);
  const slot = claimSlot(table, threadId, typeof parent === 'number' ? parent : -1, 0);
  if (slot < 0) return null;
  const inCall = slot * WORDS + IN_CALL;
  const stopping = slot * WORDS + STOPPING;
  // A terminate() that began before this record existed left a stopping record of its own.
  if (slotsOf(table, threadId).some((other) => Atomics.load(table, other * WORDS + STOPPING) === 1)) {
    Atomics.store(table, stopping, 1);
  }
  return {
    enter() {
      Atomics.store(table, inCall, 1);
      if (Atomics.load(table, stopping) === 1) {
        Atomics.store(table, inCall, 0);
        Atomics.notify(table, inCall);
        for (;;) Atomics.wait(table, stopping, 1); // until the termination stops this thread
      }
    },
    leave() {
      Atomics.store(table, inCall, 0);
      if (Atomics.load(table, stopping) === 1) Atomics.notify(table, inCall);
    },
  };
}

/** Blocks until the thread `threadId` is outside the engine and will not enter it again. */
function stopEngineCalls(table, threadId) {
  let slots = slotsOf(table, threadId);
  if (slots.length === 0) {
    // Not recorded yet: leave a stopping record that it finds when it records itself.
    claimSlot(table, threadId, -1, 1);
    slots = slotsOf(table, threadId);
  }
  for (const slot of slots) Atomics.store(table, slot * WORDS + STOPPING, 1);
  for (const slot of slots) {
    const inCall = slot * WORDS + IN_CALL;
    // An engine call lasts about a microsecond; the timeout only guards against a record freed meanwhile.
    while (Atomics.load(table, inCall) === 1 && Atomics.load(table, slot * WORDS + THREAD) === threadId) {
      Atomics.wait(table, inCall, 1, 10);
    }
  }
}

/**
 * Patches worker_threads.Worker in this thread (once) so that every Worker created from now on is
 * watched: `onThreadGone(threadId)` runs in this thread when it exits, however it ended, and its
 * terminate() never stops it inside an engine call.
 */
export function watchWorkers(tableBuffer, onThreadGone) {
  const OriginalWorker = workerThreads.Worker;
  if (OriginalWorker[WATCHED]) return;
  const table = new Int32Array(tableBuffer);
  // Environment data is copied into each Worker at construction: children learn their parent.
  workerThreads.setEnvironmentData(PARENT_KEY, workerThreads.threadId);

  class Worker extends OriginalWorker {
    constructor(...args) {
      super(...args);
      const childId = this.threadId;
      if (childId > 0) {
        this.once('exit', () => {
          this[EXITED] = true;
          onThreadGone(childId);
        });
      }
    }

    terminate(...args) {
      const childId = this.threadId;
      if (childId > 0 && !this[EXITED]) stopEngineCalls(table, childId);
      return super.terminate(...args);
    }
  }
  Object.defineProperty(Worker, 'name', { value: 'Worker' });
  Object.defineProperty(Worker, WATCHED, { value: true });
  workerThreads.Worker = Worker;
  // `import { Worker } from 'node:worker_threads'` bindings see the patched class too
  // (where the runtime has it: Deno and Bun may not).
  if (typeof nodeModule.syncBuiltinESMExports === 'function') nodeModule.syncBuiltinESMExports();
}

/**
 * A thread is gone: frees its records and returns the threads it created, directly or not, that
 * are still recorded (they died with it), freeing theirs too.
 */
export function takeGoneSubtree(tableBuffer, threadId) {
  const table = new Int32Array(tableBuffer);
  for (const slot of slotsOf(table, threadId)) freeSlot(table, slot, threadId);
  const gone = [];
  const parents = [threadId];
  while (parents.length > 0) {
    const parent = parents.pop();
    for (let slot = 0; slot < THREAD_SLOTS; slot++) {
      const at = slot * WORDS;
      const child = Atomics.load(table, at + THREAD);
      if (child > 0 && Atomics.load(table, at + PARENT) === parent && freeSlot(table, slot, child)) {
        gone.push(child);
        parents.push(child);
      }
    }
  }
  return gone;
}
