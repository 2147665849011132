// The page's client, bundled by esbuild (the package's default condition: the page's WebSocket).
import { createLockManager } from 'weblocks-wasm/remote';

const locks = createLockManager({ url: '/locks' });
window.take = (name) => new Promise((granted) => {
  locks.request(name, (lock) => { granted(lock.fencingToken); return new Promise((resolve) => { window.release = resolve; }); });
});
window.tryTake = (name) => locks.request(name, { ifAvailable: true }, (lock) => (lock === null ? 'held elsewhere' : 'granted'));
window.appReady = true;
