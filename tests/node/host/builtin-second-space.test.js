// No second lock space left beside the package's (issue 47): once the package replaces a built-in
// navigator.locks (Node 24 and 26), the built-in's other name `worker_threads.locks` serves the
// package's space, and so does every worker created afterwards, even one that loads nothing; a
// user's own preload that calls install({ force: true }) reaches eval workers as `register` does.
// On a Node without a built-in (20, 22) there is no other name, and a worker that loads nothing
// has no navigator.locks at all (never a space of its own).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { nodeReport } from './node-report.js';

const fixture = (name) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));
const hasBuiltIn = Number.parseInt(process.versions.node, 10) >= 24;


for (const options of [[], ['--max-old-space-size=256']]) {
  test(`while navigator.locks holds a lock, worker_threads.locks and workers that load nothing find it held (Node options: ${JSON.stringify(options)})`, async () => {
    const report = await nodeReport([...options, fixture('builtin-names.mjs')]);
    if (hasBuiltIn) {
      assert.deepEqual(report, {
        builtIn: true, defaultExport: 'excluded', namedImport: 'excluded', sameObject: true,
        workerLoadingNothing: 'excluded', workerInheritingOptions: 'excluded',
      });
    } else {
      assert.deepEqual(report, { builtIn: false, workerLoadingNothing: 'no navigator.locks', workerInheritingOptions: 'no navigator.locks' });
    }
  });
}

test('a user\'s --import preload calling install({ force: true }) gives eval workers the package\'s lock space', async () => {
  const report = await nodeReport(['--import', fixture('force-install-preload.mjs'), fixture('eval-workers.mjs')]);
  assert.deepEqual(report.crossThread, { beforeRelease: 1, pendingFromAnotherClient: true, afterExit: 3 },
    'the eval worker\'s request waited for the main thread\'s lock, then was granted');
  assert.deepEqual(report.deadlock, { workerGotResource2: false, mainGotResource1: false, bothHeldByTwoClients: true });
  assert.deepEqual(report.heldAtExit, { code: 42, granted: 'held-at-exit' });
  assert.deepEqual(report.pendingAtTerminate, { pendingLeft: 0, granted: true });
});
