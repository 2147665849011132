// The lock server as a suite host: the suite's context is a LockManager of weblocks-wasm/remote on
// a lock server in this process; every other context is one more remote client (its own WebSocket
// connection, session and clientId), as another tab, device or process would be. Ending a context
// by 'close' is its close(): the server releases its locks and drops its requests at once.
import { createLockManager } from '../../../../js/remote/node.js';
import { requestHandle } from '../handle.js';
import { runStressContext } from '../stress.js';

export function createRemoteHost({ url, asyncContext, stressRequests, webidl = true, deadlockDetection = false }) {
  const locks = createLockManager({ url });
  const opened = new Set();

  function openContextSync() {
    // (the client reads `deadlock` as each nested request is made: setDeadlock below)
    const options = { url, deadlock: undefined };
    const contextLocks = createLockManager(options);
    opened.add(contextLocks);
    return {
      locks: contextLocks,
      request: (name, requestOptions) => requestHandle(contextLocks, name, requestOptions),
      query: () => contextLocks.query(),
      setDeadlock: (value) => { options.deadlock = value; },
      end: async (how) => {
        if (how !== 'close') throw new Error(`the remote host cannot end a context by ${how}`);
        opened.delete(contextLocks);
        contextLocks.close();
      },
    };
  }

  return {
    name: 'lock server (weblocks-wasm/remote over WebSocket)',
    locks,
    endings: ['close'],
    asyncContext,
    webidl,
    remoteLockSpace: true,
    ...(stressRequests === undefined ? {} : { stressRequests }),
    // Nested requests are told to the server as nested; its lock space finds deadlocks where it can
    // ('process', 'machine'; not etcd: docs/api.md).
    deadlockDetection,
    observeLocks: (callback, observeOptions) => locks.observeLocks(callback, observeOptions),
    // Ready once the context's connection answers.
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
      for (const manager of [locks, ...opened]) manager.close();
    },
  };
}
