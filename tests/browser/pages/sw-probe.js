// A service worker that loads the polyfill (?require sets WEBLOCKS_REQUIRE_HUB first) and answers
// each message with its locks attribute and the outcome of a request (deploy.spec.js).
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
    event.source.postMessage({ idl: self.idlProbe(), request });
  })());
});
