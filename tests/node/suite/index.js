// The behavioural suite of the Web Locks API, derived from the spec, parameterized by host.
// Plain ESM (no Node APIs): node:test and the browser register it through a tiny runner.
// See docs/api.md, "The behavioural suite".
import { defineWebIdlCases } from './cases/webidl.js';
import { defineSchedulingCases } from './cases/scheduling.js';
import { defineContextCases } from './cases/contexts.js';
import { defineStressCase } from './cases/stress.js';
import { defineObserveCases } from './cases/observe.js';

/**
 * Registers every case that applies to `host` with `runner.test(name, fn)`.
 * @param runner { test(name, fn), note?(message) }
 * @param host   { name, locks, openContext(), endings, asyncContext?, startLoneWaiter?, runStress?,
 *                 observeLocks?, deadlockDetection? }
 */
export function defineLockSuite(runner, host) {
  defineWebIdlCases(runner, host);
  defineSchedulingCases(runner, host);
  defineContextCases(runner, host);
  defineObserveCases(runner, host);
  defineStressCase(runner, host);
}

export { requestHandle, uniqueName } from './handle.js';
export { runStressContext, checkStressLogs, STRESS_WORDS } from './stress.js';
