// The ponyfill (ES module): this context's LockManager without touching navigator. It reaches the
// same hub as the polyfill (build/dist/weblocks-hub.js, or globalThis.WEBLOCKS_HUB_URL).
import { LockManager, Lock, createLockManager, createLocalBackend } from '../api/index.js';
import { contextLocks } from './context.js';
import { locateHub } from './hub-location.js';

const defaultHubUrl = new URL('../../build/dist/weblocks-hub.js', import.meta.url).href;

export { LockManager, Lock };
export const locks = contextLocks({ hubUrl: locateHub(defaultHubUrl) }).locks;

/** A LockManager on an engine in this context that serves its caller alone (no hub, no other tab). */
export function createLocalLockManager() {
  return createLockManager(createLocalBackend());
}
