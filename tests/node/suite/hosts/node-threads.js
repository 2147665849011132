// The Node host across threads as a suite host: the suite's context is the main thread's
// navigator.locks, installed by the package's preload (which removes a built-in one, as Node 24's);
// every other context is a worker thread running thread-agent.js, which does the same.
import { Worker } from 'node:worker_threads';
import '../../../../js/node/register.js';
import { relayedContext } from './relay.js';

const locks = globalThis.navigator.locks;

const agentUrl = new URL('./thread-agent.js', import.meta.url);
const loneWaiterUrl = new URL('./lone-waiter.js', import.meta.url);

// (events.once would reject on the 'error' event a crashing thread emits first.)
function exitOf(worker) {
  return new Promise((resolve) => worker.once('exit', resolve));
}

function openThread() {
  const worker = new Worker(agentUrl);
  worker.on('error', () => {}); // the 'crash' ending throws on purpose
  return relayedContext({
    post: (message) => worker.postMessage(message),
    listen: (fn) => worker.on('message', fn),
    exited: exitOf(worker),
    stop: () => worker.terminate(),
  });
}

export function createNodeThreadsHost({ asyncContext } = {}) {
  return {
    name: 'Node threads',
    locks,
    endings: ['close', 'terminate', 'crash', 'exit'],
    pendingKeepsAlive: true, // a thread with a pending request does not end by 'close'
    asyncContext,
    openContext: openThread,
    startLoneWaiter(name) {
      const worker = new Worker(loneWaiterUrl, { workerData: { name } });
      const messages = [];
      let provedAlive;
      let endedEarly;
      const aliveWhilePending = new Promise((resolve, reject) => { provedAlive = resolve; endedEarly = reject; });
      worker.on('message', (message) => {
        messages.push(message);
        if (message === 'alive while pending') provedAlive();
      });
      const outcome = exitOf(worker).then((code) => {
        endedEarly(new Error(`the thread ended (code ${code}) before proving it was alive: ${messages.join(', ')}`));
        return { granted: messages.includes('granted'), exitedByItself: code === 0 };
      });
      return { aliveWhilePending, outcome };
    },
    async runStress(config) {
      const threads = await Promise.all(Array.from({ length: config.contexts }, openThread));
      const logs = await Promise.all(threads.map((thread, i) => thread.stress({
        shared: config.shared, names: config.names, requests: config.requests, seed: config.seed + i,
      })));
      await Promise.all(threads.map((thread) => thread.end('close')));
      return logs;
    },
  };
}
