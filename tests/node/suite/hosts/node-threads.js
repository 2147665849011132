// The Node host across threads as a suite host: the suite's context is the main thread's
// navigator.locks, installed by the package's preload (which removes a built-in one, as Node 24's);
// every other context is a worker thread running thread-agent.js, which does the same.
import { Worker } from 'node:worker_threads';
import '../../../../js/node/register.js';

const locks = globalThis.navigator.locks;

const agentUrl = new URL('./thread-agent.js', import.meta.url);
const loneWaiterUrl = new URL('./lone-waiter.js', import.meta.url);

// (events.once would reject on the 'error' event a crashing thread emits first.)
function exitOf(worker) {
  return new Promise((resolve) => worker.once('exit', resolve));
}

function openThread() {
  const worker = new Worker(agentUrl);
  const exited = exitOf(worker);
  worker.on('error', () => {}); // the 'crash' ending throws on purpose
  const waiting = new Map(); // rid -> { granted, settled } resolvers; qid -> resolver
  let next = 1;
  worker.on('message', (message) => {
    if (message.ev === 'granted') waiting.get(`g${message.rid}`)?.(message.lock);
    else if (message.ev === 'settled') waiting.get(`s${message.rid}`)?.(message.outcome);
    else if (message.ev === 'query') waiting.get(`q${message.qid}`)?.(message.state);
    else if (message.ev === 'stress') waiting.get('stress')?.(message.log);
  });
  const expect = (key) => new Promise((resolve) => waiting.set(key, (value) => { waiting.delete(key); resolve(value); }));
  const ready = new Promise((resolve) => worker.once('message', resolve));
  const context = {
    worker,
    request(name, options = {}) {
      const rid = next++;
      const granted = expect(`g${rid}`);
      const settled = expect(`s${rid}`);
      worker.postMessage({ op: 'request', rid, name, options });
      return {
        granted,
        settled,
        release: (value) => worker.postMessage({ op: 'release', rid, value }),
        fail: (message) => worker.postMessage({ op: 'fail', rid, message }),
        abort: () => worker.postMessage({ op: 'abort', rid }),
      };
    },
    query() {
      const qid = next++;
      const answer = expect(`q${qid}`);
      worker.postMessage({ op: 'query', qid });
      return answer;
    },
    async end(how) {
      if (how === 'terminate') await worker.terminate();
      else worker.postMessage({ op: how });
      await exited;
    },
    stress(config) {
      const log = expect('stress');
      worker.postMessage({ op: 'stress', config });
      return log;
    },
  };
  return ready.then(() => context);
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
