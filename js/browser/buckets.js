// Beyond native Web Locks: where the browser has Storage Buckets (navigator.storageBuckets,
// Chromium, secure contexts), `StorageBucket.prototype.locks` is a LockManager of a lock space per
// bucket, separate from navigator.locks' and from every other bucket's, shared by every context of
// the origin (tabs and workers) that opens a bucket of that name. Each space has a hub of its own
// (a SharedWorker named after the bucket), so the hub and its protocol stay unchanged.
import { isBucketName } from './worker-ports.js';

/** Defines StorageBucket.prototype.locks where StorageBucket exists; `locksOf(name)` gives a space's LockManager. */
export function installBucketLocks(scope, locksOf) {
  const StorageBucket = scope.StorageBucket;
  if (typeof StorageBucket !== 'function' || Object.getOwnPropertyDescriptor(StorageBucket.prototype, 'locks') !== undefined) return;
  const nameOf = Object.getOwnPropertyDescriptor(StorageBucket.prototype, 'name')?.get;
  if (typeof nameOf !== 'function') return;
  const { get } = Object.getOwnPropertyDescriptor({
    get locks() {
      // The native name getter refuses anything but a StorageBucket (TypeError: Illegal invocation).
      const name = nameOf.call(this);
      if (!isBucketName(name)) throw new TypeError(`Illegal invocation: not a storage bucket name: ${name}`);
      return locksOf(name);
    },
  }, 'locks');
  Object.defineProperty(StorageBucket.prototype, 'locks', { get, set: undefined, enumerable: true, configurable: true });
}
