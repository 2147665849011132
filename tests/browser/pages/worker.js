// A dedicated worker as app code writes it: native Web Locks removed (tests only), the classic
// polyfill loaded with importScripts(), then the harness.
importScripts('./remove-native.js', '/build/dist/weblocks-polyfill.js', './harness.js');
