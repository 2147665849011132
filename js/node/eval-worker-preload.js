// Workers that would not get this package: Node runs --import preloads in every worker thread
// but eval workers (`new Worker(code, { eval: true })`; measured on Node 20.20 and 24.11), and a
// thread where the package replaced a built-in navigator.locks (install(), js/node/install.js)
// may create workers that load nothing, which keep the built-in: a second lock space (Node 24 and
// 26), silently. So such workers get this package's register entry in their execArgv: eval workers,
// where Node runs only --require preloads, its --require entry (js/cjs/register.cjs), under
// `register` (preloadInWorkers()); every other worker, after a built-in was replaced or with
// install({ force: true }), its --import entry (preloadInWorkers({ every: true })).
// worker_threads.Worker is replaced by a subclass for that (named imports included, through
// syncBuiltinESMExports: the preload, or install(), runs before the code that creates workers).
// Only on Node: Bun and Deno run no preload in any worker (there each thread imports the package).
import workerThreads from 'node:worker_threads';
// (The default export: Deno 2.6's node:module has no named syncBuiltinESMExports.)
import nodeModule from 'node:module';
import { fileURLToPath } from 'node:url';

const REQUIRE_ENTRY = fileURLToPath(new URL('../cjs/register.cjs', import.meta.url));
// Other workers run --import preloads: the ES module entry, which, unlike require(esm), works
// under a user's asynchronous loader hooks (module.register; measured: require(esm) fails there
// with ERR_METHOD_NOT_IMPLEMENTED on Node 24.11).
const IMPORT_ENTRY = new URL('./register.js', import.meta.url).href;
const MARK = Symbol.for('weblocks-wasm/eval-worker-preload');
let warnedUncovered = false;

export function preloadInWorkers({ every = false } = {}) {
  if (process.versions.bun !== undefined || process.versions.deno !== undefined) return;
  const current = workerThreads.Worker;
  if (current[MARK] !== undefined) {
    // Installed already in this thread (by another copy too): only widen what it covers.
    if (every) current[MARK].every = true;
    return;
  }
  const covers = { every };
  const Base = current;
  class Worker extends Base {
    constructor(filename, options) {
      const execArgv = options?.execArgv ?? process.execArgv;
      const isEval = options?.eval === true;
      const entry = isEval ? REQUIRE_ENTRY : IMPORT_ENTRY;
      if ((!isEval && !covers.every) || execArgv.includes(entry)) {
        super(filename, options);
        return;
      }
      const withEntry = (args) => ({ ...options, execArgv: [...args, isEval ? '--require' : '--import', entry] });
      let invalid = null;
      try {
        super(filename, withEntry(execArgv));
        return;
      } catch (error) {
        // An option of this process that a worker does not take (a V8 flag such as
        // --max-old-space-size=N), refused once execArgv is given explicitly. Node names them
        // ("Initiated Worker with invalid execArgv flags: --a, --b"): without them, which a worker
        // inheriting this process's options would not get either, the worker is started again.
        if (error?.code !== 'ERR_WORKER_INVALID_EXEC_ARGV' || options?.execArgv !== undefined) throw error;
        invalid = new Set(String(error.message).split(': ').slice(1).join(': ').split(', '));
      }
      const valid = execArgv.filter((arg) => !invalid.has(arg));
      if (valid.length < execArgv.length) {
        try {
          super(filename, withEntry(valid));
          return;
        } catch (error) {
          if (error?.code !== 'ERR_WORKER_INVALID_EXEC_ARGV') throw error;
        }
      }
      // Still refused: the worker starts as asked, without the package, and that is said once.
      super(filename, options);
      if (!warnedUncovered) {
        warnedUncovered = true;
        process.emitWarning('weblocks-wasm: a worker could not be given this package\'s preload (this process\'s options '
          + `${JSON.stringify(process.execArgv)} are not all valid for a worker), so it has no navigator.locks of this package. `
          + 'Start Node with --require weblocks-wasm/register instead of --import, or import weblocks-wasm/polyfill in the worker\'s code.',
        { code: 'WEBLOCKS_EVAL_WORKER_UNCOVERED' });
      }
    }
  }
  Object.defineProperty(Worker, MARK, { value: covers });
  Object.defineProperty(Worker, 'name', { value: 'Worker' });
  workerThreads.Worker = Worker;
  nodeModule.syncBuiltinESMExports?.();
}
