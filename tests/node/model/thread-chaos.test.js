// Chaos across worker_threads sharing one engine through shared memory: random requests with
// every option while threads are terminated at random moments and crash on purpose while holding
// locks. The hold log must show no overlapping incompatible holds, and nothing may stay held.
// Each run is a child process with a time limit: a thread killed inside the engine's critical
// section would leave the engine mutex locked, and that must fail the test, not hang it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const runner = fileURLToPath(new URL('../../model/thread-chaos.mjs', import.meta.url));

function chaos(args) {
  const child = spawnSync(process.execPath, [runner, ...args], { encoding: 'utf8', timeout: 150_000 });
  assert.equal(child.signal, null, `the chaos run was killed (${child.signal}): a deadlock?\n${child.stderr}`);
  const json = child.stdout.slice(child.stdout.indexOf('{'));
  assert.ok(json.startsWith('{'), `no result printed:\n${child.stdout}\n${child.stderr}`);
  return JSON.parse(json);
}

test('threads that are terminated or crash while holding locks never break mutual exclusion and leave nothing held', () => {
  const result = chaos(['--seconds', '3', '--threads', '3', '--seed', '7']);
  assert.equal(result.violations, 0, result.problems.join('\n'));
  assert.deepEqual(result.problems, []);
  assert.deepEqual(result.stillHeld, []);
  assert.equal(result.logOverflowed, false);
  assert.deepEqual([result.engineHeldAtEnd, result.enginePendingAtEnd, result.engineClientsAtEnd], [0, 0, 0]);
  assert.ok(result.grants > 50 && result.steals > 5, `enough happened: ${JSON.stringify(result)}`);
  assert.ok(result.terminated + result.crashed >= 3, `threads died: ${result.terminated} terminated, ${result.crashed} crashed`);
});

test('the chaos checker catches a thread that uses a lock it was refused', () => {
  const result = chaos(['--seconds', '2', '--threads', '3', '--seed', '7', '--plant-fake-grants']);
  assert.ok(result.violations > 0, `the planted bug was caught: ${JSON.stringify(result)}`);
});
