// This context's connection to the lock space: which way it reaches the hub, and its LockManager.
//   window, iframe, or any scope with SharedWorker -> the origin's hub (a SharedWorker)
//   dedicated worker                              -> a port from the context that created it
//   anything else (service worker, app shared worker, no SharedWorker) -> a hub in this context
import { createLockManager } from '../api/index.js';
import { HUB_NAME } from '../hub/protocol.js';
import { HubBackend } from './hub-backend.js';
import { localHubPort } from './local-hub.js';
import { patchWorkerConstructor, listenForParentPorts, portFromParent } from './worker-ports.js';

const PARENT_TIMEOUT = 3000;

export function contextKind(scope = globalThis) {
  if (typeof scope.DedicatedWorkerGlobalScope === 'function' && scope instanceof scope.DedicatedWorkerGlobalScope) return 'dedicated-worker';
  if (typeof scope.SharedWorkerGlobalScope === 'function' && scope instanceof scope.SharedWorkerGlobalScope) return 'shared-worker';
  if (typeof scope.ServiceWorkerGlobalScope === 'function' && scope instanceof scope.ServiceWorkerGlobalScope) return 'service-worker';
  if (typeof scope.Window === 'function' && scope instanceof scope.Window) return 'window';
  return 'other';
}

/**
 * The backend for this context. Options: hubUrl (the hub script), forceLocal (skip the hub: tests,
 * or apps that want per-context locks), scope (the global, for tests).
 */
export function createContextBackend({ hubUrl, forceLocal = false, scope = globalThis } = {}) {
  const kind = contextKind(scope);
  let backend;
  let connect;
  if (forceLocal) {
    connect = () => localHubPort('asked for an in-context engine');
  } else if (typeof scope.SharedWorker === 'function') {
    connect = () => sharedWorkerPort(scope, hubUrl, backend);
  } else if (kind === 'dedicated-worker') {
    listenForParentPorts(scope);
    connect = () => portFromParent(scope, PARENT_TIMEOUT).catch((error) =>
      localHubPort(`no port to the lock hub (${error.message})`));
  } else {
    connect = () => localHubPort(`no SharedWorker in this ${kind} context`);
  }
  // Contexts of the origin-wide hub hear its announcements (the fallback's hub is not origin-wide).
  const viaHub = !forceLocal && (typeof scope.SharedWorker === 'function' || kind === 'dedicated-worker');
  const announcements = viaHub && typeof scope.BroadcastChannel === 'function' ? new scope.BroadcastChannel(HUB_NAME) : null;
  backend = new HubBackend(connect, { announcements });
  patchWorkerConstructor(scope, backend);
  if (kind === 'dedicated-worker' && typeof scope.close === 'function') {
    // A worker that closes itself exits cleanly: say bye first, as a page does on pagehide.
    const nativeClose = scope.close;
    scope.close = function close() {
      backend.pageHidden(false);
      return nativeClose.call(this);
    };
  }
  if (kind === 'window') {
    scope.addEventListener('pagehide', (event) => backend.pageHidden(event.persisted));
    scope.addEventListener('pageshow', (event) => { if (event.persisted) backend.pageShown(); });
  }
  return backend;
}

function sharedWorkerPort(scope, hubUrl, backend) {
  if (hubUrl === undefined) throw new DOMException('No hub URL: set globalThis.WEBLOCKS_HUB_URL before the polyfill runs (its source was injected inline).', 'NotSupportedError');
  const worker = new scope.SharedWorker(hubUrl, { name: HUB_NAME });
  worker.addEventListener('error', () => {
    // The script did not start: a wrong URL, or a browser that refuses SharedWorkers here (e.g.
    // Chromium in cross-site iframes when third-party storage is blocked). Locks keep working,
    // shared with this context's own workers only; the console says so.
    if (backend.hubId !== null) return;
    backend.switchTo(() => localHubPort(`the lock hub ${hubUrl} could not start in this context`));
  });
  return worker.port;
}

/** A LockManager for this context, on its backend. */
export function createContextLocks(options) {
  const backend = createContextBackend(options);
  return { backend, locks: createLockManager(backend) };
}

let shared = null;

/** The one LockManager of this context (the polyfill and the ponyfill share it). */
export function contextLocks(options) {
  if (shared === null) shared = createContextLocks(options);
  return shared;
}
