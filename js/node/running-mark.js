// Deno (2.9 on): what makes Worker.terminate() stop a worker that is busy in synchronous code.
//
// Measured on Deno 2.9.6 (tests/runtimes/terminate-cases.mjs and by hand): terminate() of a
// node:worker_threads Worker resolves, and its 'exit' comes, while a worker busy in a loop (a
// lock's callback, a timer's) runs on, for as long as we watched, its thread still in the
// kernel's list; the same worker holding a lock of Deno's own navigator.locks is stopped. So
// while a worker thread has anything in this package's lock space (a lock held, a request
// queued), it holds a lock of its own in Deno's lock manager, the running mark, and lets it go a
// moment after it has nothing (a held Deno lock keeps the thread's event loop alive).
//
// The mark is no proof that the thread has stopped: Deno may free it (and did, once, under load)
// before the worker's JavaScript stops running. A thread reported ended is closed only once the
// kernel no longer lists it (thread-watch.js); the mark only makes that come.
import { setTimeout, clearTimeout } from 'node:timers';
import { locksWithoutUs } from '../api/navigator-locks.js';

const STATE = Symbol.for('weblocks-wasm/running-mark@2');
const RUNTIME = Symbol.for('weblocks-wasm/runtime-lock-manager@1');
// Idle this long before the mark goes, so that a thread making one request after another does
// not take and free it each time.
const IDLE_RELEASE_MS = 50;

/**
 * Deno's own LockManager in this thread and its original request(); else null (not Deno, or a
 * Deno without one). Read without any getter of this package, once per thread, when the first
 * copy of the package loads (the polyfill then removes it from navigator): kept on the navigator
 * under a registry symbol for later copies.
 */
export function runtimeLockManager() {
  if (process.versions.deno === undefined || typeof globalThis.navigator !== 'object' || globalThis.navigator === null) return null;
  const navigator = globalThis.navigator;
  if (!Object.prototype.hasOwnProperty.call(navigator, RUNTIME)) {
    const manager = locksWithoutUs(navigator).value;
    const request = manager === undefined || manager === null ? undefined : Object.getPrototypeOf(manager)?.request;
    Object.defineProperty(navigator, RUNTIME, { value: typeof request === 'function' ? { manager, request } : null });
  }
  return navigator[RUNTIME];
}
// Before install() can replace it (install.js imports this module through thread-host.js).
runtimeLockManager();

/**
 * This worker thread's running mark: `enter(backend)` before a backend's engine request,
 * `leave(backend)` once that backend has nothing in the lock space. Null where there is no Deno
 * lock manager, and in the main thread (its end is the process's). Shared by every copy of the
 * package in the thread (kept on Deno's LockManager object).
 */
export function runningMarkOf(threadId, runtime = runtimeLockManager()) {
  if (runtime === null || threadId === 0) return null;
  const { manager } = runtime;
  if (manager[STATE] === undefined) Object.defineProperty(manager, STATE, { value: newMark(threadId, runtime) });
  return manager[STATE];
}

function newMark(threadId, { manager, request }) {
  const name = `weblocks-wasm/thread-running@2/${process.pid}/${threadId}`;
  const busy = new Set();
  let release = null; // lets the mark go; null while not held or asked for
  let timer = null;

  function take() {
    let letGo;
    const held = new Promise((resolve) => { letGo = resolve; });
    release = letGo;
    // Granted at once (nobody else asks for this name) or once its previous hold is let go.
    // (A terminated thread's pending promise rejects: nothing to report.)
    request.call(manager, name, () => held).catch(() => {});
  }

  function releaseIdle() {
    timer = null;
    if (busy.size > 0 || release === null) return;
    release();
    release = null;
  }

  return {
    enter(backend) {
      busy.add(backend);
      if (timer !== null) {
        clearTimeout(timer);
        timer = null;
      }
      if (release === null) take();
    },
    leave(backend) {
      if (!busy.delete(backend) || busy.size > 0 || release === null || timer !== null) return;
      timer = setTimeout(releaseIdle, IDLE_RELEASE_MS);
      timer.unref?.();
    },
  };
}
