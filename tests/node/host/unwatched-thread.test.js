// A worker thread whose creator does not watch it (the creator never loaded the package, or
// created it before loading it) still has its locks released once it is terminated: its end is
// learned from the kernel's thread list, not from its creator. So nothing warns
// (WEBLOCKS_UNWATCHED_THREAD is for systems without that list). Each scenario runs in its own
// process; its stderr is read.
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
// A thread that loads the package, takes a lock, says so on a BroadcastChannel and stays busy
// until it is terminated (so none of its own code runs at its end).
const HOLDS = `const { locks } = await import(${pkg}); await locks.request('x', () => { new BroadcastChannel('held').postMessage('held'); for (;;); });`;
// Main listens before any worker starts: a BroadcastChannel message posted before a channel of
// that name exists is not delivered to it (a worker started first that loads the package faster
// than its creator would say "held" to no one).
const listen = `const held = new Promise((resolve) => { const c = new BroadcastChannel('held'); c.onmessage = () => { c.close(); resolve(); }; });`;
// A thread that loads the package, takes a lock and holds it a little (past the re-check).
const LOADS = `const { locks } = await import(${pkg}); await locks.request('x', () => new Promise((r) => setTimeout(r, 600)));`;
// The main thread's program (an ES module).
const main = (body) => body;

function run(source) {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['--input-type=module', '-e', source], { cwd: root, timeout: 20_000 },
      (error, stdout, stderr) => (error ? reject(new Error(`${error.killed ? 'killed after 20 s' : error.message}; its stderr: ${stderr}`)) : resolve(stderr)));
  });
}
const warnings = (stderr) => stderr.split('\n').filter((line) => line.includes('WEBLOCKS_UNWATCHED_THREAD'));

// While the worker holds 'x', main sees it held; once the worker is terminated, main is granted it.
const heldThenReleased = (terminate) => 'await held; '
  + `console.error(await locks.request('x', { ifAvailable: true }, (lock) => (lock === null ? 'held elsewhere' : 'available'))); `
  + `const waiter = locks.request('x', () => 'granted'); ${terminate}; console.error(await waiter);`;

test('a worker created by a thread that never loaded the package has its lock released once terminated, and nothing warns', async () => {
  // main (loads the package) -> X (does not load it) -> Y (holds 'x'); X terminates Y when told.
  const x = `const y = ${spawn(HOLDS)}; process.getBuiltinModule('node:worker_threads').parentPort.once('message', () => y.terminate());`;
  const stderr = await run(main(`${listen} const { locks } = await import(${pkg}); const x = ${spawn(x)}; ${heldThenReleased("x.postMessage('terminate')")}`));
  assert.match(stderr, /^held elsewhere\ngranted$/m, stderr);
  assert.deepEqual(warnings(stderr), [], stderr);
});

test('a worker created before its creator loaded the package has its lock released once terminated, and nothing warns', async () => {
  const stderr = await run(main(`${listen} const w = ${spawn(HOLDS)}; const { locks } = await import(${pkg}); ${heldThenReleased('await w.terminate()')}`));
  assert.match(stderr, /^held elsewhere\ngranted$/m, stderr);
  assert.deepEqual(warnings(stderr), [], stderr);
});

test('workers created by a thread that loaded the package, nested ones included, do not warn', async () => {
  // main -> A (loads it) -> B (loads it): every creator watches its workers.
  const a = `await import(${pkg}); const b = ${spawn(LOADS)}; ${LOADS} ${untilExit('b')}`;
  const stderr = await run(main(`await import(${pkg}); ${untilExit(spawn(a))}`));
  assert.deepEqual(warnings(stderr), [], stderr);
});
