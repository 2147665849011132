// "weblocks-wasm/etcd": the same LockManager and Lock on a lock space kept in an etcd cluster,
// shared by every process on every machine pointed at the same cluster and namespace.
//   import { createLockManager } from 'weblocks-wasm/etcd';
//   const locks = createLockManager({ etcd: { hosts: ['http://10.0.0.1:2379', ...] } });
// Granted locks carry a fencing token (lock.fencingToken). See docs/api.md, "The etcd lock space".
import { observableLockManager, createObserveLocks, LockManager, Lock } from '../api/index.js';
import { EtcdBackend } from './etcd-backend.js';
import { connectEtcd, connectEndpoints } from './load-client.js';
import { etcdOptions } from './options.js';

const backends = new WeakMap();

/**
 * A LockManager on etcd. Returned at once; the client (npm "etcd3") loads in the background, and
 * if it is missing every request rejects with an error naming the package to install.
 * @param options { etcd: { hosts, namespace?, leaseTtl?, keepAliveInterval?, callTimeout?, clientId?, etcd3Options? } }
 */
export function createLockManager(options) {
  return createEtcdLockManager(options, { ownMethod: true });
}

/** createLockManager; ownMethod false for navigator.locks (register.js): no member beyond the standard ones. */
export function createEtcdLockManager(options, { ownMethod }) {
  const etcd = etcdOptions(options?.etcd);
  const clientReady = connectEtcd(etcd);
  clientReady.catch(() => {});
  const endpointsReady = clientReady.then(() => connectEndpoints(etcd));
  endpointsReady.catch(() => {});
  const backend = new EtcdBackend(clientReady, { ...etcd, endpointsReady });
  // observeLocks of this lock space: an own method (never on LockManager.prototype or navigator.locks).
  const locks = observableLockManager(backend, { ownMethod });
  backends.set(locks, backend);
  return locks;
}

/**
 * observeLocks(locks, callback, options): the lock space of a lock manager of this module (the
 * same as locks.observeLocks(callback, options)). Deadlocks are not detected on etcd.
 */
export function observeLocks(locks, callback, options) {
  const backend = backends.get(locks);
  if (backend === undefined) throw new TypeError('observeLocks: not a lock manager of weblocks-wasm/etcd');
  return createObserveLocks(backend)(callback, options);
}

/**
 * Ends this lock manager's client: its lease is revoked, so every lock it holds is released and
 * every request it has queued dropped at once (agent termination), and its connections close.
 */
export function closeLockManager(locks) {
  const backend = backends.get(locks);
  if (backend === undefined) return Promise.reject(new TypeError('closeLockManager: not a lock manager of weblocks-wasm/etcd'));
  return backend.close();
}

/** The clientId this lock manager's requests carry in query() (for diagnostics). */
export function clientIdOf(locks) {
  return backends.get(locks)?.clientId;
}

export { LockManager, Lock };
