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

// An idle client keeps no process running (as nothing of Node's own would): the connection is
// unref'd, and a timer holds the process while anything waits on the server. (With the runtime's
// own WebSocket, which cannot be unref'd, an open connection keeps the process running: close().)
function nodeHost() {
  let timer = null;
  return {
    opened(socket) {
      // ws makes its TCP socket at construction, as the request of the upgrade.
      const unref = () => socket._socket?.unref?.();
      socket._req?.on?.('socket', (tcp) => tcp.unref?.());
      socket.on?.('open', unref);
    },
    busy(busy) {
      // One timer, ref'd while busy: cheaper than a new one per request (Deno's timers are
      // numbers, without ref(): a new one each time there).
      if (timer !== null && typeof timer.ref === 'function') {
        if (busy) timer.ref();
        else timer.unref();
      } else if (busy && timer === null) {
        timer = setInterval(() => {}, 0x7fffffff);
      } else if (!busy && timer !== null) {
        clearInterval(timer);
        timer = null;
      }
    },
  };
}

/** A LockManager whose lock space is the lock server's at `url` (ws: or wss:). */
export function createLockManager(options) {
  return createRemoteLockManager(options, nodeSocket, nodeHost());
}

export { lockHeaders };
