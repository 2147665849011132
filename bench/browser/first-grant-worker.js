// A dedicated worker that takes a lock as it starts (bench/browser/first-grant.html): posts the ms
// from request() to the callback.
const impl = new URL(self.location.href).searchParams.get('impl');
if (impl === 'ours') importScripts('/build/dist/weblocks-polyfill.js');
if (impl === 'floor') importScripts('/bench/browser/floor-client.js');
const start = performance.now();
navigator.locks.request(`first-${Math.random()}`, () => self.postMessage(performance.now() - start));
