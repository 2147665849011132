// "weblocks-wasm/remote" under Node (and Bun and Deno, which resolve the "node" condition):
// the `ws` package when installed (Node 20 has no global WebSocket), else the runtime's own.
import { createRemoteLockManager, lockHeaders } from './manager.js';

let socketClass = null;
function nodeSocket() {
  socketClass ??= import('ws').then((ws) => ws.WebSocket ?? ws.default, () => {
    if (typeof globalThis.WebSocket === 'function') return globalThis.WebSocket;
    throw new DOMException("weblocks-wasm/remote needs the 'ws' package on this runtime (no global WebSocket): npm install ws", 'NotSupportedError');
  });
  return socketClass;
}

/** A LockManager whose lock space is the lock server's at `url` (ws: or wss:). */
export function createLockManager(options) {
  return createRemoteLockManager(options, nodeSocket);
}

export { lockHeaders };
