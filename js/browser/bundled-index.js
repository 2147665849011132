// The ponyfill for bundled apps ("browser" export condition): as js/browser/index.js, with the hub
// at the app's stable URL /weblocks/weblocks-hub.js (js/browser/served-hub.js).
import { LockManager, Lock, createLocalBackend, observableLockManager } from '../api/index.js';
import { createLazyObserveLocks } from '../api/lazy-observe-locks.js';
import { importObserveClient } from './import-observe-client.js';
import { contextLocks } from './context.js';
import { locateHub } from './hub-location.js';
import { servedHubUrl } from './served-hub.js';
import { prepareContext } from './worker-patch.js';

export { LockManager, Lock };
prepareContext(globalThis);
const context = contextLocks({ hubUrl: locateHub(servedHubUrl()) });
export const locks = context.locks;

/** observeLocks on this context's lock space, as js/browser/index.js. */
export const observeLocks = createLazyObserveLocks(context.backend, importObserveClient);

/**
 * A LockManager on an engine in this context that serves its caller alone (no hub, no other tab).
 * @param {{ deadlock?: 'reject' | 'report' }} [options]
 */
export function createLocalLockManager({ deadlock } = {}) {
  return observableLockManager(createLocalBackend({ deadlock }));
}
