// A bench page: installs the contender named by ?impl= and exposes window.bench for the driver.
import { installContender } from './contenders.mjs';
import * as measures from './measures.mjs';

const impl = new URLSearchParams(location.search).get('impl');
let worker = null;

function workerCommand(message) {
  return new Promise((resolve, reject) => {
    worker.onmessage = ({ data }) => (data.error ? reject(new Error(data.error)) : resolve(data));
    worker.onerror = (event) => reject(new Error(`worker: ${event.message}`));
    worker.postMessage(message);
  });
}

async function setup() {
  const locks = await installContender(impl);
  window.bench = {
    impl,
    uncontended: (ops) => measures.uncontended(locks, ops),
    handoff: (count, startAt) => measures.handoff(locks, count, startAt),
    holdMany: (entries) => measures.holdMany(locks, entries),
    queries: (count) => measures.queries(locks, count),
    releaseMany: () => measures.releaseMany(),
    pending: (count) => measures.pending(locks, count),
    burst: (count) => measures.burst(locks, count),
    clock: measures.clock,
    /** Starts a dedicated worker running the same contender (ours: the wrapped Worker hands it a hub port). */
    async startWorker() {
      worker = new Worker(new URL('./worker.mjs', import.meta.url), { type: 'module' });
      await workerCommand({ cmd: 'install', impl });
      return true;
    },
    /** The page and its worker each acquire the lock `count` times, at once. */
    async contendWithWorker(count) {
      const startAt = measures.clock() + 30;
      const [mine, theirs] = await Promise.all([
        measures.handoff(locks, count, startAt),
        workerCommand({ cmd: 'handoff', count, startAt }),
      ]);
      return [mine, theirs];
    },
  };
  return impl;
}

window.benchReady = setup().catch((error) => { throw new Error(`${impl}: ${error.message}`); });
