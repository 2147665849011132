// observeLocks whose client (observe-locks.js's observeSource: filtering, gap filling, possible
// deadlocks) is loaded on the first call, so that the pages that never observe do not download it.
// The call itself stays as the spec-derived API wants it: its arguments are checked at once
// (TypeError), it starts observing the lock space at once, and it returns the function that stops;
// what the lock space says before the client has loaded is kept and handed to it, in order.
import { toObserveArguments } from './observe-shared.js';

/**
 * observeLocks(callback, options) on the lock space of `backend` (its observeSource()), with
 * `loadClient()` -> Promise<observeSource> called once, on the first call. A client that cannot
 * be loaded is reported (globalThis.reportError) with what to do, for every call that needed it.
 */
export function createLazyObserveLocks(backend, loadClient) {
  let loading = null;
  return function observeLocks(callback, options) {
    const { signal } = toObserveArguments(callback, options);
    if (signal?.aborted) return () => {};
    if (loading === null) loading = new Promise((resolve) => { resolve(loadClient()); }); // now: a worker's importScripts() may be allowed only now
    const early = bufferedSource(backend.observeSource());
    let stopped = false;
    let stopClient = null;
    const stop = () => {
      if (stopped) return;
      stopped = true;
      signal?.removeEventListener('abort', stop);
      if (stopClient !== null) stopClient();
      else early.stop();
    };
    signal?.addEventListener('abort', stop, { once: true });
    loading.then((observeSource) => {
      if (stopped) return;
      stopClient = observeSource(early, callback, options);
      if (stopped) stopClient(); // stopped by the callback while the client was told what was kept
    }, (error) => {
      if (stopped) return;
      stop();
      reportError(error);
    });
    return stop;
  };
}

// A source already observed: it keeps what it is told until a sink observes it, then replays it.
function bufferedSource(source) {
  const told = [];
  let sink = null;
  let stopped = false;
  const stopSource = source.observe({
    start: (snapshot) => (sink === null ? told.push(['start', [snapshot]]) : sink.start(snapshot)),
    changes: (records, snapshot) => (sink === null ? told.push(['changes', [records, snapshot]]) : sink.changes(records, snapshot)),
  });
  return {
    stop() {
      stopped = true;
      stopSource();
    },
    observe(client) {
      sink = client;
      for (const [method, args] of told.splice(0)) {
        if (stopped) break;
        client[method](...args);
      }
      return this.stop;
    },
  };
}

function reportError(error) {
  if (typeof globalThis.reportError === 'function') globalThis.reportError(error);
  else Promise.reject(error); // an unhandled rejection: the host's usual report
}
