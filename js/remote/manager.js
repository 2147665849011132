// createLockManager({ url }) on a WebSocket class the host gives (index.js: the global one;
// node.js: the `ws` package where Node has no global WebSocket), and lockHeaders(lock).
import { createLockManager as lockManagerOn } from '../api/lock-manager.js';
import { createObserveLocks } from '../api/observable-lock-manager.js';
import { HEADERS } from './protocol.js';
import { RemoteBackend } from './client-backend.js';

/** ws:/wss: as given; http(s): and relative URLs against the page (where there is one). */
export function socketUrl(url) {
  const base = globalThis.location?.href;
  let parsed;
  try {
    parsed = base === undefined ? new URL(String(url)) : new URL(String(url), base);
  } catch {
    throw new TypeError(`createLockManager: ${JSON.stringify(String(url))} is not a URL${base === undefined ? ' (outside a page it must be absolute: ws: or wss:)' : ''}.`);
  }
  if (parsed.protocol === 'http:') parsed.protocol = 'ws:';
  else if (parsed.protocol === 'https:') parsed.protocol = 'wss:';
  if (parsed.protocol !== 'ws:' && parsed.protocol !== 'wss:') {
    throw new TypeError(`createLockManager: the lock server's URL must be ws:, wss:, http: or https: (got ${parsed.protocol}).`);
  }
  parsed.hash = '';
  return parsed.href;
}

export function createRemoteLockManager(options, socketClass, host) {
  if (options === null || typeof options !== 'object') throw new TypeError('createLockManager({ url }): options are required.');
  if (options.deadlock !== undefined && options.deadlock !== 'reject' && options.deadlock !== 'report') {
    throw new TypeError(`createLockManager: 'deadlock' is 'reject' or 'report' (got ${String(options.deadlock)}).`);
  }
  const backend = new RemoteBackend(socketUrl(options.url), socketClass, host, options);
  const locks = lockManagerOn(backend);
  Object.defineProperty(locks, 'observeLocks', { value: createObserveLocks(backend), writable: true, configurable: true });
  Object.defineProperty(locks, 'close', { value: () => backend.close(), writable: true, configurable: true });
  return locks;
}

/**
 * The HTTP headers that carry `lock` to the app's own endpoints, where lockServer.fence(req)
 * checks them. The name is URI-encoded (headers are ASCII).
 */
export function lockHeaders(lock) {
  const token = lock?.fencingToken;
  if (typeof token !== 'number') throw new TypeError('lockHeaders(lock): a Lock granted by a remote lock manager (it has a fencingToken) is required.');
  return {
    [HEADERS.name]: encodeURIComponent(lock.name),
    [HEADERS.mode]: lock.mode,
    [HEADERS.fencingToken]: String(token),
  };
}
