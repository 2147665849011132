// `weblocks-wasm/test-setup`: a setup file for test runners (jest `setupFiles`, vitest
// `setupFiles`), run before every test file:
// - navigator.locks is installed in this test file's environment (again for each file: a runner
//   that reuses modules across files, vitest with isolate: false, still gives each its own window;
//   happy-dom's windows share one Navigator class: js/api/navigator-locks.js). A built-in one
//   (Node 24, 26) is replaced without a warning: this setup file is an explicit choice, as the
//   register preload is;
// - the thread gets a new, empty lock space (resetLockSpace), so a lock or request a previous file
//   left behind in this thread cannot reach this one; Workers this file creates share its space;
// - a pending request does not keep the thread alive: the runner decides when it exits.
// Export conditions: only "default", so a DOM environment's "browser" condition still loads this.
import { install } from './install.js';
import { resetLockSpace } from './thread-locks.js';
import { setPendingKeepsAlive } from './keep-alive.js';

setPendingKeepsAlive(false);
resetLockSpace();
install({ force: true });

export { install, resetLockSpace };
