// Installs one contender as navigator.locks in a page or a dedicated worker:
//   native              Chromium's own navigator.locks
//   ours                this project's hub (SharedWorker), native removed first
//   navigator.locks     npm package (localStorage + storage events; pages only)
//   web-locks-polyfill  npm package (localStorage polling every 20 ms; pages only, request only)
//   async-mutex         npm package, one Mutex per name: this context alone (the in-context lower bound)
// Returns the LockManager-like object to benchmark.
import { mutexLocks } from '../lib/workloads.mjs';

export function removeNativeLocks() {
  for (const proto of [globalThis.Navigator?.prototype, globalThis.WorkerNavigator?.prototype]) {
    if (proto && Object.getOwnPropertyDescriptor(proto, 'locks')) delete proto.locks;
  }
}

function loadClassicScript(src) {
  return new Promise((resolve, reject) => {
    const script = document.createElement('script');
    script.src = src;
    script.onload = resolve;
    script.onerror = () => reject(new Error(`cannot load ${src}`));
    document.head.append(script);
  });
}

async function asyncMutexLocks() {
  const { Mutex } = await import('/node_modules/async-mutex/index.mjs');
  return mutexLocks(Mutex);
}

export async function installContender(impl) {
  switch (impl) {
    case 'native':
      if (typeof navigator.locks?.request !== 'function') throw new Error('no native navigator.locks here');
      return navigator.locks;
    case 'ours': {
      removeNativeLocks();
      const { installOurs } = await import('./ours.mjs');
      return installOurs();
    }
    case 'navigator.locks':
      removeNativeLocks();
      await loadClassicScript('/node_modules/navigator.locks/dist/index.umd.js');
      return navigator.locks;
    case 'web-locks-polyfill':
      removeNativeLocks();
      await import('/node_modules/web-locks-polyfill/web-locks-polyfill.js');
      // It calls callback(lock).then(...): a callback that returns no promise throws inside it, so wrap.
      return { request: (name, callback) => navigator.locks.request(name, async (lock) => callback(lock)) };
    case 'async-mutex':
      return asyncMutexLocks();
    default:
      throw new Error(`unknown contender ${impl}`);
  }
}
