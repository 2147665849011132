// resetLockSpace() (weblocks-wasm/test-setup): this thread's locks and requests end as if its
// context had ended, and it (and the Workers it creates from then on) move to a new, empty lock
// space; Workers created before stay in the old one. And a test thread's pending request does not
// keep it alive (setPendingKeepsAlive(false)), where by default it does.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Worker } from 'node:worker_threads';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { locks } from '../../../js/node/index.js';
import { resetLockSpace } from '../../../js/node/thread-locks.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const indexUrl = new URL('../../../js/node/index.js', import.meta.url).href;

// A worker that answers each message with whether `name` is free in its lock space.
function startProbe() {
  const worker = new Worker(`
    import { parentPort } from 'node:worker_threads';
    const { locks } = await import(${JSON.stringify(indexUrl)});
    parentPort.on('message', async (name) => parentPort.postMessage(await locks.request(name, { ifAvailable: true }, (lock) => lock !== null)));
    parentPort.postMessage('ready');`, { eval: true, type: 'module' });
  const answers = [];
  let waiter = null;
  worker.on('message', (message) => { if (waiter) { const w = waiter; waiter = null; w(message); } else answers.push(message); });
  const next = () => (answers.length ? Promise.resolve(answers.shift()) : new Promise((resolve) => { waiter = resolve; }));
  return { ready: next(), isFree: (name) => { worker.postMessage(name); return next(); }, end: () => worker.terminate() };
}

test('after resetLockSpace() this thread and its new Workers share a new, empty lock space; what it held and queued is gone', async () => {
  let heldCalls = 0;
  let queuedCalls = 0;
  const settled = [];
  await new Promise((held) => {
    locks.request('before-reset', () => { heldCalls++; held(); return new Promise(() => {}); }).then(() => settled.push('held'), () => settled.push('held'));
  });
  locks.request('before-reset', () => { queuedCalls++; }).then(() => settled.push('queued'), () => settled.push('queued'));
  const oldWorker = startProbe();
  await oldWorker.ready;
  assert.equal(await oldWorker.isFree('before-reset'), false, 'the old space: held by this thread');

  resetLockSpace();
  assert.deepEqual(await locks.query(), { held: [], pending: [] }, 'the new space is empty');
  assert.equal(await oldWorker.isFree('before-reset'), true, 'the old space: released as this thread left it');
  const newWorker = startProbe();
  await newWorker.ready;
  let release;
  await new Promise((held) => { locks.request('after-reset', () => { held(); return new Promise((resolve) => { release = resolve; }); }); });
  assert.equal(await newWorker.isFree('after-reset'), false, 'a Worker created after the reset shares the new space');
  assert.equal(await oldWorker.isFree('after-reset'), true, 'a Worker created before stays in the old one');
  release();
  assert.equal(await locks.request('before-reset', { ifAvailable: true }, (lock) => lock !== null), true);
  assert.deepEqual({ heldCalls, queuedCalls, settled }, { heldCalls: 1, queuedCalls: 0, settled: [] }, 'the dropped requests never call back or settle');
  await Promise.all([oldWorker.end(), newWorker.end()]);
});

function runScript(source) {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--input-type=module', '-e', source], { cwd: root, timeout: 2_000 },
      (error, stdout) => resolve({ exitedByItself: error === null, stdout: stdout.trim() }));
  });
}

test('a pending request keeps a thread alive, except in a thread set up for tests', async () => {
  const pending = `
    const { locks } = await import('./js/node/index.js');
    locks.request('x', () => new Promise(() => {}));
    locks.request('x', () => {});
    console.log('pending');`;
  const byDefault = await runScript(pending);
  assert.deepEqual(byDefault, { exitedByItself: false, stdout: 'pending' }, 'by default the thread waits for its request (killed after 2 s)');
  const inTests = await runScript(`await import('./js/node/test-setup.js');${pending}`);
  assert.deepEqual(inTests, { exitedByItself: true, stdout: 'pending' });
});

test('a lock of the old space whose callback ends after a reset releases nothing in the new one', async () => {
  let endOld;
  await new Promise((held) => { locks.request('late', () => { held(); return new Promise((resolve) => { endOld = resolve; }); }); });
  resetLockSpace();
  for (let round = 0; round < 3; round++) {
    let endNew;
    await new Promise((held) => { locks.request('late', () => { held(); return new Promise((resolve) => { endNew = resolve; }); }); });
    if (round === 0) endOld('old callback done'); // its release goes to the old space's backend
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.deepEqual((await locks.query()).held.map((info) => info.name), ['late'], `round ${round}: the new holder still holds`);
    assert.equal(await locks.request('late', { ifAvailable: true }, (lock) => lock), null);
    endNew();
    await new Promise((resolve) => setTimeout(resolve, 5));
    resetLockSpace();
  }
});
