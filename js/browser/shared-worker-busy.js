// Firefox keeps a page out of the back/forward cache while a shared worker it connected to holds or
// waits for a lock (measured: docs/browser.md, "Back/forward cache"). An app's shared worker has
// no port to the page the polyfill could use without starting the app's own port, so it says when
// it becomes busy and idle on a BroadcastChannel of the origin, with its URL and name (what
// identifies a shared worker to the pages that connect to it), and answers a page that asks. A
// window counts each shared worker it connected to among its own outstanding sources (bfcache.js),
// so its `unload` blocker is present exactly while one of them is busy. Only under Firefox's rule.
import { HUB_NAME } from '../hub/protocol.js';

const CHANNEL = 'weblocks-wasm-shared-workers';
const PATCHED = Symbol.for('weblocks-wasm.shared-worker-watched');

/** In an app's shared worker: an onChange(busy) for its Outstanding that tells the pages. */
export function sharedWorkerSays(scope) {
  const channel = new scope.BroadcastChannel(CHANNEL);
  const self = { url: String(scope.location?.href ?? ''), name: String(scope.name ?? '') };
  let busy = false;
  channel.onmessage = (event) => {
    if (event.data?.t === 'ask' && event.data.url === self.url && event.data.name === self.name) channel.postMessage({ t: 'busy', ...self, busy });
  };
  return (now) => {
    busy = now;
    channel.postMessage({ t: 'busy', ...self, busy });
  };
}

/** In a window: the shared workers it connects to from now on count in `outstanding` while busy. */
export function watchSharedWorkers(scope, outstanding) {
  const Native = scope.SharedWorker;
  if (typeof Native !== 'function' || typeof scope.BroadcastChannel !== 'function' || Native[PATCHED]) return;
  const watched = new Set(); // `${url} ${name}` of the shared workers this window connected to
  const channel = new scope.BroadcastChannel(CHANNEL);
  channel.onmessage = (event) => {
    const m = event.data;
    if (m?.t !== 'busy' || typeof m.url !== 'string' || typeof m.name !== 'string') return;
    const key = `${m.url} ${m.name}`;
    if (watched.has(key)) outstanding.set(key, m.busy === true);
  };
  const SharedWorker = class SharedWorker extends Native {
    constructor(url, options) {
      super(url, options);
      const name = typeof options === 'string' ? options : String(options?.name ?? '');
      if (name === HUB_NAME || name.startsWith(`${HUB_NAME}:`)) return; // the polyfill's own hub
      let absolute;
      try { absolute = new URL(String(url), scope.document?.baseURI).href; } catch { return; }
      watched.add(`${absolute} ${name}`);
      channel.postMessage({ t: 'ask', url: absolute, name });
    }
  };
  Object.defineProperty(SharedWorker, PATCHED, { value: true });
  Object.defineProperty(scope, 'SharedWorker', { value: SharedWorker, writable: true, configurable: true, enumerable: false });
}
