// A worker of the 'worker-first-grant' scenario (bench/node/scenario.mjs): loads its contender and
// says 'granted' from inside its first lock's callback. The 'bare' contender loads nothing and
// says it at once: the start of a worker that uses no lock.
import { parentPort, workerData } from 'node:worker_threads';

if (workerData.impl === 'bare') {
  parentPort.postMessage('granted');
} else {
  const { loadImpl } = await import('./impls.mjs');
  const { locks } = await loadImpl(workerData.impl);
  await locks.request('first-grant', () => parentPort.postMessage('granted'));
}
