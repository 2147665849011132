// An agent that dies inside an engine call never stops the others (issue: a live thread's
// synchronous call failed with STUCK after 2 s when its own worker lay dead holding the engine
// mutex and the thread, being inside that call, could not handle the worker's 'exit'). Spec 2.6:
// the dead agent's locks are released (agent termination) once its death is known; until then
// every other agent's calls are answered.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const fixture = fileURLToPath(new URL('./fixtures/dead-holder-scenario.mjs', import.meta.url));

test('a thread calling while its own dead worker holds the engine mutex is answered (no STUCK), and the dead thread\'s lock is released after', async (t) => {
  const result = await new Promise((resolve, reject) => {
    execFile(process.execPath, [fixture, JSON.stringify({ rounds: 3 })], { timeout: 60_000 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${error.killed ? 'timed out' : `exited with ${error.code}`}\n${stderr.slice(-2000)}`));
      else resolve(JSON.parse(stdout.trim().split('\n').pop()));
    });
  });
  t.diagnostic(JSON.stringify(result));
  assert.deepEqual(result.outcomes, ['granted', 'granted', 'granted'], 'each call made while the dead worker held the engine mutex');
  assert.deepEqual(result.unhandled, []);
  assert.equal(result.error, null);
  assert.deepEqual(result.held, [], 'the dead thread\'s lock was released');
  assert.equal(result.pending, 0);
  assert.equal(result.clients, 1, 'only the main thread\'s client is open');
  assert.equal(result.entries, 0);
});
