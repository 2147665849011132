// The suite's runner on node:test: one describe per host, measurements printed as diagnostics.
import { describe, test, after } from 'node:test';
import { defineLockSuite } from '../suite/index.js';

/** Registers the behavioural suite for a host created by `createHost()` (awaited before the cases run). */
export function runSuite(host, { timeout = 60_000 } = {}) {
  describe(host.name, { concurrency: 1 }, () => {
    defineLockSuite({
      test: (name, fn) => test(name, { timeout }, fn),
      note: (message) => console.log(`# ${message}`),
    }, host);
    if (host.dispose) after(() => host.dispose());
  });
}
