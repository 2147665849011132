// The whole polyfill at once (ES module, "./polyfill-sync"): importing it installs navigator.locks
// where it is missing, synchronously, before the next line of the importing module runs (set
// globalThis.WEBLOCKS_FORCE = true first, or call install({ force: true }), to replace a native
// one). For pages that need the LockManager's own objects at once, and for service workers, which
// cannot import(): most pages import 'weblocks-wasm/polyfill' (polyfill.js), which loads this only
// where it is needed.
import { install as installRest } from './polyfill-rest.js';
import { prepareContext } from './worker-patch.js';

export { defaultHubUrl } from './polyfill-rest.js';

/** Installs navigator.locks (options: force, hubUrl); returns it, or null where a native one was kept. */
export function install(options = {}) {
  return installRest({ prepare: prepareContext, ...options });
}

/** navigator.locks after installation: the polyfill's, or the native one it left in place. */
export const locks = install() ?? globalThis.navigator?.locks ?? null;
