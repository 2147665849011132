// The behavioural suite on the Node host: the main thread and worker threads share one engine.
import { AsyncLocalStorage } from 'node:async_hooks';
import { createNodeThreadsHost } from '../suite/hosts/node-threads.js';
import { runSuite } from './node-runner.js';

const storage = new AsyncLocalStorage();
// webidl: false: the argument cases run once on this Node, in suite-in-context.test.js.
runSuite(createNodeThreadsHost({
  webidl: false,
  asyncContext: { run: (value, fn) => storage.run(value, fn), get: () => storage.getStore() },
}), { timeout: 120_000 });
