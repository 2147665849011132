// A worker busy in synchronous code while holding a lock keeps it until terminate() has stopped
// it (tests/runtimes/terminate-busy.mjs, also run on Bun and Deno, where terminate() resolves while
// such a worker still runs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { nodeReport } from './node-report.js';

const script = fileURLToPath(new URL('../../runtimes/terminate-busy.mjs', import.meta.url));

test('a terminated worker busy in its callback does not run once its lock has passed on', async () => {
  const outcome = await nodeReport([script]);
  assert.deepEqual(outcome, { got: 'terminate-busy', ranAfterGrant: false });
});
