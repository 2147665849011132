// The polyfill for bundled apps ("browser" export condition): as js/browser/polyfill.js, with the
// hub at the app's stable URL /weblocks/weblocks-hub.js (js/browser/served-hub.js).
import { install as installWith } from './install.js';
import { locateHub } from './hub-location.js';
import { servedHubUrl } from './served-hub.js';

export const defaultHubUrl = servedHubUrl();

// The observeLocks client, split off by bundlers: loaded on the first observeLocks() call.
const loadObserveClient = () => import('../api/observe-locks.js').then((client) => client.observeSource);

/** Installs navigator.locks (options: force, hubUrl); returns it, or null where a native one was kept. */
export function install(options = {}) {
  return installWith({ hubUrl: locateHub(defaultHubUrl), loadObserveClient, ...options });
}

/** navigator.locks after installation: the polyfill's, or the native one it left in place. */
export const locks = install() ?? globalThis.navigator?.locks ?? null;
