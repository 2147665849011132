// This project's browser build, as an app uses it: the ES-module ponyfill (js/browser/index.js), whose
// LockManager reaches the origin's hub (build/dist/weblocks-hub.js, a SharedWorker). In a page it also
// wraps `Worker`, so a dedicated worker that loads the ponyfill gets a port to the hub from its page.
export async function installOurs() {
  const { locks } = await import('/js/browser/index.js');
  return locks;
}
