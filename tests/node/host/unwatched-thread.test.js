// A worker thread whose creator does not watch it (the creator never loaded the package, or
// created it before loading it) cannot have its locks released if it is terminated or its creator
// ends: nothing learns of that end. It must say so, loudly and once (WEBLOCKS_UNWATCHED_THREAD),
// and a watched thread must not. Each scenario runs in its own process; its stderr is read.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const pkg = JSON.stringify(new URL('../../../js/node/index.js', import.meta.url).href);

// Worker sources are evaluated as scripts (eval: true): each body runs in an async function.
const script = (body) => `(async () => { ${body} })();`;
const spawn = (body) => `new (process.getBuiltinModule('node:worker_threads').Worker)(${JSON.stringify(script(body))}, { eval: true })`;
const untilExit = (expr) => `await new Promise((resolve) => ${expr}.once('exit', resolve));`;
// A thread that loads the package, takes a lock and holds it a little (past the re-check).
const LOADS = `const { locks } = await import(${pkg}); await locks.request('x', () => new Promise((r) => setTimeout(r, 600)));`;
// The main thread's program (an ES module).
const main = (body) => body;

function run(source) {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['--input-type=module', '-e', source], { cwd: root, timeout: 30_000 },
      (error, stdout, stderr) => (error ? reject(Object.assign(error, { stderr })) : resolve(stderr)));
  });
}
const warnings = (stderr) => stderr.split('\n').filter((line) => line.includes('WEBLOCKS_UNWATCHED_THREAD'));

test('a worker created by a thread that never loaded the package warns once that its locks outlive a terminate', async () => {
  // main (loads the package) -> X (does not) -> Y (loads it): X does not watch Y.
  const x = `const y = ${spawn(LOADS)}; ${untilExit('y')}`;
  const stderr = await run(main(`await import(${pkg}); ${untilExit(spawn(x))}`));
  const seen = warnings(stderr);
  assert.equal(seen.length, 1, stderr);
  assert.match(seen[0], /worker thread \d+ was created by a thread that had not loaded weblocks-wasm.*--import weblocks-wasm\/register/);
});

test('a worker created before its creator loaded the package warns too', async () => {
  const stderr = await run(main(`const w = ${spawn(LOADS)}; await import(${pkg}); ${untilExit('w')}`));
  assert.equal(warnings(stderr).length, 1, stderr);
});

test('workers created by a thread that loaded the package, nested ones included, do not warn', async () => {
  // main -> A (loads it) -> B (loads it): every creator watches its workers.
  const a = `await import(${pkg}); const b = ${spawn(LOADS)}; ${LOADS} ${untilExit('b')}`;
  const stderr = await run(main(`await import(${pkg}); ${untilExit(spawn(a))}`));
  assert.deepEqual(warnings(stderr), [], stderr);
});
