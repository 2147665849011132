// navigator.locks while the rest of the polyfill loads (loader.js): every call is kept, in the
// order made, and handed to the real LockManager (js/api/lock-manager.js) as soon as it exists, so
// a request made in the page's first line keeps its place and query() answers truly. The real one
// reads and validates the arguments then: its TypeErrors reject the promise as they would have,
// and a signal aborted meanwhile rejects it with the signal's reason (spec: the request is then
// never enqueued; here that is seen when the rest has loaded, or the load has failed). Calls made
// after it exists go straight to it, so a reference to this object kept by app code keeps working.
// Where the rest cannot be loaded, every call, kept or new, rejects with the loader's error.
// Written for size (the loader's budget is 1 KB gzip).

/**
 * [locks, serve(real LockManager), fail(error)].
 * @returns {[any, (manager: any) => void, (error: any) => void]}
 */
export function pendingLocks() {
  let real;
  let failure;
  const kept = [];
  const keep = (method, args) => (failure ? Promise.reject(failure) : new Promise((resolve, reject) => kept.push([method, args, resolve, reject])));
  class LockManager {
    request() {
      return real ? real.request(...arguments) : keep('request', arguments);
    }

    query() {
      return real ? real.query() : keep('query', []);
    }
  }
  return [new LockManager(), (manager) => {
    real = manager;
    for (const [method, args, resolve, reject] of kept.splice(0)) {
      try { resolve(real[method](...args)); } catch (error) { reject(error); }
    }
  }, (error) => {
    failure = error;
    for (const call of kept.splice(0)) call[3](error);
  }];
}
