// In an opaque origin (a sandboxed iframe without allow-same-origin), tries navigator.locks and
// posts the outcomes to the embedder: the embedder cannot evaluate code in this frame.
(async function reportOpaqueOrigin() {
  const outcome = (promise) => promise.then(
    (value) => ({ ok: true, value: String(value) }),
    (error) => ({ ok: false, name: error && error.name, message: error && error.message }));
  let callbacks = 0;
  const callback = () => { callbacks += 1; return 'called'; };
  const report = {
    origin: self.origin,
    polyfill: navigator.locks !== undefined && navigator.locks === self[Symbol.for('weblocks-wasm.installed')],
    request: await outcome(navigator.locks.request('opaque-frame', callback)),
    ifAvailable: await outcome(navigator.locks.request('opaque-frame', { ifAvailable: true }, callback)),
    // Spec request() step 4 comes before step 5's check of the name.
    reservedName: await outcome(navigator.locks.request('-reserved', callback)),
    query: await outcome(navigator.locks.query()),
  };
  report.callbacks = callbacks;
  parent.postMessage(report, '*');
}());
