// The process-wide lock space: one shared engine memory for every thread of the process.
// The first thread that loads the package creates it and publishes it with
// worker_threads.setEnvironmentData, which every Worker created afterwards inherits (nested ones
// too); each thread then attaches its own wasm instance (own stack) to that memory.
import { getEnvironmentData, setEnvironmentData, threadId } from 'node:worker_threads';
import { compileEngine, createEngineMemory, attachEngine } from '../engine/index.js';
import { RegionPool, REGION_TABLE_BYTES } from '../engine/region-pool.js';
import { WASM_PAGE, MEMORY_MAXIMUM_PAGES } from '../engine/layout.js';
import { THREAD_TABLE_BYTES, recordedThreadIsGone } from './thread-watch.js';

export const SPACE_KEY = 'weblocks-wasm/lock-space@1';

// The engine's own allocations (locks, names, queues) may take all of memory but this much, which
// stays for the stacks and scratch areas of threads: a thread can still attach (and release)
// when the engine is full.
export const THREAD_RESERVE_BYTES = 64 * 1024 * 1024;
export const ENGINE_MEMORY_LIMIT = MEMORY_MAXIMUM_PAGES * WASM_PAGE - THREAD_RESERVE_BYTES;

/**
 * The lock space of this process, created synchronously if this thread is the first: shared
 * memory and the thread table are published at once, so a Worker created right after the import
 * already joins it. Returns null where shared memory is unavailable.
 */
export function findOrCreateLockSpace() {
  const existing = getEnvironmentData(SPACE_KEY);
  if (existing !== undefined) return existing;
  if (inDenoWebWorker()) throw lockSpaceUnreachable();
  return createLockSpace();
}

/**
 * A new, empty lock space for this thread and the Workers it creates from now on (published as
 * findOrCreateLockSpace does); null where shared memory is unavailable.
 */
export function createLockSpace() {
  let memory;
  try {
    memory = createEngineMemory({ shared: true });
  } catch {
    return null;
  }
  if (typeof SharedArrayBuffer === 'undefined' || !(memory.buffer instanceof SharedArrayBuffer)) return null;
  // threads: the thread table of thread-watch.js (which thread's death ends which threads);
  // regions: the region pool of every thread's stack page and scratch areas (region-pool.js).
  const space = {
    memory, threads: new SharedArrayBuffer(THREAD_TABLE_BYTES), regions: new SharedArrayBuffer(REGION_TABLE_BYTES),
    module: null, limited: new SharedArrayBuffer(4),
  };
  setEnvironmentData(SPACE_KEY, space);
  return space;
}

// Deno passes worker_threads environment data to node:worker_threads Workers only, and emits no
// 'worker' event for a Web Worker (so nothing could learn of its end either): a Web Worker there
// cannot join the process's lock space, and a space of its own would silently let two threads
// hold the same lock.
function inDenoWebWorker() {
  return process.versions.deno !== undefined && typeof WorkerGlobalScope === 'function' && globalThis instanceof WorkerGlobalScope;
}

function lockSpaceUnreachable() {
  const error = new Error('weblocks-wasm: a Deno Web Worker cannot reach the process\'s lock space (Deno passes it only to '
    + 'node:worker_threads Workers), and a lock space of its own would not exclude the other threads. '
    + "Create this worker with `new Worker(url)` from 'node:worker_threads' instead of the global Worker.");
  error.name = 'LockSpaceError';
  error.code = 'ERR_WEBLOCKS_NO_LOCK_SPACE';
  return error;
}

/** Attaches this thread's own engine instance to the lock space. */
export async function attachToLockSpace(space) {
  let module = space.module;
  if (module === null) {
    module = await compileEngine({ shared: true });
    // Threads created from now on reuse the compiled module instead of compiling their own.
    const current = getEnvironmentData(SPACE_KEY);
    if (current === space || current?.memory === space.memory) {
      setEnvironmentData(SPACE_KEY, { ...space, module });
    }
  }
  // A call of this thread that finds the engine mutex held by a thread the kernel says has ended
  // frees it at once: that thread's closer may be blocked, unable to see its 'exit'.
  const ownerGone = (tag) => recordedThreadIsGone(space.threads, tag);
  // The owner tag given, not looked up after the await (a test runner may have torn down its
  // module system by then).
  const engine = await attachEngine({ module, memory: space.memory, regions: regionPoolOf(space), ownerGone, ownerTag: threadId });
  // The first thread to attach caps the engine's share of memory (THREAD_RESERVE_BYTES).
  if (Atomics.compareExchange(new Int32Array(space.limited), 0, 0, 1) === 0) engine.setMemoryLimit(ENGINE_MEMORY_LIMIT);
  return engine;
}

/** The region pool of the lock space (this thread's view of it). */
export function regionPoolOf(space) {
  return new RegionPool(space.regions, space.memory);
}
