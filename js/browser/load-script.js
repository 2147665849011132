// Loads one of the polyfill's optional classic bundles (served next to the hub) into this context:
// importScripts() in a classic worker, a <script> element in a window, import() in a module worker.
// The bundle leaves its entry point at globalThis[key]; the promise resolves to it.
import { trustedScriptUrl } from './script-urls.js';

/**
 * notLoaded(url, why) makes the error that names the file and the fix; `what` names the bundle
 * where its URL is unknown (no hub URL: the polyfill's source was injected inline).
 */
export function loadClassicScript(scope, url, key, notLoaded, what) {
  if (typeof scope[key] === 'function') return Promise.resolve(scope[key]);
  if (url === undefined) return Promise.reject(new DOMException(`Web Locks: no hub URL, so ${what} cannot be found: set globalThis.WEBLOCKS_HUB_URL before the polyfill runs (its source was injected inline).`, 'NotSupportedError'));
  const loaded = () => {
    if (typeof scope[key] === 'function') return scope[key];
    throw notLoaded(url, 'it ran but did not register (not the file of this version?)');
  };
  if (typeof scope.importScripts === 'function') {
    try {
      scope.importScripts(trustedScriptUrl(scope, url));
      return Promise.resolve().then(loaded);
    } catch (error) {
      // A module worker has importScripts but refuses it (TypeError): import() below.
      if (error?.name !== 'TypeError') return Promise.reject(notLoaded(url, error?.message ?? error));
    }
  }
  const doc = scope.document;
  if (doc && typeof doc.createElement === 'function') {
    return new Promise((resolve, reject) => {
      const script = doc.createElement('script');
      script.async = true;
      script.onload = () => { script.remove(); try { resolve(loaded()); } catch (error) { reject(error); } };
      script.onerror = () => { script.remove(); reject(notLoaded(url, 'the script did not load')); };
      script.src = trustedScriptUrl(scope, url);
      (doc.head ?? doc.documentElement).appendChild(script);
    });
  }
  // A module worker (a service worker refuses import(): it must load the classic polyfill).
  return import(/* webpackIgnore: true */ /* @vite-ignore */ url).then(loaded, (error) => { throw notLoaded(url, error?.message ?? error); });
}
