// The page every bundler builds: the polyfill and the ponyfill, as an app imports them.
import 'weblocks-wasm/polyfill';
import { locks } from 'weblocks-wasm';

window.appReady = navigator.locks.request('app-ready', (lock) => ({
  secure: window.isSecureContext,
  ponyfillIsNavigatorLocks: locks === navigator.locks,
  lockName: lock.name,
}));
