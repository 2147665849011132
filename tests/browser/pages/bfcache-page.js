// Drives one case of bfcache.spec.js in a window: who holds or waits for a lock (this window, its
// dedicated worker, its shared worker), and whether this document came back from the back/forward
// cache (the same `id`, `pageshow` persisted) or was loaded again (a new id).
(function (scope) {
  const id = Math.random().toString(36).slice(2);
  const lifecycle = [];
  scope.addEventListener('pagehide', (e) => lifecycle.push(`pagehide persisted=${e.persisted}`));
  scope.addEventListener('pageshow', (e) => lifecycle.push(`pageshow persisted=${e.persisted}`));
  const releases = new Map(); // name -> release() of this window's held lock
  const outcomes = new Map(); // name -> the request's outcome, once settled
  const settled = new Map();  // name -> resolve() of release(name)'s promise
  let worker = null;          // { post(message) -> Promise<reply> }
  let nextCall = 0;

  function hold(name, options = {}) {
    return new Promise((granted) => {
      navigator.locks.request(name, options, () => {
        granted(true);
        return new Promise((release) => releases.set(name, release));
      }).then(() => outcomes.set(name, 'ok'), (error) => outcomes.set(name, error.name)).then(() => settled.get(name)?.());
    });
  }

  /** Messages to a worker, each answered once (bfcache-worker.js). */
  function channel(port) {
    const calls = new Map();
    port.onmessage = (event) => { calls.get(event.data.call)?.(event.data); calls.delete(event.data.call); };
    return { post: (message) => new Promise((resolve) => { const call = ++nextCall; calls.set(call, resolve); port.postMessage({ ...message, call }); }) };
  }

  scope.bf = {
    id,
    lifecycle: () => lifecycle.slice(),
    /** Whether navigator.locks is the browser's own (not the polyfill's). */
    native: () => navigator.locks !== scope[Symbol.for('weblocks-wasm.installed')],
    /** This window holds `name` until release(name); resolves once granted. */
    hold: (name) => hold(name),
    /** This window asks for `name` (another context holds it): resolves once the request is made. */
    wait: (name) => { hold(name); return true; },
    /** Releases `name`; resolves once its request's promise has settled (the release is done). */
    release: (name) => new Promise((resolve) => { settled.set(name, resolve); releases.get(name)(); releases.delete(name); }),
    outcome: (name) => outcomes.get(name) ?? null,
    query: () => navigator.locks.query(),
    /** Starts this window's worker: 'dedicated' or 'shared' (bfcache-worker.js); resolves once it answers. */
    async spawn(kind) {
      const url = './bfcache-worker.js';
      worker = kind === 'shared' ? channel(new SharedWorker(url, `bfcache-${id}`).port) : channel(new Worker(url));
      await worker.post({ op: 'ping' });
      return true;
    },
    /**
     * Resolves once the polyfill counts nothing of this page or of its workers as held or waited
     * for (a worker tells its creator by a message of its own, which may come after the worker's
     * answer), and no held marker of this origin is left (at once where the browser's own locks serve).
     */
    quiet: () => new Promise((resolve) => {
      const check = async () => {
        const outstanding = scope[Symbol.for('weblocks-wasm.backend')]?.outstanding;
        // A held marker (js/browser/held-marker.js: a first lock taken before the context's
        // sentinel answered) is deleted as the lock goes: an IndexedDB request still in flight
        // when the page leaves keeps Firefox from caching it (1 run in about 8 before this wait).
        const names = (await scope.indexedDB?.databases?.())?.map((database) => database.name) ?? [];
        if ((!outstanding || outstanding.sources.size === 0) && !names.some((name) => name.startsWith('weblocks-held:'))) resolve(true);
        else setTimeout(check, 5);
      };
      check();
    }),
    /** The worker holds, releases, or waits for `name`. */
    inWorker: (op, name) => worker.post({ op, name }).then((reply) => reply.value),
  };
})(self);
