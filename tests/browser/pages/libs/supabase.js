// @supabase/auth-js's navigatorLock(name, acquireTimeout, fn), as published (bundled from
// node_modules by scripts/build-test-libs.mjs), driven by libs-supabase.spec.js.
import { navigatorLock, NavigatorLockAcquireTimeoutError } from '/build/libs/supabase-auth-js.js';
import { clock, counter, yieldTask, probeNative } from './common.js';

const holds = new Map();
let nextHold = 0;

function outcome(promise) {
  return promise.then(
    (value) => ({ ok: true, value, at: clock() }),
    (error) => ({
      ok: false,
      name: error && error.name,
      message: error && error.message,
      acquireTimeout: error instanceof NavigatorLockAcquireTimeoutError && error.isAcquireTimeout === true,
      at: clock(),
    }));
}

window.lib = {
  ready: true,
  probeNative,
  /**
   * n critical sections in a row under navigatorLock(name, -1): each reads the shared counter,
   * yields a task, writes it + 1. Returns what each section saw, with its entry and exit times.
   */
  async increments(name, n) {
    const sections = [];
    for (let i = 0; i < n; i += 1) {
      await navigatorLock(name, -1, async () => {
        const enter = clock();
        const read = await counter.read(name);
        await yieldTask();
        await counter.write(name, read + 1);
        sections.push({ read, enter, exit: clock() });
      });
    }
    return sections;
  },
  counter: (name) => counter.read(name),
  /** navigatorLock(name, acquireTimeout, fn) where fn runs until release(id); returns id at once. */
  hold(name, acquireTimeout = -1) {
    const id = ++nextHold;
    const h = {};
    h.started = new Promise((resolve) => { h.onStart = resolve; });
    h.outcome = outcome(navigatorLock(name, acquireTimeout, () => {
      h.onStart(clock());
      return new Promise((resolve) => { h.release = resolve; });
    }));
    holds.set(id, h);
    return id;
  },
  /** When hold(id)'s fn started running (it holds the lock from then). */
  started: (id) => holds.get(id).started,
  release(id, value = 'released') { const at = clock(); holds.get(id).release(value); return at; },
  outcome: (id) => holds.get(id).outcome,
  /** navigatorLock(name, 0, fn): fn runs only if the lock is free right now. */
  async tryNow(name) {
    let ran = false;
    const startedAt = clock();
    const result = await outcome(navigatorLock(name, 0, async () => { ran = true; return 'ran'; }));
    return { ...result, ran, tookMs: result.at - startedAt };
  },
};
