// navigator.locks while the rest of the polyfill loads (loader.js): every call waits for the real
// LockManager (js/api/lock-manager.js) and is handed to it, in the order made, as soon as it exists
// (promise reactions run in the order they were registered), so a request made in the page's first
// line keeps its place and query() answers truly. The real one reads and validates the arguments
// then: its TypeErrors reject the promise as they would have, and a signal aborted meanwhile
// rejects it with the signal's reason (spec: the request is then never enqueued; here that is seen
// when the rest has loaded, or the load has failed). Calls made after it exists go straight to it,
// so a reference to this object kept by app code keeps working. Where the rest cannot be loaded,
// every call, kept or new, rejects with the loader's error (`ready`'s rejection).
// Written for size (the loader's budget is 1 KB gzip): a plain object, its two methods made alike.

/**
 * The pending LockManager, served by `ready` (the real LockManager, or the loader's error).
 * @param {Promise<any>} ready
 */
export function pendingLocks(ready) {
  let real;
  // Registered first: `real` is set before any kept call is handed over.
  ready.then((manager) => { real = manager; }, () => {});
  const method = (name) => function () {
    const args = arguments;
    return real ? real[name](...args) : ready.then((manager) => manager[name](...args));
  };
  return { request: method('request'), query: method('query') };
}
