// The observeLocks client for the classic polyfill: a file of its own, weblocks-observe.js next to
// the hub (classic-observe.js), loaded on the first observeLocks() call: most pages never observe.
import { observeScriptUrl } from '../engine/assets.js';
import { loadClassicScript } from './load-script.js';
import { OBSERVE_KEY } from './observe-key.js';

/** Loads weblocks-observe.js; resolves to its observeSource. */
export function loadObserveClient(scope = globalThis) {
  return loadClassicScript(scope, observeScriptUrl(), OBSERVE_KEY, notLoaded, 'observeLocks\' weblocks-observe.js');
}

function notLoaded(url, why) {
  return new DOMException(`Web Locks: observeLocks needs its client, but ${url} could not be loaded (${why}). Serve weblocks-observe.js from build/dist/ next to the hub.`, 'NotSupportedError');
}
