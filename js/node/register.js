// `node --import weblocks-wasm/register app.js` (or `--require weblocks-wasm/register`): every thread
// of the process gets navigator.locks on one lock space. Node runs --import and --require preloads
// in worker threads too, nested ones included; for eval workers, where it runs only --require
// preloads, the --import preload adds its --require entry (eval-worker-preload.js). A preload is an
// explicit choice, so it replaces a built-in navigator.locks too (Node 24's is per-thread: it
// cannot see, steal from or outlive locks of other threads).
import { install } from './install.js';
import { preloadInWorkers } from './eval-worker-preload.js';

install({ force: true });
preloadInWorkers();
