// The in-context engine as a suite host: the suite's own context is a LockManager on
// createLocalBackend(); every other context is one more client of that same engine, in this agent.
// Plain ESM: runs in browsers as is.
import { createLockManager, createLocalBackend, createEngineBackend, createObserveLocks } from '../../../../js/api/index.js';
import { requestHandle } from '../handle.js';
import { runStressContext } from '../stress.js';

export async function createInContextHost({ asyncContext } = {}) {
  const backend = createLocalBackend();
  const locks = createLockManager(backend);
  const engine = (await backend.ready).engine;

  function openContextSync() {
    const contextBackend = createEngineBackend(engine, undefined, 0, {});
    const contextLocks = createLockManager(contextBackend);
    return {
      clientId: contextBackend.clientId,
      locks: contextLocks,
      request: (name, options) => requestHandle(contextLocks, name, options),
      query: () => contextLocks.query(),
      setDeadlock: (value) => { contextBackend.deadlock = value; },
      // 'close': agent termination (spec 2.6) of a context whose callbacks are still pending.
      end: async (how) => {
        if (how !== 'close') throw new Error(`the in-context host cannot end a context by ${how}`);
        contextBackend.close();
      },
    };
  }

  return {
    name: 'in-context engine',
    locks,
    endings: ['close'],
    asyncContext,
    deadlockDetection: true,
    observeLocks: createObserveLocks(backend),
    openContext: async () => openContextSync(),
    // Every context runs its share in this agent, interleaved at await points.
    runStress: async ({ contexts, requests, names, shared, seed }) => {
      const opened = Array.from({ length: contexts }, openContextSync);
      const logs = await Promise.all(opened.map((context, i) =>
        runStressContext({ locks: context.locks, shared, names, requests, seed: seed + i })));
      await Promise.all(opened.map((context) => context.end('close')));
      return logs;
    },
  };
}
