// "weblocks-wasm/remote" in browsers, Bun, Deno and Node 22+: the runtime's own WebSocket.
// docs/remote.md.
import { createRemoteLockManager, lockHeaders } from './manager.js';

const globalSocket = () => (typeof globalThis.WebSocket === 'function'
  ? Promise.resolve(globalThis.WebSocket)
  : Promise.reject(new DOMException('This runtime has no WebSocket.', 'NotSupportedError')));

/** A LockManager whose lock space is the lock server's at `url` (ws:, wss:, or http(s): / relative in a page). */
export function createLockManager(options) {
  return createRemoteLockManager(options, globalSocket);
}

export { lockHeaders };
