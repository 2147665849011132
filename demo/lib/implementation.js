// Chooses the navigator.locks this demo runs on, and describes it honestly.
// ?impl=native   the browser's own (an error where it has none, e.g. on plain http:// off localhost)
// ?impl=polyfill this project's polyfill, even where the browser has native locks
// ?impl=remote   the demo server's lock server (weblocks-wasm/remote): one lock space for every
//                browser and device that opens the demo (docs/remote.md)
// (no parameter)  native where present, else the polyfill
// Workers get the same choice through their script URL, so that every context of the demo uses
// the same lock space: native locks and the polyfill's hub are two separate lock spaces.
export function requestedImplementation(search = globalThis.location.search) {
  const value = new URLSearchParams(search).get('impl');
  return value === 'native' || value === 'polyfill' || value === 'remote' ? value : 'auto';
}

/** Where scripts/serve.mjs mounts the demo's lock server. */
export const REMOTE_LOCKS_PATH = '/demo/locks';

/** The browser's engine, for the names of remote contexts ("Firefox 2"): the timeline shows who holds what. */
export function browserName(userAgent = globalThis.navigator?.userAgent ?? '') {
  if (/Firefox\//.test(userAgent)) return 'Firefox';
  if (/Edg\//.test(userAgent)) return 'Edge';
  if (/Chrom(e|ium)\//.test(userAgent)) return 'Chromium';
  if (/Safari\//.test(userAgent) || /AppleWebKit\//.test(userAgent)) return 'WebKit';
  return 'Browser';
}

function nativeLocks() {
  const locks = globalThis.navigator?.locks;
  return locks && typeof locks.request === 'function' ? locks : null;
}

/**
 * -> { locks, describe }: describe() returns the implementation's facts now (the polyfill's hub
 * connection can change: it connects, it may be lost and found again).
 */
export async function selectLocks(requested) {
  const native = nativeLocks();
  const base = { crossOriginIsolated: Boolean(globalThis.crossOriginIsolated), nativeAvailable: Boolean(native) };
  if (requested === 'remote') {
    const { createLockManager } = await import('../../js/remote/index.js');
    const locks = createLockManager({ url: REMOTE_LOCKS_PATH });
    return { locks, describe: () => ({ ...base, kind: 'remote', browser: browserName() }) };
  }
  if (requested === 'native' || (requested === 'auto' && native)) {
    if (!native) throw new Error('this browser offers no native navigator.locks here (it needs a secure context)');
    return { locks: native, describe: () => ({ ...base, kind: 'native' }) };
  }
  const { locks, backend } = await loadPolyfill();
  return { locks, describe: () => ({ ...base, kind: 'polyfill', ...describeHub(backend) }) };
}

async function loadPolyfill() {
  // The whole polyfill at once (not the loader): the status line reads its connection right after.
  const polyfill = await import('../../js/browser/polyfill-sync.js'); // installs itself only where native is missing
  const locks = polyfill.install({ force: true }); // the switch: replace a native one too
  // The polyfill's connection to its hub, for the status line (the same module instance the
  // polyfill uses; read-only, and every field is optional so a change there shows as "unknown").
  const { contextLocks } = await import('../../js/browser/context.js');
  return { locks, backend: contextLocks().backend };
}

function describeHub(backend) {
  if (!backend) return { hub: 'unknown' };
  if (backend.failure) return { hub: `failed: ${backend.failure.name}: ${backend.failure.message}` };
  const hubId = backend.hubId;
  if (hubId === null || hubId === undefined) return { hub: 'connecting', hubState: 'connecting' };
  const reconnects = backend.stats?.reconnects ?? 0;
  const again = reconnects ? `, reconnected ${reconnects}×` : '';
  if (String(hubId).startsWith('local-')) {
    return { hub: `none reachable: an engine in this context serves it alone${again}`, hubState: 'local' };
  }
  return { hub: `connected (SharedWorker hub ${String(hubId).slice(0, 8)}${again})`, hubState: 'connected' };
}
