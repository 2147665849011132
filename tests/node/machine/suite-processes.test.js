// The behavioural suite (tests/node/suite) across processes: every context but the suite's own is
// another Node process in the same machine lock space. The "ends by terminate" cases SIGKILL the
// holder's process; their notes give the time from the kill to the waiter's grant.
import { after } from 'node:test';
import { AsyncLocalStorage } from 'node:async_hooks';
import { runSuite } from '../api/node-runner.js';
import { createProcessHost } from './process-host.js';
import { freshSpace } from './support.js';

const storage = new AsyncLocalStorage();
const host = createProcessHost(freshSpace({ after }));
host.webidl = false; // the argument cases run once on this Node, in tests/node/api/suite-in-context.test.js
host.asyncContext = { run: (value, fn) => storage.run(value, fn), get: () => storage.getStore() };
runSuite(host, { timeout: 60_000 });
