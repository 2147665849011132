// A bare dedicated worker (no polyfill, nothing removed): what the browser offers on this origin.
postMessage({
  isSecureContext: self.isSecureContext,
  navigatorLocks: 'locks' in navigator,
  LockManager: typeof self.LockManager,
});
