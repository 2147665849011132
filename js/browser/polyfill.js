// The polyfill (ES module): importing it installs navigator.locks where it is missing (set
// globalThis.WEBLOCKS_FORCE = true first, or call install({ force: true }), to replace a native one).
// The hub is the classic hub bundle, build/dist/weblocks-hub.js, unless WEBLOCKS_HUB_URL says otherwise.
import { install as installWith } from './install.js';
import { locateHub } from './hub-location.js';
import { importObserveClient } from './import-observe-client.js';

export const defaultHubUrl = new URL('../../build/dist/weblocks-hub.js', import.meta.url).href;

/** Installs navigator.locks (options: force, hubUrl); returns it, or null where a native one was kept. */
export function install(options = {}) {
  return installWith({ hubUrl: locateHub(defaultHubUrl), loadObserveClient: importObserveClient, ...options });
}

/** navigator.locks after installation: the polyfill's, or the native one it left in place. */
export const locks = install() ?? globalThis.navigator?.locks ?? null;
