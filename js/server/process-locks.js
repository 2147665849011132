// Backend 'process': one engine of this project per space key, in this process (ordinary memory),
// one engine client per remote session: the engine's queues, steal, ifAvailable, abort, query()
// and journal (observeLocks) serve remote clients as they serve contexts of one agent.
import { createLocalEngine } from '../engine/index.js';
import { EngineBackend } from '../api/engine-backend.js';
import { DeferredBackend } from '../api/local-backend.js';
import { createLockManager } from '../api/lock-manager.js';
import { engineSource } from '../api/engine-observer.js';

export function processLocks() {
  const engine = createLocalEngine();
  engine.catch(() => {});
  return {
    /** A new client (a session's): its LockManager, and close() (agent termination: spec 2.6). */
    newClient(clientId) {
      const backend = new DeferredBackend(clientId, engine.then((e) => new EngineBackend(e, clientId)));
      return {
        clientId,
        backend,
        locks: createLockManager(backend), // (for query())
        close: () => backend.start().then((target) => target.close(), () => {}),
        // (a nested request comes while its outer lock is held: the engine is loaded by then)
        setDeadlock: (value) => { if (backend.target !== null) backend.target.deadlock = value; },
      };
    },
    /** observeLocks's source (js/api/observe-locks.js) for the space. */
    source() {
      return {
        observe: (sink) => {
          let stop = null;
          let stopped = false;
          engine.then((e) => { if (!stopped) stop = engineSource(e).observe(sink); }, () => {});
          return () => { stopped = true; stop?.(); };
        },
      };
    },
    query: () => engine.then((e) => e.snapshot()),
    dispose() {},
  };
}
