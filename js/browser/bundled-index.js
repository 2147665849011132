// The ponyfill for bundled apps ("browser" export condition): as js/browser/index.js, with the hub
// at the app's stable URL /weblocks/weblocks-hub.js (js/browser/served-hub.js).
import { LockManager, Lock, createLockManager, createLocalBackend } from '../api/index.js';
import { contextLocks } from './context.js';
import { locateHub } from './hub-location.js';
import { servedHubUrl } from './served-hub.js';

export { LockManager, Lock };
export const locks = contextLocks({ hubUrl: locateHub(servedHubUrl()) }).locks;

/** A LockManager on an engine in this context that serves its caller alone (no hub, no other tab). */
export function createLocalLockManager() {
  return createLockManager(createLocalBackend());
}
