// The page's first line after the loader (loader.html): requests, a query and a worker made before
// the rest of the polyfill can have loaded, and what each comes to (loader.spec.js reads them).
// A classic script right after the classic loader, or a module script right after the module one.
const installed = Symbol.for('weblocks-wasm.installed');
const native = window.isSecureContext;
window.firstLine = {
  secure: window.isSecureContext,
  // The rest has not loaded yet: navigator.locks is the loader's pending LockManager.
  pending: navigator.locks === window[Symbol.for('weblocks-wasm.pending')] && window[installed] === undefined,
};
window.order = [];
let releaseA = null;
const heldA = new Promise((resolve) => {
  window.outcomeA = navigator.locks.request('x', () => {
    window.order.push('A');
    resolve();
    return new Promise((release) => { releaseA = release; });
  }).then((value) => `A ${value}`, (error) => `A ${error.name}: ${error.message}`);
});
window.outcomeB = navigator.locks.request('x', () => { window.order.push('B'); return 'done'; })
  .then((value) => `B ${value}`, (error) => `B ${error.name}: ${error.message}`);
window.outcomeIfAvailable = navigator.locks.request('x', { ifAvailable: true }, (lock) => (lock === null ? 'not available' : 'granted'))
  .then((value) => value, (error) => `${error.name}: ${error.message}`);
window.snapshot = navigator.locks.query().then((s) => ({
  held: s.held.map((info) => `${info.name} ${info.mode}`),
  pending: s.pending.map((info) => `${info.name} ${info.mode}`),
}), (error) => `${error.name}: ${error.message}`);
// A worker created and terminated before the rest has loaded: the rest, as it takes over the
// Worker patch, learns of it (and gives it no port) without failing anything below.
if (!native) new Worker('./loader-worker.js', { name: 'gone' }).terminate();
// A worker created now shares the lock space: once A is held, its ifAvailable request for 'x' is refused.
const worker = native ? null : new Worker('./loader-worker.js');
window.workerSaw = worker === null ? null : new Promise((resolve) => {
  worker.onmessage = (event) => resolve(event.data);
  worker.onerror = (event) => resolve(`worker error: ${event.message}`);
});
window.afterA = heldA.then(() => { if (worker !== null) worker.postMessage('try x'); });
window.releaseA = () => releaseA();
window.isInstalled = () => navigator.locks === window[installed];
