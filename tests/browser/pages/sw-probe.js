// A service worker that loads the polyfill (?require sets WEBLOCKS_REQUIRE_HUB first) and answers
// each message with its locks attribute, the outcome of a request and of observeLocks (deploy.spec.js).
if (new URL(self.location.href).searchParams.has('require')) self.WEBLOCKS_REQUIRE_HUB = true;
importScripts('./remove-native.js', '/build/dist/weblocks-polyfill.js', './idl-probe.js');
self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));
self.addEventListener('message', (event) => {
  event.waitUntil((async () => {
    let request;
    try {
      request = { ok: true, value: await navigator.locks.request('sw', { ifAvailable: true }, (lock) => lock !== null) };
    } catch (error) {
      request = { ok: false, name: error.name, message: error.message };
    }
    // observeLocks (not with ?require: no engine here then): its client was loaded as the polyfill
    // installed, since a service worker may load scripts only then.
    const observe = request.ok ? await new Promise((resolve) => {
      self.addEventListener('error', (e) => resolve({ ok: false, message: e.message }), { once: true });
      let stop = null;
      stop = self[Symbol.for('weblocks-wasm.observeLocks')]((snapshot) => { stop(); resolve({ ok: true, held: snapshot.held.length }); }, { names: ['sw-observed'] });
    }) : null;
    event.source.postMessage({ idl: self.idlProbe(), request, observe });
  })());
});
