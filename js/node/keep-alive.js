// What keeps a thread's event loop going on behalf of its locks: alive while a request is queued
// (a pending Atomics.waitAsync does not keep a thread alive; a ref'd interval does, cheaply), and,
// on Deno before 2.7.6, turning while the thread waits on its doorbell at all: there an
// Atomics.waitAsync callback does not run while the event loop has nothing but a long interval,
// so a grant made by another thread would never reach an idle thread (measured: Deno 2.4.0-2.7.5
// never, 2.7.6 on at once); a short interval makes it run. A timer is created and cleared rather
// than ref'd and unref'd, so a timer without ref()/unref() (a number) keeps no thread alive either.
// Node's own timers: a DOM test environment may replace the global ones.
import { setInterval, clearInterval } from 'node:timers';
import { getEnvironmentData, setEnvironmentData, threadId } from 'node:worker_threads';

const noop = () => {};
const IDLE_MS = 0x7fffffff;

/** The tick Deno versions with the waitAsync defect need (ms), or null. */
export function waitAsyncTickMs(versions = process.versions) {
  if (versions.deno === undefined) return null;
  const [major, minor, patch] = String(versions.deno).split('.').map(Number);
  const fixed = major > 2 || (major === 2 && (minor > 7 || (minor === 7 && patch >= 6)));
  return fixed ? null : DENO_TICK_MS;
}
// Bounds how late a grant reaches an idle thread on those Deno versions.
const DENO_TICK_MS = 4;

// Thread-wide (every copy of the package's modules in this thread, as a test runner makes one per
// test file, reads it): the threadId whose pending requests do not keep it alive.
const NOT_KEPT_KEY = 'weblocks-wasm/pending-does-not-keep-alive@1';

/**
 * Whether a pending request keeps this thread alive (by default it does). A test runner's thread
 * sets false: the runner decides when it ends, and a test that left a request pending must not
 * keep it from exiting. Workers created afterwards keep the default.
 */
export function setPendingKeepsAlive(keeps) {
  setEnvironmentData(NOT_KEPT_KEY, keeps ? undefined : threadId);
}

function pendingKeepsAlive() {
  return getEnvironmentData(NOT_KEPT_KEY) !== threadId;
}

export class ThreadKeepAlive {
  constructor({ tickMs = waitAsyncTickMs() } = {}) {
    this.tickMs = tickMs;
    this.timer = null;
    this.state = 'none'; // 'none' | 'ticking' (waits, keeps nothing alive) | 'alive'
  }

  /** alive: a request is queued; waiting: the thread waits on its doorbell (requests or locks). */
  update({ alive, waiting }) {
    const state = alive && pendingKeepsAlive() ? 'alive' : (waiting && this.tickMs !== null ? 'ticking' : 'none');
    if (state === this.state) return;
    this.state = state;
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    if (state === 'none') return;
    this.timer = setInterval(noop, this.tickMs ?? IDLE_MS);
    if (state === 'ticking') this.timer.unref?.();
  }

  stop() {
    this.update({ alive: false, waiting: false });
  }
}
