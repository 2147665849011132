// The process-wide lock space: one shared engine memory for every thread of the process.
// A thread finds it through the process-wide rendezvous (rendezvous.js), whoever loaded the
// package first; it is also published with worker_threads.setEnvironmentData, which every Worker
// created afterwards inherits (nested ones too), as the candidate the rendezvous confirms. Each
// thread then attaches its own wasm instance (own stack) to that memory.
import { getEnvironmentData, setEnvironmentData, threadId } from 'node:worker_threads';
import { compileEngine, createEngineMemory, attachEngine } from '../engine/index.js';
import { RegionPool, REGION_TABLE_BYTES } from '../engine/region-pool.js';
import { WASM_PAGE, MEMORY_MAXIMUM_PAGES } from '../engine/layout.js';
import { THREAD_TABLE_BYTES, recordedThreadIsGone } from './thread-watch.js';
import { rendezvousAvailable, joinProcessLockSpace, leaveProcessLockSpace, newSpaceId } from './rendezvous.js';

export const SPACE_KEY = 'weblocks-wasm/lock-space@1';

// The engine's own allocations (locks, names, queues) may take all of memory but this much, which
// stays for the stacks and scratch areas of threads: a thread can still attach (and release)
// when the engine is full.
export const THREAD_RESERVE_BYTES = 64 * 1024 * 1024;
export const ENGINE_MEMORY_LIMIT = MEMORY_MAXIMUM_PAGES * WASM_PAGE - THREAD_RESERVE_BYTES;

/**
 * The lock space of this process: the space, or a Promise of it when this thread must wait for
 * another thread to hand it over (rendezvous.js), or null where shared memory is unavailable.
 * Throws (LockSpaceError) where this thread cannot find the process's space: never one of its own.
 */
export function findOrCreateLockSpace() {
  /** @type {any} (a lock space record: see below) */
  const inherited = getEnvironmentData(SPACE_KEY) ?? null;
  if (inDenoWebWorker()) throw lockSpaceUnreachable();
  // A space of a test file's own (resetLockSpace) is shared by that thread and its Workers only.
  if (inherited?.scoped === true) return inherited;
  if (rendezvousAvailable()) {
    if (!sharedMemoryAvailable()) return null;
    return adopt(joinProcessLockSpace(inherited, () => newLockSpace(false)));
  }
  // No rendezvous (not Linux): only the space inherited from the creating thread can be trusted
  // to be the process's; the main thread, which every other thread descends from, may create it.
  if (inherited !== null) return inherited;
  if (threadId !== 0) throw noRendezvous();
  return createLockSpace();
}

// Threads this thread creates from now on inherit the space it joined.
function adopt(joined) {
  if (typeof joined?.then === 'function') return joined.then(adopt);
  if (joined !== null && /** @type {any} */ (getEnvironmentData(SPACE_KEY))?.id !== joined.id) setEnvironmentData(SPACE_KEY, joined);
  return joined;
}

/**
 * A new, empty lock space of this thread's own, shared with the Workers it creates from now on
 * (resetLockSpace, for test runners): this thread leaves the process's space. Null where shared
 * memory is unavailable.
 */
export function createLockSpace({ scoped = true } = {}) {
  const space = newLockSpace(scoped);
  if (space === null) return null;
  if (scoped) leaveProcessLockSpace();
  setEnvironmentData(SPACE_KEY, space);
  return space;
}

function sharedMemoryAvailable() {
  try {
    return typeof SharedArrayBuffer === 'function'
      && new WebAssembly.Memory({ initial: 1, maximum: 1, shared: true }).buffer instanceof SharedArrayBuffer;
  } catch {
    return false;
  }
}

function newLockSpace(scoped) {
  let memory;
  try {
    memory = createEngineMemory({ shared: true });
  } catch {
    return null;
  }
  if (typeof SharedArrayBuffer === 'undefined' || !(memory.buffer instanceof SharedArrayBuffer)) return null;
  // threads: the thread table of thread-watch.js (which thread's death ends which threads);
  // regions: the region pool of every thread's stack page and scratch areas (region-pool.js).
  return {
    id: newSpaceId(), scoped, memory,
    threads: new SharedArrayBuffer(THREAD_TABLE_BYTES), regions: new SharedArrayBuffer(REGION_TABLE_BYTES),
    module: null, limited: new SharedArrayBuffer(4),
  };
}

function noRendezvous() {
  /** @type {Error & { code?: string }} */
  const error = new Error(`weblocks-wasm: worker thread ${threadId} did not inherit the process's lock space and cannot look for it here `
    + '(the process-wide rendezvous needs Linux\'s /proc, abstract Unix sockets and a BroadcastChannel that can be unref\'d, '
    + `which Deno 2.6 lacks; this is ${process.platform}${process.versions.deno ? `, Deno ${process.versions.deno}` : ''}), and a lock space of its own `
    + 'would not exclude the other threads. Load weblocks-wasm in the main thread before it creates workers (import \'weblocks-wasm/polyfill\', '
    + 'or start Node with --import weblocks-wasm/register).');
  error.name = 'LockSpaceError';
  error.code = 'ERR_WEBLOCKS_NO_LOCK_SPACE';
  return error;
}

// Deno passes worker_threads environment data to node:worker_threads Workers only, and emits no
// 'worker' event for a Web Worker (so nothing could learn of its end either): a Web Worker there
// cannot join the process's lock space, and a space of its own would silently let two threads
// hold the same lock.
function inDenoWebWorker() {
  return process.versions.deno !== undefined && typeof WorkerGlobalScope === 'function' && globalThis instanceof WorkerGlobalScope;
}

function lockSpaceUnreachable() {
  /** @type {Error & { code?: string }} */
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
    /** @type {any} */
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
