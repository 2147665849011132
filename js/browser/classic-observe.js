// Entry of the observeLocks client bundle (build/dist/weblocks-observe.js): the classic polyfill
// loads it, next to the hub, on a context's first observeLocks() call (js/browser/observe-client.js).
import { observeSource } from '../api/observe-locks.js';
import { OBSERVE_KEY } from './observe-key.js';

globalThis[OBSERVE_KEY] = observeSource;
