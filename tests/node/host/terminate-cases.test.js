// A terminated worker leaves nothing in the lock space once `await worker.terminate()` has
// resolved, and a busy holder's callback never runs after its lock has passed on
// (tests/runtimes/terminate-cases.mjs, also run on Bun and Deno by tests/runtimes/run.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { nodeReport } from './node-report.js';

const script = fileURLToPath(new URL('../../runtimes/terminate-cases.mjs', import.meta.url));

test('after await terminate(), a worker\'s held lock and pending request are gone, and a busy holder stops before the handoff', async () => {
  const outcome = await nodeReport([script]);
  assert.deepEqual(outcome.idle, { heldAfterTerminate: 0, grantedAfter: true });
  assert.deepEqual(outcome.pending, { pendingBefore: 1, pendingAfterTerminate: 0, holderStillHeld: 1 });
  assert.deepEqual(outcome.busy, { countedBeforeGrant: true, ranAfterGrant: false });
});
