// The Node contenders, loadable in the main thread and in worker threads alike:
//   native       Node 24's built-in navigator.locks
//   ours         this project's Node host (js/node/index.js), Node 24's built-in removed first
//   web-locks    the npm package web-locks (worker_threads; the main thread relays its messages)
//   async-mutex  the npm package async-mutex: one Mutex per name, in-thread only (the lower bound)
//   bare         no lock at all (the 'worker-first-grant' scenario's baseline: a worker that takes none)
// Each returns { locks, attachWorker?(worker), capabilities }.
import { createRequire } from 'node:module';
import { mutexLocks } from '../lib/workloads.mjs';

const require = createRequire(import.meta.url);

/** Removes Node 24's built-in navigator.locks so nothing can reach it by accident. */
function removeNativeLocks() {
  if (typeof navigator === 'undefined') return;
  const proto = Object.getPrototypeOf(navigator);
  if (Object.getOwnPropertyDescriptor(proto, 'locks')) delete proto.locks;
  if (Object.getOwnPropertyDescriptor(navigator, 'locks')) delete navigator.locks;
}

async function loadOurs() {
  removeNativeLocks();
  const host = await import('../../js/node/index.js');
  const locks = host.locks ?? host.default?.locks;
  if (!locks || typeof locks.request !== 'function') throw new Error('js/node/index.js exports no `locks`');
  return { locks, capabilities: { threads: true, steal: true, query: true } };
}

// Ours with one observer of the whole lock space (observeLocks) that counts the changes it is told:
// the cost of an observed request, next to ours unobserved.
async function loadOursObserved() {
  const ours = await loadOurs();
  const { observeLocks } = await import('../../js/node/index.js');
  let changes = 0;
  // One observer, in the main thread (the benchmark's worker threads load this contender too).
  const { isMainThread } = await import('node:worker_threads');
  if (isMainThread) observeLocks((snapshot, told) => { changes += told.length; });
  return { ...ours, changesSeen: () => changes };
}

function loadNative() {
  if (typeof navigator === 'undefined' || typeof navigator.locks?.request !== 'function') {
    throw new Error(`this Node (${process.version}) has no built-in navigator.locks`);
  }
  return { locks: navigator.locks, capabilities: { threads: true, steal: true, query: true } };
}

function loadWebLocks() {
  const { locks } = require('web-locks');
  return {
    // Its callbacks must return promises (it calls handler(lock).then); wrap so every bench callback works.
    locks: { request: (name, ...rest) => {
      const callback = rest.pop();
      const options = rest[0] ?? {};
      if (options.steal || options.ifAvailable) throw new Error('web-locks has no steal / ifAvailable');
      return locks.request(name, options, async (lock) => callback(lock));
    } },
    attachWorker: (worker) => locks.attach(worker),
    capabilities: { threads: true, steal: false, query: false },
  };
}

function loadAsyncMutex() {
  const { Mutex } = require('async-mutex');
  return { locks: mutexLocks(Mutex), capabilities: { threads: false, steal: false, query: false } };
}

export async function loadImpl(name) {
  switch (name) {
    case 'native': return loadNative();
    case 'ours': return loadOurs();
    case 'ours-observed': return loadOursObserved();
    case 'web-locks': return loadWebLocks();
    case 'async-mutex': return loadAsyncMutex();
    case 'bare': return { locks: null, capabilities: { threads: true, steal: false, query: false } };
    default: throw new Error(`unknown contender ${name}`);
  }
}
