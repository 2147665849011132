// The process-wide lock space: one shared engine memory for every thread of the process.
// The first thread that loads the package creates it and publishes it with
// worker_threads.setEnvironmentData, which every Worker created afterwards inherits (nested ones
// too); each thread then attaches its own wasm instance (own stack) to that memory.
import { getEnvironmentData, setEnvironmentData } from 'node:worker_threads';
import { compileEngine, createEngineMemory, attachEngine } from '../engine/index.js';

const SPACE_KEY = 'weblocks-wasm/lock-space@1';

import { THREAD_TABLE_BYTES } from './thread-watch.js';

/**
 * The lock space of this process, created synchronously if this thread is the first: shared
 * memory and the thread table are published at once, so a Worker created right after the import
 * already joins it. Returns null where shared memory is unavailable.
 */
export function findOrCreateLockSpace() {
  const existing = getEnvironmentData(SPACE_KEY);
  if (existing !== undefined) return existing;
  let memory;
  try {
    memory = createEngineMemory({ shared: true });
  } catch {
    return null;
  }
  if (typeof SharedArrayBuffer === 'undefined' || !(memory.buffer instanceof SharedArrayBuffer)) return null;
  // threads: the thread table of thread-watch.js (who created whom, who is inside the engine).
  const space = { memory, threads: new SharedArrayBuffer(THREAD_TABLE_BYTES), module: null };
  setEnvironmentData(SPACE_KEY, space);
  return space;
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
  return attachEngine({ module, memory: space.memory });
}
