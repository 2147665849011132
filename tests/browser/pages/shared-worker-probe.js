// An app's own shared worker that loads the polyfill: answers each connection with what its
// navigator.locks looks like (the WebIDL attribute checks of deploy.spec.js).
importScripts('./remove-native.js', '/build/dist/weblocks-polyfill.js', './idl-probe.js');
self.onconnect = (event) => event.ports[0].postMessage(self.idlProbe());
