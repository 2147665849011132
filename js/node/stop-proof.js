// Deno (2.9 on): proof that a worker thread's JavaScript can no longer run, from Deno's own lock
// manager, which is shared by every thread of the process and frees a thread's locks only once
// that thread has stopped. Deno reports a terminated Worker ended ('exit', terminate() resolved)
// while it may still run, and its kernel thread may stay listed for as long as the process runs
// (measured on 2.9.6), so neither is proof (thread-watch.js).
//
// While a thread has anything in the lock space (a lock held, a request queued) it holds one of
// two marks in Deno's lock manager, named after its threadId. A closer that saw the thread's
// 'exit' takes both marks: once it holds both, the thread holds neither, so it is stopped (Deno
// freed its mark) or it has nothing in the lock space; either way its clients can be closed.
// Two marks, not one: a mark is released a turn after the thread goes idle, asynchronously (the
// callback's promise settles), so the next request takes the other one, which is always free
// then, synchronously (Deno registers a request at once and runs the callback of one it can grant
// inside request()). A thread whose mark is not granted at once finds a closer holding it: it was
// reported ended, and its requests are refused from then on.
//
// Measured on Deno 2.9.6 (tests/runtimes/terminate-*.mjs): with a mark held, terminate() stops a
// worker busy in synchronous code (without one it ran on for as long as we watched), and the
// closer's grant came 0.3-0.7 ms after terminate() resolved.
import { setTimeout, clearTimeout } from 'node:timers';
import { locksWithoutUs } from '../api/navigator-locks.js';

const STATE = Symbol.for('weblocks-wasm/running-mark@1');
// Idle this long before the mark goes, so that a thread making one request after another does
// not take and free a mark each time.
const IDLE_RELEASE_MS = 50;
// Every thread of the process shares Deno's lock manager: the names carry the process's pid (two
// copies of the package in one thread share the state on the manager object).
const markName = (threadId, which) => `weblocks-wasm/thread-running@1/${process.pid}/${threadId}/${which}`;

/**
 * Deno's own LockManager in this thread and its original request(), where it proves stops (Deno
 * 2.9 on, whose locks are process-wide); else null. Read without any getter of this package, once
 * per thread, when the first copy of the package loads (the polyfill then removes it from
 * navigator): kept on the navigator under a registry symbol for later copies.
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
const RUNTIME = Symbol.for('weblocks-wasm/runtime-lock-manager@1');
// Before install() can replace it (install.js imports this module through thread-host.js).
runtimeLockManager();

/**
 * The gate a worker thread's backends pass before each engine request: `enter(backend)` holds a
 * mark (false: a closer holds it, the thread was reported ended); `leave(backend)` once the
 * backend has nothing in the lock space. Null where there is no proof to give (no Deno lock
 * manager, or the main thread, whose end is the process's).
 */
export function runningMarkOf(threadId, runtime = runtimeLockManager()) {
  if (runtime === null || threadId === 0) return null;
  const { manager } = runtime;
  if (manager[STATE] === undefined) {
    Object.defineProperty(manager, STATE, { value: newMark(threadId, runtime) });
  }
  return manager[STATE];
}

function newMark(threadId, { manager, request }) {
  const marks = ['a', 'b'].map((which) => ({ name: markName(threadId, which), state: 'free', release: null }));
  const busy = new Set();
  let current = null;
  let timer = null;
  let revoked = false;

  function take(mark) {
    let inCall = true;
    let granted = false;
    const settled = request.call(manager, mark.name, () => {
      if (!inCall) return undefined; // granted after a closer let it go: not ours any more
      granted = true;
      return new Promise((resolve) => { mark.release = resolve; });
    });
    inCall = false;
    // (A terminated thread's pending promise rejects: nothing to report.)
    settled.then(() => { mark.state = 'free'; }, () => { mark.state = 'free'; });
    if (granted) mark.state = 'held';
    else mark.state = 'releasing'; // queued behind a closer: it goes when the closer lets it go
    return granted;
  }

  function releaseIdle() {
    timer = null;
    if (busy.size > 0 || current === null) return;
    current.state = 'releasing';
    current.release();
    current.release = null;
    current = null;
  }

  return {
    enter(backend) {
      if (revoked) return false;
      busy.add(backend);
      if (timer !== null) {
        clearTimeout(timer);
        timer = null;
      }
      if (current !== null) return true;
      const free = marks.find((mark) => mark.state === 'free');
      if (free !== undefined && take(free)) {
        current = free;
        return true;
      }
      // Both marks taken by a closer (or, never seen, both still being released).
      revoked = true;
      busy.delete(backend);
      return false;
    },
    leave(backend) {
      if (!busy.delete(backend) || busy.size > 0 || current === null || timer !== null) return;
      timer = setTimeout(releaseIdle, IDLE_RELEASE_MS);
      timer.unref?.();
    },
  };
}

/**
 * Resolves, with a function that lets them go, once this thread holds both marks of `threadId`:
 * that thread has stopped, or has nothing in the lock space. Null where Deno gives no such proof.
 */
export function proveStopped(threadId, runtime = runtimeLockManager()) {
  if (runtime === null) return null;
  const { manager, request } = runtime;
  const releases = [];
  const held = ['a', 'b'].map((which) => new Promise((resolve) => {
    request.call(manager, markName(threadId, which), () => new Promise((release) => {
      releases.push(release);
      resolve();
    })).catch(() => {});
  }));
  return Promise.all(held).then(() => () => { for (const release of releases) release(); });
}
