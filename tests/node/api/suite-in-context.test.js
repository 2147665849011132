// The behavioural suite on the in-context engine (one agent, several engine clients).
import { AsyncLocalStorage } from 'node:async_hooks';
import { createInContextHost } from '../suite/hosts/in-context.js';
import { runSuite } from './node-runner.js';

const storage = new AsyncLocalStorage();
const host = await createInContextHost({
  asyncContext: { run: (value, fn) => storage.run(value, fn), get: () => storage.getStore() },
});
runSuite(host);
