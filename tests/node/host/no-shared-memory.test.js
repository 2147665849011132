// Where a worker thread cannot share memory, it cannot join its process's lock space: each of its
// requests rejects with a LockSpaceError saying why, and it is never granted a lock another thread
// holds (a lock space of its own would grant it). The main thread holds the lock meanwhile.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const pkg = JSON.stringify(new URL('../../../js/node/index.js', import.meta.url).href);

test('a worker without shared memory rejects every request with LockSpaceError while the main thread holds the lock', async () => {
  const worker = `(async () => {
    delete globalThis.SharedArrayBuffer;
    const { parentPort } = process.getBuiltinModule('node:worker_threads');
    const { locks } = await import(${pkg});
    const outcome = await locks.request('x', () => 'granted').then((value) => value, (error) => [error.name, error.code]);
    parentPort.postMessage(outcome);
  })();`;
  const source = `const { locks } = await import(${pkg});
    const { Worker } = await import('node:worker_threads');
    await locks.request('x', async () => {
      const worker = new Worker(${JSON.stringify(worker)}, { eval: true });
      console.log(JSON.stringify(await new Promise((resolve) => worker.once('message', resolve))));
    });`;
  const stdout = await new Promise((resolve, reject) => {
    execFile(process.execPath, ['--input-type=module', '-e', source], { cwd: root, timeout: 30_000 },
      (error, out, stderr) => (error ? reject(Object.assign(error, { message: `${error.message}\n${stderr}` })) : resolve(out)));
  });
  assert.deepEqual(JSON.parse(stdout.trim()), ['LockSpaceError', 'ERR_WEBLOCKS_NO_LOCK_SPACE']);
});
