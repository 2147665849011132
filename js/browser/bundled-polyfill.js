// The polyfill for bundled apps ("browser" export condition): as js/browser/polyfill.js, with the
// hub at the app's stable URL /weblocks/weblocks-hub.js (js/browser/served-hub.js).
import { install as installWith } from './install.js';
import { locateHub } from './hub-location.js';
import { servedHubUrl } from './served-hub.js';
import { importObserveClient } from './import-observe-client.js';

export const defaultHubUrl = servedHubUrl();

/** Installs navigator.locks (options: force, hubUrl); returns it, or null where a native one was kept. */
export function install(options = {}) {
  return installWith({ hubUrl: locateHub(defaultHubUrl), loadObserveClient: importObserveClient, ...options });
}

/** navigator.locks after installation: the polyfill's, or the native one it left in place. */
export const locks = install() ?? globalThis.navigator?.locks ?? null;
