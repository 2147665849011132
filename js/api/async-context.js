// The callback of request() runs in the async context in which request() was called
// (its registration context: seeds/001, "LockManager.request()").
//
// Two mechanisms, neither a host API:
// - Where a global AsyncContext exists (the TC39 proposal, or a polyfill of it), an
//   AsyncContext.Snapshot taken in request() is restored around the callback.
// - Everywhere, the LockManager invokes the callback from a promise reaction registered inside
//   request(): engines that propagate context through promise reactions (Node's
//   AsyncLocalStorage, native AsyncContext) then restore request()'s context by themselves.

/** Returns a function that runs fn(arg) in the current AsyncContext snapshot (or as is). */
export function captureAsyncContext() {
  const AC = globalThis.AsyncContext;
  if (AC === undefined || typeof AC.Snapshot !== 'function') return runDirectly;
  const snapshot = new AC.Snapshot();
  return (fn, arg) => snapshot.run(fn, arg);
}

function runDirectly(fn, arg) {
  return fn(arg);
}
