// `WEBLOCKS_ETCD_ENDPOINTS=http://10.0.0.1:2379,... node --import weblocks-wasm/register-etcd app.js`:
// navigator.locks (in every thread: Node runs --import preloads in workers too) on the etcd lock
// space. Each thread is its own client (own clientId and lease). Replaces any built-in navigator.locks.
// Optional: WEBLOCKS_ETCD_NAMESPACE, WEBLOCKS_ETCD_LEASE_TTL (s), WEBLOCKS_ETCD_KEEPALIVE_MS.
import { createEtcdLockManager, LockManager, Lock } from './index.js';
import { etcdOptionsFromEnv } from './options.js';

// (observeLocks(navigator.locks, callback) of weblocks-wasm/etcd observes it; navigator.locks has no extra member.)
const locks = createEtcdLockManager({ etcd: etcdOptionsFromEnv() }, { ownMethod: false });

if (typeof globalThis.navigator !== 'object' || globalThis.navigator === null) {
  Object.defineProperty(globalThis, 'navigator', {
    value: Object.create(Object.prototype, { [Symbol.toStringTag]: { value: 'Navigator', configurable: true } }),
    writable: true, configurable: true, enumerable: false,
  });
}
for (let proto = Object.getPrototypeOf(globalThis.navigator); proto !== null; proto = Object.getPrototypeOf(proto)) {
  const desc = Object.getOwnPropertyDescriptor(proto, 'locks');
  if (desc !== undefined && desc.configurable) delete proto.locks;
}
Object.defineProperty(globalThis.navigator, 'locks', { value: locks, writable: false, enumerable: true, configurable: true });
for (const [name, value] of [['LockManager', LockManager], ['Lock', Lock]]) {
  Object.defineProperty(globalThis, name, { value, writable: true, enumerable: false, configurable: true });
}
