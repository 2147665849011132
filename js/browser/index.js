// The ponyfill (ES module): this context's LockManager without touching navigator. It reaches the
// same hub as the polyfill (build/dist/weblocks-hub.js, or globalThis.WEBLOCKS_HUB_URL).
import { LockManager, Lock, createLocalBackend, observableLockManager } from '../api/index.js';
import { createLazyObserveLocks } from '../api/lazy-observe-locks.js';
import { importObserveClient } from './import-observe-client.js';
import { contextLocks } from './context.js';
import { locateHub } from './hub-location.js';
import { prepareContext } from './worker-patch.js';

const defaultHubUrl = new URL('../../build/dist/weblocks-hub.js', import.meta.url).href;

export { LockManager, Lock };
prepareContext(globalThis);
const context = contextLocks({ hubUrl: locateHub(defaultHubUrl) });
export const locks = context.locks;

/**
 * Watches the locks of this context's lock space (the hub's: every tab of the origin) without
 * polling: callback(snapshot, changes) at once, then after every change (docs/api.md).
 */
export const observeLocks = createLazyObserveLocks(context.backend, importObserveClient);

/**
 * A LockManager on an engine in this context that serves its caller alone (no hub, no other tab).
 * @param {{ deadlock?: 'reject' | 'report' }} [options]
 */
export function createLocalLockManager({ deadlock } = {}) {
  return observableLockManager(createLocalBackend({ deadlock }));
}
