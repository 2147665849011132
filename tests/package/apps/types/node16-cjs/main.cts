// Node CommonJS TypeScript user on module node16 (no require of ES modules): the .d.cts declarations.
import weblocks = require('weblocks-wasm');
import polyfill = require('weblocks-wasm/polyfill');

const installed: weblocks.LockManager | null = polyfill.install();
void navigator.locks.request('x', (lock) => lock?.name);
void weblocks.locks.request('x', { ifAvailable: true }, (lock) => lock === null);
void installed;
