// The polyfill's install() for bundled apps ("browser" export condition), with the hub at the
// app's stable URL /weblocks/weblocks-hub.js (served-hub.js), and no side effect: run by
// bundled-polyfill-sync.js as it is imported, by the loader (bundled-polyfill.js) once this chunk
// has loaded where it is needed. It imports no module of the loader's: a bundler would split a
// chunk shared with the loader off it, one more file on every page.
import { install as installWith } from './install.js';
import { locateHub } from './hub-location.js';
import { servedHubUrl } from './served-hub.js';
import { importObserveClient } from './import-observe-client.js';

export const defaultHubUrl = servedHubUrl();

/** Installs navigator.locks (options: force, hubUrl, prepare); returns it, or null where a native one was kept. */
export function install(options = {}) {
  return installWith({ hubUrl: locateHub(defaultHubUrl), loadObserveClient: importObserveClient, ...options });
}
