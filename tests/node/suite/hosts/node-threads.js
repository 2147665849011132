// The Node host across threads as a suite host: the suite's context is the main thread's
// navigator.locks, installed by the package's preload (which removes a built-in one, as Node 24's);
// every other context is a worker thread running thread-agent.js, which does the same. The
// workers are of one kind (worker-kinds.js): Bun and Deno run the suite with each kind they have.
import '../../../../js/node/register.js';
import { observeLocks } from '../../../../js/node/index.js';
import { relayedContext } from './relay.js';
import { startWorker } from './worker-kinds.js';

const locks = globalThis.navigator.locks;

const agentUrl = new URL('./thread-agent.js', import.meta.url);
const loneWaiterUrl = new URL('./lone-waiter.js', import.meta.url);

function openThread(kind) {
  const worker = startWorker(kind, agentUrl, { kind });
  return relayedContext({ post: worker.post, listen: worker.onMessage, exited: worker.exited, stop: worker.terminate });
}

/**
 * kind: 'default' | 'named' | 'web' (worker-kinds.js); name: how the runner calls this host;
 * webidl: false leaves out the suite's argument cases (cases/webidl.js).
 */
export function createNodeThreadsHost({ asyncContext, kind = 'default', name = 'Node threads', webidl = true } = {}) {
  return {
    name,
    webidl,
    locks,
    endings: ['close', 'terminate', 'crash', 'exit'],
    pendingKeepsAlive: true, // a thread with a pending request does not end by 'close'
    asyncContext,
    deadlockDetection: true,
    observeLocks,
    openContext: () => openThread(kind),
    startLoneWaiter(lockName) {
      const worker = startWorker(kind, loneWaiterUrl, { name: lockName });
      const messages = [];
      let provedAlive;
      let endedEarly;
      const aliveWhilePending = new Promise((resolve, reject) => { provedAlive = resolve; endedEarly = reject; });
      worker.onMessage((message) => {
        messages.push(message);
        if (message === 'alive while pending') provedAlive();
      });
      const outcome = worker.exited.then((code) => {
        endedEarly(new Error(`the thread ended (code ${code}) before proving it was alive: ${messages.join(', ')}`));
        // (A Web Worker that ends by itself gives no exit code: its 'close' is the proof.)
        return { granted: messages.includes('granted'), exitedByItself: code === 0 || (kind === 'web' && code === null) };
      });
      return { aliveWhilePending, outcome };
    },
    async runStress(config) {
      const threads = await Promise.all(Array.from({ length: config.contexts }, () => openThread(kind)));
      const logs = await Promise.all(threads.map((thread, i) => thread.stress({
        shared: config.shared, names: config.names, requests: config.requests, seed: config.seed + i,
      })));
      await Promise.all(threads.map((thread) => thread.end('close')));
      return logs;
    },
  };
}
