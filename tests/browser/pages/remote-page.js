// window.remote: a page's remote LockManager (weblocks-wasm/remote), driven by remote.spec.js.
// Requests are kept by id; each callback holds its lock until the spec releases it.
import { createLockManager, lockHeaders } from '/js/remote/index.js';

let locks = null;
let next = 0;
const requests = new Map();
const changes = [];

const outcome = (promise) => promise.then((value) => ({ ok: true, value }), (error) => ({ ok: false, name: error.name, message: error.message }));

window.remote = {
  connect(url) {
    locks = createLockManager({ url });
    return true;
  },
  request(name, options = {}) {
    const id = ++next;
    const entry = { state: 'pending', release: null };
    entry.granted = new Promise((resolve) => { entry.grant = resolve; });
    entry.done = outcome(locks.request(name, options, (lock) => {
      entry.state = lock === null ? 'not-available' : 'held';
      entry.grant(lock === null ? null : { name: lock.name, mode: lock.mode, fencingToken: lock.fencingToken, headers: lockHeaders(lock) });
      if (lock === null) return 'no-lock';
      return new Promise((resolve) => { entry.release = resolve; });
    }));
    entry.done.then(() => { entry.state = 'settled'; });
    requests.set(id, entry);
    return id;
  },
  granted: (id) => requests.get(id).granted,
  release(id, value) {
    requests.get(id).release(value);
    return true;
  },
  settled: (id) => requests.get(id).done,
  state: (id) => requests.get(id).state,
  query: () => locks.query(),
  /** n exclusive sections on `name`, each entering and leaving through the app's fenced endpoints. */
  async loop(name, n) {
    for (let i = 0; i < n; i++) {
      await locks.request(name, async (lock) => {
        const headers = lockHeaders(lock);
        const enter = await fetch('/app/enter', { method: 'POST', headers });
        if (!enter.ok) throw new Error(`enter: ${enter.status}`);
        await new Promise((resolve) => setTimeout(resolve, 0));
        const leave = await fetch('/app/leave', { method: 'POST', headers });
        if (!leave.ok) throw new Error(`leave: ${leave.status}`);
      });
    }
    return n;
  },
  observe() {
    locks.observeLocks((snapshot, list) => changes.push(...list));
    return true;
  },
  observed: () => changes,
};
