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

// The held lock whose callback is running: a request made in that callback's async context waits
// inside that lock (deadlock detection, docs/api.md). Carried by a global AsyncContext.Variable, or
// Node's AsyncLocalStorage where it is cheap (Node 24 and later: AsyncContextFrame; before, it
// turns on promise hooks for every promise of the process, tripling the cost of a request);
// elsewhere only while the callback runs synchronously (a request made before the callback's
// first await), which is still certain.
const asyncHeld = makeHeldVariable();
const heldVariable = asyncHeld ?? synchronousHeld();

/** Whether a request made after a callback's first await is still known to be inside its lock. */
export const heldContextKnown = asyncHeld !== null;

function synchronousHeld() {
  let current;
  return {
    run(value, fn, arg) {
      const outer = current;
      current = value;
      try {
        return fn(arg);
      } finally {
        current = outer;
      }
    },
    get: () => current,
  };
}

function makeHeldVariable() {
  const AC = globalThis.AsyncContext;
  if (AC !== undefined && typeof AC.Variable === 'function') {
    const variable = new AC.Variable();
    return { run: (value, fn, arg) => variable.run(value, fn, arg), get: () => variable.get() };
  }
  // NODE_ONLY: the browser bundles drop this block (scripts/browser-bundles.mjs, esbuild dropLabels).
  NODE_ONLY: {
    const process = globalThis.process;
    const major = Number(process?.versions?.node?.split('.')[0]);
    const framesOff = (process?.execArgv ?? []).includes('--no-async-context-frame')
      || String(process?.env?.NODE_OPTIONS ?? '').includes('--no-async-context-frame');
    if (!(major >= 24) || framesOff || process?.versions?.bun !== undefined || process?.versions?.deno !== undefined) return null;
    const hooks = process.getBuiltinModule?.('node:async_hooks');
    if (hooks?.AsyncLocalStorage !== undefined) {
      const storage = new hooks.AsyncLocalStorage();
      return { run: (value, fn, arg) => storage.run(value, fn, arg), get: () => storage.getStore() };
    }
  }
  return null;
}

/** Runs fn(arg) with `held` as the held lock of its async context. */
export function runInsideHeld(held, fn, arg) {
  return heldVariable.run(held, fn, arg);
}

/** The held lock (its LockRequest) whose callback's async context this is, or undefined. */
export function currentHeld() {
  return heldVariable.get();
}
