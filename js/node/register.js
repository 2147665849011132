// `node --import weblocks-wasm/register app.js`: every thread of the process (Node runs --import
// preloads in worker threads too, nested ones included) gets navigator.locks on one lock space.
// A preload is an explicit choice, so it replaces a built-in navigator.locks too (Node 24's is
// per-thread: it cannot see, steal from or outlive locks of other threads).
import { install } from './install.js';

install({ force: true });
