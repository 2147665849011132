// The whole polyfill at once for bundled apps ("./polyfill-sync", "browser" export condition): as
// polyfill-sync.js, with the hub at the app's stable URL /weblocks/weblocks-hub.js.
import { install as installRest } from './bundled-polyfill-rest.js';
import { prepareContext } from './worker-patch.js';

export { defaultHubUrl } from './bundled-polyfill-rest.js';

/** Installs navigator.locks (options: force, hubUrl); returns it, or null where a native one was kept. */
export function install(options = {}) {
  return installRest({ prepare: prepareContext, ...options });
}

/** navigator.locks after installation: the polyfill's, or the native one it left in place. */
export const locks = install() ?? globalThis.navigator?.locks ?? null;
