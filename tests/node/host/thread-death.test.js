// Thread death in the Node host (spec 2.6, agent termination), however a thread ends, at any
// depth, whatever Worker class made it; and memory of dead threads and released names reused.
// Each scenario runs in a process of its own (fixtures/*-scenario.mjs): a crash, an unhandled
// rejection or a wedged engine there is a failure here, not a broken test runner.
// Long versions: WEBLOCKS_LONG=1 (WEBLOCKS_LONG_SECONDS, WEBLOCKS_LONG_THREADS, WEBLOCKS_LONG_ATTACHES,
// WEBLOCKS_LONG_FILL_CYCLES), or run the fixtures directly.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const fixture = (name) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));

function scenario(file, config, timeout = 90_000) {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [fixture(file), JSON.stringify(config)], { timeout, maxBuffer: 1 << 24 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${file} ${JSON.stringify(config)} ${error.killed ? 'timed out (a wedged lock space)' : `exited with ${error.code}`}\n${stderr.slice(-2000)}`));
      else resolve(JSON.parse(stdout.trim().split('\n').pop()));
    });
  });
}

// What every death scenario must end with: no overlap, no call of a live thread refused, no damaged
// entry in any query() answer during the run, nothing of the dead left, the engine's counts back
// to the main thread's one client, free mutex, empty thread table, and only the main thread's two
// instances' regions in use.
function assertWhole(result) {
  assert.equal(result.violations, 0, 'two holders of one exclusive lock at once');
  assert.equal(result.callErrors, 0, 'a live thread\'s lock call failed');
  assert.equal(result.stuckCalls, 0, 'a live thread\'s lock call gave up on a mutex held by a dead thread (STUCK)');
  assert.deepEqual(result.unhandled, []);
  assert.deepEqual(result.malformed, [], 'query() reported an entry that is not one of ours (damaged engine memory)');
  assert.ok(result.snapshots > 0);
  assert.equal(result.bystanderDone, true, 'the main thread\'s lock loop was never stuck');
  assert.equal(result.leftHeld + result.leftPending, 0, 'nothing of the dead threads is left held or pending');
  assert.equal(result.grantedAfter, true);
  assert.deepEqual(result.engine, { clients: 1, entries: 0, names: 0, mutexFree: true });
  assert.equal(result.recordedThreads, 0);
  assert.equal(result.pool.inUse, 4, 'regions in use: the main thread\'s two instances only');
}

describe('threads that die with their children running lock calls', { concurrency: 1 }, () => {
  test('a parent terminated while its children (depth 2) make lock calls: nothing wedged, nothing left', async (t) => {
    const result = await scenario('death-scenario.mjs', { rounds: 12, depth: [2, 2], how: ['terminate'] });
    t.diagnostic(JSON.stringify(result));
    assertWhole(result);
  });

  test('a parent that dies of an uncaught error while its children hold and wait: its children are never closed alive', async (t) => {
    const result = await scenario('death-scenario.mjs', { rounds: 8, depth: [2, 2], how: ['crash'] });
    t.diagnostic(JSON.stringify(result));
    assertWhole(result);
  });

  test('a parent that calls process.exit() while its children hold and wait', async (t) => {
    const result = await scenario('death-scenario.mjs', { rounds: 6, depth: [1, 2], how: ['exit'], seed: 3 });
    t.diagnostic(JSON.stringify(result));
    assertWhole(result);
  });

  test('threads made with a Worker class the package never saw, terminated in the middle of their work', async (t) => {
    const result = await scenario('death-scenario.mjs', { rounds: 8, depth: [1, 1], how: ['terminate', 'terminate-children'], unwrapped: true });
    t.diagnostic(JSON.stringify(result));
    assertWhole(result);
  });

  test('chaos: trees of random depth ended every way at once, two trees alive at a time', async (t) => {
    const seconds = process.env.WEBLOCKS_LONG ? Number(process.env.WEBLOCKS_LONG_SECONDS ?? 300) : 4;
    const result = await scenario('death-scenario.mjs', {
      seconds, trees: 2, depth: [0, 3], how: ['terminate', 'crash', 'exit', 'terminate-children'], seed: 7,
    }, (seconds + 60) * 1000);
    t.diagnostic(JSON.stringify(result));
    assertWhole(result);
    assert.ok(result.trees >= 2);
  });
});

describe('memory of dead threads and released names is reused', { concurrency: 1 }, () => {
  test('what a thread start does to the engine (attach, lock, wait, end in four ways), repeated: memory flat after the first cycle', async (t) => {
    // Without the Worker (Node's own ~30-50 ms per start): a million of these take minutes.
    const attaches = process.env.WEBLOCKS_LONG ? Number(process.env.WEBLOCKS_LONG_ATTACHES ?? 1_000_000) : 4000;
    const result = await scenario('attach-churn-scenario.mjs', { attaches }, 60_000 + attaches);
    t.diagnostic(JSON.stringify(result));
    assert.deepEqual(result.failures, []);
    assert.deepEqual(result.differences, [], 'memory size, memory in use, regions and counts the same after every cycle');
    assert.equal(result.atEnd.memoryBytes, result.afterFirstCycle.memoryBytes);
    assert.deepEqual(result.atEnd.regionPages, result.afterFirstCycle.regionPages);
  });

  test('threads started one after another: memory flat after the first ones', async (t) => {
    const threads = process.env.WEBLOCKS_LONG ? Number(process.env.WEBLOCKS_LONG_THREADS ?? 20000) : 40;
    for (const end of ['return', 'terminate']) {
      const result = await scenario('churn-scenario.mjs', { threads, end }, threads * 1000);
      t.diagnostic(JSON.stringify(result));
      assert.deepEqual(result.failures, []);
      assert.deepEqual(result.unhandled, []);
      assert.equal(result.memoryMiBAtEnd, result.memoryMiBAfterWarmup, `${end}: memory grew with every thread`);
    }
  });

  test('a thread that locked a long name gives its scratch area back when it dies', async (t) => {
    const result = await scenario('churn-scenario.mjs', { threads: 12, nameUnits: 1 << 20, end: 'terminate' });
    t.diagnostic(JSON.stringify(result));
    assert.deepEqual(result.failures, []);
    assert.equal(result.memoryMiBAtEnd, result.memoryMiBAfterWarmup);
  });

  test('a thread locking ever longer names, up to 64 MiB, does not run out of memory', async (t) => {
    const result = await scenario('churn-scenario.mjs', { threads: 1, growingTo: 32 << 20, warmup: 1 });
    t.diagnostic(JSON.stringify(result));
    assert.deepEqual(result.failures, []);
    assert.deepEqual(result.fills, [32 << 20]);
    assert.ok(result.inUseAfterEach[0] < 1, `the engine's memory in use once every name was released: ${result.inUseAfterEach[0]} MiB`);
    // A long name is written into a buffer in the engine's memory, whose blocks merge: memory ends
    // near twice the largest name (its buffer and the engine's copy). It was 379 MiB when each name
    // took a scratch area of its own, twice the name, that could never merge with the engine's.
    assert.ok(result.memoryMiBAtEnd < 160, `memory after names up to 64 MiB: ${result.memoryMiBAtEnd} MiB`);
  });

  test('fill the engine, release everything, again: each thread after the first attaches and fills as much, memory flat', async (t) => {
    // (About 2 s a cycle: each fills 1 GiB of memory with 2 MiB names.)
    const cycles = process.env.WEBLOCKS_LONG ? Number(process.env.WEBLOCKS_LONG_FILL_CYCLES ?? 100) : 4;
    const result = await scenario('churn-scenario.mjs', { threads: cycles, fill: true, nameUnits: 1 << 20, warmup: 1 }, cycles * 60_000);
    t.diagnostic(JSON.stringify(result));
    assert.deepEqual(result.failures, [], 'a thread could not lock after the engine was filled and emptied');
    assert.ok(result.fills[0] > 100, 'the first thread filled the engine');
    assert.deepEqual(new Set(result.fills).size, 1, 'every cycle fills as much');
    assert.equal(result.memoryMiBAtEnd, result.memoryMiBAfterWarmup);
    // What the engine has in use tracks what is live: after each release-all, the same few KiB.
    assert.equal(new Set(result.inUseAfterEach).size, 1, `memory in use after each cycle: ${result.inUseAfterEach}`);
    assert.ok(result.inUseAfterEach[0] < 1);
  });
});
