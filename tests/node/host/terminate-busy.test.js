// A worker busy in synchronous code while holding a lock keeps it until terminate() has stopped
// it (tests/runtimes/terminate-busy.mjs, also run on Bun and Deno, where terminate() resolves while
// such a worker still runs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const script = fileURLToPath(new URL('../../runtimes/terminate-busy.mjs', import.meta.url));

test('a terminated worker busy in its callback does not run once its lock has passed on', async () => {
  const outcome = await new Promise((resolve, reject) => {
    execFile(process.execPath, [script], { timeout: 60_000 }, (error, stdout, stderr) => {
      if (error) reject(Object.assign(error, { message: `${error.message}\n${stderr}` }));
      else resolve(JSON.parse(stdout.trim().split('\n').pop()));
    });
  });
  assert.deepEqual(outcome, { got: 'terminate-busy', ranAfterGrant: false });
});
