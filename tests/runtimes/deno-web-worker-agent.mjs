// The Web Worker of deno-web-worker.mjs: asks, without waiting, for the lock the main thread holds.
import { locks } from '../../js/node/index.js';

try {
  const granted = await locks.request('web-worker-space', { ifAvailable: true }, (lock) => lock !== null);
  postMessage({ granted, error: null });
} catch (error) {
  postMessage({ granted: false, error: { name: error.name, code: error.code, message: error.message } });
}
