// The Node polyfill: navigator.locks (and the LockManager/Lock globals) where they are missing.
// Node 20 has no navigator: one is created. A built-in navigator.locks is replaced where it
// is known not to conform across threads (Node 24 and 26: js/node/builtin-policy.js), saying so
// once; WEBLOCKS_KEEP_BUILTIN=1 (or globalThis.WEBLOCKS_FORCE = false before the import) keeps it,
// install({ force: true }) (or globalThis.WEBLOCKS_FORCE = true) replaces any built-in. Where a
// built-in is kept, the engine is not started. Same shape as the browser polyfill.
import { install } from './install.js';

install();

/** navigator.locks after installation: the polyfill's, or the built-in it left in place. */
export const locks = globalThis.navigator.locks;

export { install };
