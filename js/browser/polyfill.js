// The polyfill (ES module, "./polyfill"): a loader (loader.js). Where navigator.locks works
// natively it does nothing else; where it is missing (or forced: globalThis.WEBLOCKS_FORCE = true
// first, or install({ force: true })) it installs navigator.locks at once, keeping its calls in
// order, and import()s the rest (polyfill-rest.js). The whole polyfill at once: polyfill-sync.js.
import { installWhereNeeded, restFailure } from './loader.js';
import { prepareContext } from './worker-patch.js';

/** Installs navigator.locks (options: force, hubUrl); returns it, or null where a native one was kept. */
export function install(options = {}) {
  return installWhereNeeded(options, (settings) => import('./polyfill-rest.js').then((rest) => rest.install(settings)), restFailure(new URL('polyfill-rest.js', import.meta.url),
    "Serve the package's js/ folder whole, of one version. (A service worker cannot import(): it imports weblocks-wasm/polyfill-sync.)"), prepareContext);
}

/** navigator.locks after installation: the polyfill's (pending until the rest loads), or the native one it left in place. */
export const locks = install() || globalThis.navigator && globalThis.navigator.locks || null;
