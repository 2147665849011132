// The polyfill's install() for ES module users (hub: build/dist/weblocks-hub.js next to this
// package, unless WEBLOCKS_HUB_URL says otherwise), with no side effect: polyfill-sync.js runs it
// as it is imported, the loader (polyfill.js) once it has loaded this file where it is needed.
import { install as installWith } from './install.js';
import { locateHub } from './hub-location.js';
import { importObserveClient } from './import-observe-client.js';

export const defaultHubUrl = new URL('../../build/dist/weblocks-hub.js', import.meta.url).href;

/** Installs navigator.locks (options: force, hubUrl); returns it, or null where a native one was kept. */
export function install(options = {}) {
  return installWith({ hubUrl: locateHub(defaultHubUrl), loadObserveClient: importObserveClient, ...options });
}
