// Loads the lock engine for a hub: the shared-memory build where it instantiates, the ordinary
// one otherwise (a hub is the only agent on its memory either way: browsers cannot post shared
// memory to a SharedWorker, so the shared build only matters where that changes).
import { compileEngine, createEngineMemory, attachEngine } from '../engine/index.js';
import { engineWasmUrl } from '../engine/assets.js';

export async function loadHubEngine({ preferShared = true } = {}) {
  // Shared memory needs cross-origin isolation in every browser: a hub without it goes straight to
  // the ordinary build (before, it fetched and compiled the shared one first, on the first grant's path).
  if (preferShared && globalThis.crossOriginIsolated !== false) {
    try {
      const module = await compileEngine({ shared: true, url: engineWasmUrl({ shared: true }) });
      return await attachEngine({ module, memory: createEngineMemory({ shared: true }) });
    } catch (error) {
      console.info(`[weblocks] shared-memory engine unavailable here (${error?.message ?? error}); using the ordinary build`);
    }
  }
  const module = await compileEngine({ shared: false, url: engineWasmUrl({ shared: false }) });
  return attachEngine({ module, memory: createEngineMemory({ shared: false }) });
}
