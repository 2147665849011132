// A dedicated worker as app code writes it: native Web Locks removed (tests only), the classic
// polyfill loaded with importScripts(), then the harness. `?nosentinel`: the worker has no Worker
// constructor, so the polyfill can start no sentinel for it (as where a policy forbids one).
if (/[?&]nosentinel\b/.test(self.location.search)) self.Worker = undefined;
importScripts('./remove-native.js', '/build/dist/weblocks-polyfill.js', './harness.js');
