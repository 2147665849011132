// Node CommonJS TypeScript user (.cts, module nodenext): require() of the package and its polyfill.
import weblocks = require('weblocks-wasm');
import polyfill = require('weblocks-wasm/polyfill');

const installed: weblocks.LockManager | null = polyfill.install();
void navigator.locks.request('x', (lock) => lock?.name);
void weblocks.locks.request('x', { ifAvailable: true }, (lock) => lock === null);
void installed;
