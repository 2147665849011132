// Type-checked by `npx tsc -p tsconfig.json`: the etcd lock space as users write it.
import { createLockManager, closeLockManager, Lock, type FencedLock, type EtcdLockManager } from 'weblocks-wasm/etcd';
import 'weblocks-wasm/register-etcd';

async function usage(): Promise<void> {
  const locks: EtcdLockManager = createLockManager({ etcd: { hosts: ['http://127.0.0.1:2379'], leaseTtl: 5, keepAliveInterval: 1000 } });
  const token: number | undefined = await locks.request('resource', async (lock) => lock?.fencingToken);
  const fenced: FencedLock | null = await locks.request('resource', { ifAvailable: true }, (lock) => lock);
  const plain: Lock | null = fenced;
  await closeLockManager(locks);
  // @ts-expect-error the endpoints are required
  createLockManager({ etcd: {} });
  // @ts-expect-error the callback gets FencedLock | null
  await locks.request('resource', (lock) => lock.fencingToken);
  void [token, plain];
}
void usage;
