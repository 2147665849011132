// Where the runtime exposes its built-in lock manager under another name than navigator.locks,
// replacing navigator.locks alone would leave a second lock space in the same thread: Node 24 and
// 26 and Deno 2.9 have `worker_threads.locks`, natively the same object as navigator.locks, and
// code may also keep a reference to the built-in taken before the package loaded (a named import
// that Deno does not update, an earlier `require('node:worker_threads').locks`). So when the
// package replaces the built-in, `worker_threads.locks` becomes the package's LockManager (named
// ESM imports too, where the runtime can update them), and the built-in object's own methods serve
// the package's lock space, so that any reference to it does as well. What cannot be done is said
// once, naming both.
import workerThreads from 'node:worker_threads';
// (The default export: Deno 2.6's node:module has no named syncBuiltinESMExports.)
import nodeModule from 'node:module';

const METHODS = ['request', 'query'];

/** Makes every other name of the built-in `builtin` serve `locks` (this thread's LockManager). */
export function aliasBuiltinLocks(builtin, locks) {
  const left = [];
  if (Object.prototype.hasOwnProperty.call(workerThreads, 'locks') && workerThreads.locks !== locks) {
    try {
      workerThreads.locks = locks;
      nodeModule.syncBuiltinESMExports?.();
    } catch {
      // (Deno 2.6: syncBuiltinESMExports is not implemented; nothing to update there.)
    }
    if (workerThreads.locks !== locks) left.push("require('node:worker_threads').locks");
  }
  if (builtin !== null && typeof builtin === 'object') {
    for (const method of METHODS) {
      const serve = { [method](...args) { return locks[method](...args); } }[method];
      try {
        Object.defineProperty(builtin, method, { value: serve, writable: true, configurable: true, enumerable: false });
      } catch {
        left.push(`the built-in LockManager's ${method}()`);
      }
    }
  }
  if (left.length > 0) {
    process.emitWarning(`weblocks-wasm: replaced navigator.locks, but ${left.join(' and ')} could not be made to serve the same lock space: `
      + 'do not use it beside navigator.locks, or a lock taken through one is not excluded by the other.', { code: 'WEBLOCKS_BUILTIN_ALIAS_LEFT' });
  }
}
