// One lock space per process whoever loads the package first: worker pools from npm whose main
// thread never imports weblocks-wasm (the task file does), four workers at once, each making
// locked read-modify-write increments of one shared counter under one exclusive lock (spec: an
// exclusive lock has one holder at a time). Every increment lands, and no callback overlaps
// another. Each pool runs in a process of its own (fixtures/pools/run.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const runner = fileURLToPath(new URL('./fixtures/pools/run.mjs', import.meta.url));

function runPool(pool) {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [runner, pool], { timeout: 60_000 }, (error, stdout, stderr) => {
      if (error) reject(Object.assign(error, { stderr }));
      else resolve(JSON.parse(stdout.trim().split('\n').pop()));
    });
  });
}

for (const pool of ['piscina', 'tinypool', 'workerpool', 'worker_threads']) {
  const what = pool === 'worker_threads' ? 'plain worker_threads (a hand-made pool)' : pool;
  test(`${what} whose main thread never loads the package: four workers exclude each other under one exclusive lock`, async () => {
    const outcome = await runPool(pool);
    assert.equal(outcome.threads, 4, `the tasks did not run in four threads: ${JSON.stringify(outcome)}`);
    assert.deepEqual(outcome.overlaps, [0, 0, 0, 0], `callbacks ran at once: ${JSON.stringify(outcome)}`);
    assert.equal(outcome.total, outcome.expected, `increments were lost: ${JSON.stringify(outcome)}`);
  });
}
