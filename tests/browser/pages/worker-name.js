// A dedicated worker that loads the polyfill and reports its name, as app code reads it.
importScripts('./remove-native.js', '/build/dist/weblocks-polyfill.js');
postMessage([self.name, name]);
