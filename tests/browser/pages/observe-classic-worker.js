// observe-worker.js in a classic dedicated worker: the polyfill and the observeLocks client come by importScripts().
importScripts('./remove-native.js', '/build/dist/weblocks-polyfill.js', './observe-worker.js');
