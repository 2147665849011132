// `node --import weblocks-wasm/register`: Node runs --import preloads in every worker thread but
// eval workers (`new Worker(code, { eval: true })`; measured on Node 20.20 and 24.11), which would
// keep no navigator.locks (Node 20) or Node's own, a second lock space (Node 24), silently. It runs
// --require preloads there, so the register preload gives each eval worker this package's
// --require entry (js/cjs/register.cjs) in its execArgv. worker_threads.Worker is replaced by a
// subclass for that (named imports included: the preload runs before the application's modules).
// Only on Node: Bun and Deno run no preload in any worker (there each thread imports the package).
import workerThreads from 'node:worker_threads';
// (The default export: Deno 2.6's node:module has no named syncBuiltinESMExports.)
import nodeModule from 'node:module';
import { fileURLToPath } from 'node:url';

const REQUIRE_ENTRY = fileURLToPath(new URL('../cjs/register.cjs', import.meta.url));
const MARK = Symbol.for('weblocks-wasm/eval-worker-preload');

export function preloadInEvalWorkers() {
  if (process.versions.bun !== undefined || process.versions.deno !== undefined) return;
  const Base = workerThreads.Worker;
  if (Base[MARK] === true) return;
  class Worker extends Base {
    constructor(filename, options) {
      if (options?.eval !== true) {
        super(filename, options);
        return;
      }
      const execArgv = options.execArgv ?? process.execArgv;
      try {
        super(filename, { ...options, execArgv: [...execArgv, '--require', REQUIRE_ENTRY] });
      } catch (error) {
        // An option of this process that a worker does not take (a V8 flag) when it is given
        // explicitly: the worker starts as asked, without the preload, and says so.
        if (error?.code !== 'ERR_WORKER_INVALID_EXEC_ARGV' || options.execArgv !== undefined) throw error;
        super(filename, options);
        process.emitWarning('weblocks-wasm: an eval worker could not be given the register preload (this process\'s options '
          + `${JSON.stringify(process.execArgv)} are not all valid for a worker), so it has no navigator.locks of this package. `
          + 'Start Node with --require weblocks-wasm/register instead of --import, or import weblocks-wasm/polyfill in the worker\'s code.',
        { code: 'WEBLOCKS_EVAL_WORKER_UNCOVERED' });
      }
    }
  }
  Object.defineProperty(Worker, MARK, { value: true });
  Object.defineProperty(Worker, 'name', { value: 'Worker' });
  workerThreads.Worker = Worker;
  nodeModule.syncBuiltinESMExports?.();
}
