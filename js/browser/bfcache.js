// The back/forward cache as this engine's own Web Locks treat it (measured: docs/browser.md,
// "Back/forward cache"). The spec leaves it open: a cached document's agent has not terminated
// (spec 2.6 does not apply), yet a frozen page cannot release what it holds.
//   - Firefox keeps a page whose window, dedicated workers or shared workers hold or wait for a
//     lock out of the cache. So does the polyfill there: an `unload` listener, which Firefox counts as a blocker,
//     present exactly while something is outstanding.
//   - WebKit lets the page in, releases the window's locks and aborts its waiting requests (each
//     promise rejects with an AbortError once the page is back).
//   - Chromium lets it in and keeps its locks until another context uses the lock space, which
//     evicts the page. The polyfill releases on `pagehide` instead (a frozen page cannot be asked)
//     and registers its waiting requests again on `pageshow` (context-liveness.js pageHidden).
import { Outstanding } from './outstanding.js';
import { markerMessage } from '../hub/protocol.js';
import { sharedWorkerSays } from './shared-worker-busy.js';
import { isFirefox, isWebKit } from './sentinel.js';

/** 'keep-out' (Firefox), 'abort-waiting' (WebKit) or 'release' (Chromium and the rest). */
export function bfcacheRule(scope = globalThis) {
  if (isFirefox(scope)) return 'keep-out';
  if (isWebKit(scope)) return 'abort-waiting';
  return 'release';
}

const noop = () => {};
let outstanding = null;

/**
 * This context's Outstanding: in a window under the keep-out rule it keeps the page out of the
 * cache while busy; in a dedicated worker it tells the creator (worker-ports.js), which counts it
 * among its own. Null where nothing needs to know.
 */
export function contextOutstanding(scope, kind, creatorMarked) {
  if (outstanding !== null || bfcacheRule(scope) !== 'keep-out') return outstanding;
  if (kind === 'window') {
    outstanding = new Outstanding((busy) => {
      if (busy) scope.addEventListener('unload', noop); else scope.removeEventListener('unload', noop);
    });
  } else if (kind === 'dedicated-worker' && creatorMarked) {
    outstanding = new Outstanding((busy) => scope.postMessage({ ...markerMessage('outstanding'), busy }));
  } else if (kind === 'shared-worker' && typeof scope.BroadcastChannel === 'function') {
    // An app's shared worker tells the pages connected to it (shared-worker-busy.js).
    outstanding = new Outstanding(sharedWorkerSays(scope));
  }
  return outstanding;
}
