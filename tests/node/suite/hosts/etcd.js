// The etcd lock space as a suite host: the suite's context is a LockManager of
// weblocks-wasm/etcd on the test cluster; every other context is one more lock manager with its
// own etcd client, lease and clientId (as another process or machine would have). Ending a
// context by 'close' is closeLockManager(): its lease is revoked, its locks and requests go.
import { createLockManager, closeLockManager } from '../../../../js/etcd/index.js';
import { requestHandle } from '../handle.js';
import { runStressContext } from '../stress.js';

export function createEtcdHost({ hosts, namespace, asyncContext, stressRequests = 150, webidl = true }) {
  const options = { etcd: { hosts, namespace, leaseTtl: 5 } };
  const locks = createLockManager(options);
  const opened = new Set();

  function openContextSync() {
    const contextLocks = createLockManager(options);
    opened.add(contextLocks);
    return {
      locks: contextLocks,
      request: (name, requestOptions) => requestHandle(contextLocks, name, requestOptions),
      query: () => contextLocks.query(),
      end: async (how) => {
        if (how !== 'close') throw new Error(`the etcd host cannot end a context by ${how}`);
        opened.delete(contextLocks);
        await closeLockManager(contextLocks);
      },
    };
  }

  return {
    name: 'etcd (3-member cluster)',
    locks,
    webidl,
    endings: ['close'],
    asyncContext,
    remoteLockSpace: true,
    stressRequests,
    // Deadlocks are not detected on etcd (docs/api.md): no deadlockDetection.
    observeLocks: (callback, observeOptions) => locks.observeLocks(callback, observeOptions),
    // Ready once the context's client answers (a query goes through etcd).
    openContext: async () => {
      const context = openContextSync();
      await context.query();
      return context;
    },
    runStress: async ({ contexts, requests, names, shared, seed }) => {
      const list = await Promise.all(Array.from({ length: contexts }, async () => {
        const context = openContextSync();
        await context.query();
        return context;
      }));
      const logs = await Promise.all(list.map((context, i) =>
        runStressContext({ locks: context.locks, shared, names, requests, seed: seed + i })));
      await Promise.all(list.map((context) => context.end('close')));
      return logs;
    },
    async dispose() {
      await Promise.all([locks, ...opened].map((manager) => closeLockManager(manager)));
    },
  };
}
