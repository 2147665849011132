// A dedicated worker that loads the polyfill and reports its locks attribute (deploy.spec.js).
importScripts('./remove-native.js', '/build/dist/weblocks-polyfill.js', './idl-probe.js');
self.postMessage(self.idlProbe());
