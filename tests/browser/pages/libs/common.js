// What the real-library pages share (ES module, in windows and workers): a clock comparable
// across contexts, a counter in IndexedDB that every tab and worker of the origin sees (each
// read and each write is its own committed transaction, so a read-modify-write outside a lock
// loses updates), and the probe that proves the origin has no native Web Locks.
export const clock = () => performance.timeOrigin + performance.now();

function openDatabase() {
  return new Promise((resolve, reject) => {
    const open = indexedDB.open('weblocks-libs-tests', 1);
    open.onupgradeneeded = () => open.result.createObjectStore('counters');
    open.onsuccess = () => resolve(open.result);
    open.onerror = () => reject(open.error);
  });
}
let database = null;
const db = () => (database ??= openDatabase());

function transact(mode, work) {
  return db().then((d) => new Promise((resolve, reject) => {
    const tx = d.transaction('counters', mode);
    let value;
    const request = work(tx.objectStore('counters'));
    request.onsuccess = () => { value = request.result; };
    tx.oncomplete = () => resolve(value);
    tx.onerror = () => reject(tx.error);
    tx.onabort = () => reject(tx.error);
  }));
}

export const counter = {
  read: (key) => transact('readonly', (store) => store.get(key)).then((v) => v ?? 0),
  write: (key, value) => transact('readwrite', (store) => store.put(value, key)),
};

/** One task turn: the gap in which another context's read-modify-write could interleave. */
export function yieldTask() {
  // A message to itself, not setTimeout: background tabs throttle timers (to 1 s in Firefox).
  return new Promise((resolve) => { const { port1, port2 } = new MessageChannel(); port1.onmessage = () => { port1.close(); resolve(); }; port2.postMessage(null); });
}

/**
 * Whether this origin is a secure context and has native Web Locks, seen from a dedicated worker
 * that loads nothing (the windows' native API is removed by the test fixtures before any script,
 * so only a bare context can show what the browser itself offers here).
 */
export function probeNative() {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./native-probe.js', import.meta.url));
    worker.onmessage = (event) => { worker.terminate(); resolve({ window: { isSecureContext: self.isSecureContext }, bareWorker: event.data }); };
    worker.onerror = (event) => { worker.terminate(); reject(new Error(`native probe failed: ${event.message}`)); };
  });
}
