// The machine lock space as a suite host: the suite's own context is this test process (a
// LockManager on the lock space); every other context is a child process that joined it with
// --import weblocks-wasm/register-machine (fixtures/process-agent.mjs).
import { createMachineLockManager } from '../../../js/machine/locks.js';
import { relayedContext } from '../suite/hosts/relay.js';
import { forkJoined, exitOf } from './support.js';

const agent = new URL('./fixtures/process-agent.mjs', import.meta.url);
const loneWaiter = new URL('./fixtures/lone-waiter.mjs', import.meta.url);

export function createProcessHost(space) {
  const locks = createMachineLockManager({ folder: space.folder, space: space.space });
  const children = new Set();
  const start = (script, args) => {
    // stderr ignored: the 'crash' ending's uncaught error is on purpose.
    const child = forkJoined(script, args, space.env, { stdio: ['ignore', 'inherit', 'ignore', 'ipc'] });
    children.add(child);
    child.once('exit', () => children.delete(child));
    return child;
  };
  return {
    name: 'machine lock space (processes)',
    locks,
    // terminate: SIGKILL. close: the IPC channel closes and nothing else keeps the process alive.
    endings: ['close', 'terminate', 'crash', 'exit'],
    pendingKeepsAlive: true,
    observeLocks: (callback, options) => locks.observeLocks(callback, options),
    deadlockDetection: true,
    openContext() {
      const child = start(agent, []);
      return relayedContext({
        post: (message) => child.send(message),
        listen: (fn) => child.on('message', fn),
        exited: exitOf(child),
        stop: async () => { child.kill('SIGKILL'); await exitOf(child); },
      });
    },
    startLoneWaiter(name) {
      const child = start(loneWaiter, [name]);
      const messages = [];
      let provedAlive;
      let endedEarly;
      const aliveWhilePending = new Promise((resolve, reject) => { provedAlive = resolve; endedEarly = reject; });
      child.on('message', (message) => {
        messages.push(message);
        if (message === 'alive while pending') provedAlive();
      });
      const outcome = exitOf(child).then((code) => {
        endedEarly(new Error(`the process ended (${code}) before proving it was alive: ${messages.join(', ')}`));
        return { granted: messages.includes('granted'), exitedByItself: code === 0 };
      });
      return { aliveWhilePending, outcome };
    },
    dispose() {
      for (const child of children) child.kill('SIGKILL');
    },
  };
}
