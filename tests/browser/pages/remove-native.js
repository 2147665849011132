// Tests run against the polyfill, never the browser's own Web Locks: remove the native API from
// this context first (windows get this as an init script, workers load it before the polyfill).
(function removeNativeWebLocks(scope) {
  for (const name of ['Navigator', 'WorkerNavigator']) {
    const proto = scope[name] && scope[name].prototype;
    if (proto && Object.getOwnPropertyDescriptor(proto, 'locks')) delete proto.locks;
  }
  delete scope.LockManager;
  delete scope.Lock;
})(self);
