// The behavioural suite (tests/node/suite/) on the hub, in a browser tab: the suite's own context
// is this window (navigator.locks = the polyfill); every other context is a dedicated worker that
// loads the polyfill itself and reaches the hub through a port this window hands it.
// 'close' ends a worker by self.close() (the polyfill says bye first); 'terminate' by terminate()
// (the hub's heartbeat notices). Cases run one by one: window.suiteCases / window.runSuiteCase.
import { defineLockSuite } from '../../node/suite/index.js';

export const HOST_SHAPE = { name: 'SharedWorker hub', endings: ['close', 'terminate'] };

function strip(result) {
  if (result === null || typeof result !== 'object') return result;
  const { at, ...rest } = result;
  return rest;
}

async function openWorkerContext() {
  const id = await window.harness.spawn('/tests/browser/pages/worker.js');
  const call = (method, ...args) => window.harness.call([id], method, ...args);
  return call('ready').then(() => ({
    request(name, options = {}) {
      const handle = call('request', name, options);
      return {
        granted: handle.then((h) => call('granted', h)).then(strip),
        settled: handle.then((h) => call('settled', h)).then(strip),
        release: (value) => { handle.then((h) => call('release', h, value)); },
        fail: (message) => { handle.then((h) => call('fail', h, message)); },
        abort: () => { handle.then((h) => call('abort', h)); },
        inner: {
          granted: handle.then((h) => call('inner', h)).then((i) => call('granted', i)).then(strip),
          settled: handle.then((h) => call('inner', h)).then((i) => call('settled', i)).then(strip),
        },
      };
    },
    query: () => call('query'),
    setDeadlock: (value) => call('setDeadlock', value),
    end: async (how) => {
      if (how === 'terminate') { window.harness.terminate(id); return; }
      if (how === 'close') { await call('closeSelf'); return; }
      throw new Error(`cannot end a worker by ${how}`);
    },
  }));
}

const cases = new Map();
const notes = [];
defineLockSuite(
  { test: (name, fn) => cases.set(name, fn), note: (message) => notes.push(message) },
  {
    ...HOST_SHAPE,
    locks: navigator.locks,
    openContext: openWorkerContext,
    // The polyfill's observeLocks for classic scripts (js/browser/install.js).
    observeLocks: window[Symbol.for('weblocks-wasm.observeLocks')],
    deadlockDetection: true,
  },
);

window.suiteCases = [...cases.keys()];
window.runSuiteCase = async (name) => {
  const fn = cases.get(name);
  if (!fn) throw new Error(`no case named ${name}`);
  notes.length = 0;
  await fn();
  return notes.slice();
};
