// When a terminated thread's locks may pass on (js/node/close-gone.js, thread-watch.js
// recordedThreadHasStopped): a Worker's own 'exit' comes once Node has joined its thread, and
// Linux wakes a join before it removes the thread's task, so the kernel may list that thread a
// moment longer. The report counts at once where it is proof; the kernel's list decides for every
// thread nobody reported ended. (A clean-clone run once found a request pending at terminate()
// holding the lock after terminate() resolved, in register-eval-workers.test.js; that this gap
// was the cause is not proven.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Worker } from 'node:worker_threads';
import { once } from 'node:events';
import { THREAD_TABLE_BYTES, recordedThreadHasStopped } from '../../../js/node/thread-watch.js';

test('a thread its Worker reported ended counts as stopped at once; one still listed by the kernel and not reported does not', { skip: process.platform !== 'linux' && 'the kernel thread list is read from /proc' }, async () => {
  const table = new SharedArrayBuffer(THREAD_TABLE_BYTES);
  const moduleUrl = new URL('../../../js/node/thread-watch.js', import.meta.url).href;
  // A recorded thread that stays alive while the checks run: the kernel lists it.
  const worker = new Worker(`
    const { parentPort, workerData, threadId } = require('node:worker_threads');
    import(workerData.moduleUrl).then(({ registerThisThread }) => {
      registerThisThread(workerData.table);
      parentPort.postMessage(threadId);
      setInterval(() => {}, 1000);
    });`, { eval: true, workerData: { table, moduleUrl } });
  const [threadId] = await once(worker, 'message');
  assert.equal(recordedThreadHasStopped(table, threadId), false, 'listed by the kernel and not reported ended: it may still run');
  assert.equal(recordedThreadHasStopped(table, threadId, true), true, 'its Worker said it ended: Node has joined it');
  await worker.terminate();
});
