// `node --import weblocks-wasm/register` and `node --require weblocks-wasm/register` reach every
// thread, eval workers included (Node runs --require preloads in `new Worker(code, { eval: true })`
// but no --import preload: the register preload gives them its --require entry). The
// behaviours Node's own navigator.locks tests check across threads (a request from another thread
// waits, a deadlock is observable with ifAvailable and query(), a lock held at process.exit() is
// released, a request pending at terminate() leaves nothing behind), with eval workers that load nothing themselves.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { nodeReport } from './node-report.js';

const fixture = fileURLToPath(new URL('./fixtures/eval-workers.mjs', import.meta.url));

for (const flag of ['--import', '--require']) {
  test(`under ${flag} weblocks-wasm/register, eval workers share the lock space of the main thread`, async () => {
    const report = await nodeReport([flag, 'weblocks-wasm/register', fixture]);
    assert.deepEqual(report.crossThread, { beforeRelease: 1, pendingFromAnotherClient: true, afterExit: 3 },
      'the worker\'s request waited for the main thread\'s lock, then was granted');
    assert.deepEqual(report.deadlock, { workerGotResource2: false, mainGotResource1: false, bothHeldByTwoClients: true });
    assert.deepEqual(report.heldAtExit, { code: 42, granted: 'held-at-exit' });
    assert.deepEqual(report.pendingAtTerminate, { pendingLeft: 0, granted: true });
  });
}
