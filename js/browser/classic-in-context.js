// Entry of the in-context fallback bundle (build/dist/weblocks-in-context.js): it hands the
// context's polyfill (js/browser/local-hub.js) the means to start a hub in this context.
import { startInContextHub } from './in-context-hub.js';
import { IN_CONTEXT_KEY } from './in-context-key.js';

globalThis[IN_CONTEXT_KEY] = startInContextHub;
