// Entry of the classic loader (build/dist/weblocks-polyfill.js), for <script src> and
// importScripts(): loader.js's decision. Where the polyfill is needed, the rest is
// weblocks-polyfill-sync.js next to it (or next to WEBLOCKS_HUB_URL): in a window, an import()
// (no Trusted Types sink, and the page's parsing goes on); in a worker, importScripts() at once,
// as the worker's first script runs (a service worker may load scripts only then, and a
// dedicated worker's handshake must be in place before app code runs).
import { installWhereNeeded, needsPolyfill, restFailure, INSTALLED } from './loader.js';
import { patchWorker } from './worker-patch.js';
import { ownScriptUrl, classicBase, LOADER_URL } from './own-script-url.js';

const scope = globalThis;
const scriptUrl = ownScriptUrl();
const base = classicBase(scriptUrl);
const restUrl = base ? new URL('weblocks-polyfill-sync.js', base).href : 'weblocks-polyfill-sync.js (this script was inline: set WEBLOCKS_HUB_URL)';
const failure = restFailure(restUrl, 'Serve it next to weblocks-polyfill.js (a module worker imports it itself).');
// The rest runs as a module there (no currentScript): it finds the files next to it by this.
scope[LOADER_URL] = scriptUrl;

if (!scope.importScripts) {
  // The rest installs itself as it runs (a classic script, import()ed).
  installWhereNeeded({}, () => import(/* webpackIgnore: true */ /* @vite-ignore */ restUrl)
    .then(() => scope[INSTALLED]), failure, patchWorker);
} else if (needsPolyfill(scope, scope.WEBLOCKS_FORCE === true)) {
  // A worker: at once, or this script fails, naming the file (a module worker refuses
  // importScripts, a TypeError: it must import weblocks-polyfill-sync.js itself).
  try {
    scope.importScripts(restUrl);
  } catch (error) {
    throw failure(error);
  }
}
