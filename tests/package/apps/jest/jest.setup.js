// Loaded as an ES module (jest --experimental-vm-modules): jest's own require() cannot load ES modules.
import 'weblocks-wasm/polyfill';
