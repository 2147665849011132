// The callback runs in request()'s AsyncContext snapshot where a global AsyncContext exists
// (seeds/001: LockManager.request() uses its registration context). The runtime has no native
// AsyncContext, so this installs a minimal one whose values do NOT flow through promises by
// themselves: only an explicit Snapshot restore can carry the value into the callback.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createLockManager, createLocalBackend } from '../../../js/api/index.js';

function minimalAsyncContext() {
  let current = new Map();
  class Variable {
    get() { return current.get(this); }
    run(value, fn, ...args) {
      const saved = current;
      current = new Map(saved).set(this, value);
      try { return fn(...args); } finally { current = saved; }
    }
  }
  class Snapshot {
    #mapping = current;
    run(fn, ...args) {
      const saved = current;
      current = this.#mapping;
      try { return fn(...args); } finally { current = saved; }
    }
  }
  return { Variable, Snapshot };
}

test('the callback runs in the AsyncContext snapshot of the request() call', async () => {
  const locks = createLockManager(createLocalBackend());
  globalThis.AsyncContext = minimalAsyncContext();
  try {
    const variable = new globalThis.AsyncContext.Variable();
    let release;
    const holder = locks.request('ctx', () => new Promise((resolve) => { release = resolve; }));
    const seen = variable.run('requester', () => locks.request('ctx', () => variable.get()));
    const seenNull = variable.run('probe', () => locks.request('ctx', { ifAvailable: true }, () => variable.get()));
    assert.equal(await seenNull, 'probe');
    variable.run('releaser', () => release());
    assert.equal(await seen, 'requester');
    await holder;
    assert.equal(variable.get(), undefined, 'the snapshot was restored only around the callback');
  } finally {
    delete globalThis.AsyncContext;
  }
});
