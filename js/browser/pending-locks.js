// navigator.locks while the rest of the polyfill loads (loader.js): every call is kept, in the
// order made, and handed to the real LockManager (js/api/lock-manager.js) as soon as it exists, so
// a request made in the page's first line keeps its place and query() answers truly. The real one
// validates the arguments then (its TypeErrors reject the promise as they would have). Calls made
// after it exists go straight to it, so a reference to this object kept by app code keeps working.
// Where the rest cannot be loaded, every call, kept or new, rejects with the loader's error.
// Written for size (the loader's budget is 1 KB gzip): no ?? or ?. (the bundle's target lowers them).

/** [locks, serve(real), fail(error)]. */
export function pendingLocks() {
  let real = null;
  let failure = null;
  const kept = [];
  const keep = (method, args, signal) => (failure ? Promise.reject(failure) : new Promise((resolve, reject) => {
    const call = [method, args, resolve, reject];
    kept.push(call);
    // Aborted while kept: rejected at once with the signal's reason, as a queued request is (one
    // aborted already is left to the real request(), which rejects it in the spec's order).
    if (signal && !signal.aborted && signal.addEventListener) {
      signal.addEventListener('abort', () => {
        const at = kept.indexOf(call);
        if (at < 0) return;
        kept.splice(at, 1);
        reject(signal.reason);
      }, { once: true });
    }
  }));
  class LockManager {
    request(name, options) {
      if (real) return real.request(...arguments);
      const args = [...arguments];
      if (args.length > 2 && Object(options) === options) {
        // WebIDL reads the LockOptions dictionary once, at the call: so does this (a getter or a
        // later change to the object is not read again).
        try {
          const { ifAvailable, mode, signal, steal } = options;
          args[1] = { ifAvailable, mode, signal, steal };
        } catch (error) {
          return Promise.reject(error);
        }
      }
      return keep('request', args, args.length > 2 && args[1] && args[1].signal);
    }

    query() {
      return real ? real.query() : keep('query', []);
    }
  }
  const serve = (manager) => {
    if (!manager) throw new TypeError('it loaded but installed nothing (a file of another version?)');
    real = manager;
    for (const [method, args, resolve, reject] of kept.splice(0)) {
      try { resolve(real[method](...args)); } catch (error) { reject(error); }
    }
  };
  const fail = (error) => {
    failure = error;
    for (const call of kept.splice(0)) call[3](error);
  };
  return [new LockManager(), serve, fail];
}
