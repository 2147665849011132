// The fallback where the platform offers no hub (no SharedWorker constructor: service workers,
// shared workers created by the app, some mobile browsers; or a browser that refuses the hub's
// SharedWorker in this frame): a hub in this very context, on an engine of its own. It serves this
// context and the dedicated workers it creates, over the same protocol, so nothing else changes.
// The hub and engine binding it needs are a file of their own, weblocks-in-context.js next to
// the hub (in-context-hub.js), loaded only here: most contexts never need them.
import { inContextScriptUrl, assetBase } from '../engine/assets.js';
import { loadClassicScript } from './load-script.js';
import { IN_CONTEXT_KEY } from './in-context-key.js';

const hubPromises = new Map(); // lock space (null: the default; a storage bucket's name) -> Promise<Hub>
let warned = false;
let loading = null;

/**
 * Starts loading the fallback's script. A service worker may load scripts only while its own script
 * first runs, so a context that knows it has no hub calls this as the polyfill installs.
 */
export function loadInContextHub(scope = globalThis) {
  if (loading === null) {
    loading = loadScript(scope);
    loading.catch(() => {}); // reported by the requests that need it
  }
  return loading;
}

/** A port to this context's own hub of a lock space (created on first use). */
export async function localHubPort(reason, space = null, scope = globalThis) {
  if (!warned) {
    warned = true;
    console.warn(`[weblocks] ${reason}: navigator.locks uses an engine in this context, shared only with the workers it creates, not with other tabs.`);
  }
  if (!hubPromises.has(space)) {
    hubPromises.set(space, loadInContextHub(scope).then((startInContextHub) => startInContextHub(assetBase())));
  }
  const hub = await hubPromises.get(space);
  const channel = new MessageChannel();
  hub.connect(channel.port1);
  return channel.port2;
}

function loadScript(scope) {
  return loadClassicScript(scope, inContextScriptUrl(), IN_CONTEXT_KEY, notLoaded, 'the in-context engine');
}

function notLoaded(url, why) {
  return new DOMException(`Web Locks: this context has no hub and needs the in-context engine, but ${url} could not be loaded (${why}). Serve weblocks-in-context.js from build/dist/ next to the hub.`, 'NotSupportedError');
}
