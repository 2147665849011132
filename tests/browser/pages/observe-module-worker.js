// observe-worker.js in a module dedicated worker: the classic polyfill is imported as a module, and
// the observeLocks client comes by import() (a module worker refuses importScripts()).
import './remove-native.js';
import '/build/dist/weblocks-polyfill-sync.js';
import './observe-worker.js';
