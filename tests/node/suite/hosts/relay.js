// One suite context in another agent (a worker thread, a child process), driven over messages:
// the agent runs requestHandle() on its own navigator.locks and relays what happens (agent side:
// thread-agent.js, tests/node/machine/fixtures/process-agent.mjs).
//   post(message): sends a command to the agent; listen(fn): fn(message) for each of its messages;
//   exited: resolves when the agent is gone; stop(): ends it from outside (terminate, SIGKILL).
export function relayedContext({ post, listen, exited, stop }) {
  const waiting = new Map(); // `g${rid}`, `s${rid}`, `q${qid}`, 'stress' -> resolver
  let next = 1;
  let readyResolve;
  const ready = new Promise((resolve) => { readyResolve = resolve; });
  listen((message) => {
    if (message.ev === 'ready') readyResolve();
    else if (message.ev === 'granted') waiting.get(`g${message.rid}`)?.(message.lock);
    else if (message.ev === 'settled') waiting.get(`s${message.rid}`)?.(message.outcome);
    else if (message.ev === 'query') waiting.get(`q${message.qid}`)?.(message.state);
    else if (message.ev === 'stress') waiting.get('stress')?.(message.log);
    else if (message.ev === 'option-inner-granted') waiting.get(`jg${message.rid}`)?.(message.lock);
    else if (message.ev === 'option-inner-settled') waiting.get(`js${message.rid}`)?.(message.outcome);
    else if (message.ev === 'inner-granted') waiting.get(`ig${message.rid}`)?.(message.lock);
    else if (message.ev === 'inner-settled') waiting.get(`is${message.rid}`)?.(message.outcome);
  });
  const expect = (key) => new Promise((resolve) => waiting.set(key, (value) => { waiting.delete(key); resolve(value); }));
  const context = {
    request(name, options = {}) {
      const rid = next++;
      const granted = expect(`g${rid}`);
      const settled = expect(`s${rid}`);
      post({ op: 'request', rid, name, options });
      return {
        granted,
        settled,
        release: (value) => post({ op: 'release', rid, value }),
        fail: (message) => post({ op: 'fail', rid, message }),
        abort: () => post({ op: 'abort', rid }),
        inner: { granted: expect(`jg${rid}`), settled: expect(`js${rid}`) },
        requestInside: (innerName, innerOptions = {}) => {
          const innerGranted = expect(`ig${rid}`);
          const innerSettled = expect(`is${rid}`);
          post({ op: 'inside', rid, name: innerName, options: innerOptions });
          return { granted: innerGranted, settled: innerSettled, release: (value) => post({ op: 'inner-release', rid, value }) };
        },
      };
    },
    query() {
      const qid = next++;
      const answer = expect(`q${qid}`);
      post({ op: 'query', qid });
      return answer;
    },
    /** What a request of this context that would close a certain deadlock gets ('reject'). */
    setDeadlock(value) {
      post({ op: 'deadlock', value });
    },
    async end(how) {
      if (how === 'terminate') await stop();
      else post({ op: how });
      await exited;
    },
    stress(config) {
      const log = expect('stress');
      post({ op: 'stress', config });
      return log;
    },
  };
  return ready.then(() => context);
}

/** The agent's side: runs the commands of relayedContext() on `locks`; `send` relays back. */
export async function serveRelayedCommands({ locks, send, listen, close, requestHandle, runStressContext }) {
  const handles = new Map();
  const inners = new Map();
  function relay(rid, handle) {
    handles.set(rid, handle);
    handle.granted.then((lock) => send({ ev: 'granted', rid, lock }));
    handle.inner.granted.then((lock) => send({ ev: 'option-inner-granted', rid, lock }));
    handle.inner.settled.then((outcome) => send({ ev: 'option-inner-settled', rid, outcome }));
    handle.settled.then((outcome) => {
      handles.delete(rid);
      send({ ev: 'settled', rid, outcome });
    });
  }
  const commands = {
    request: ({ rid, name, options }) => relay(rid, requestHandle(locks, name, options)),
    release: ({ rid, value }) => handles.get(rid)?.release(value),
    fail: ({ rid, message }) => handles.get(rid)?.fail(message),
    abort: ({ rid }) => handles.get(rid)?.abort(),
    inside: ({ rid, name, options }) => {
      const inner = handles.get(rid).requestInside(name, options);
      inners.set(rid, inner);
      inner.granted.then((lock) => send({ ev: 'inner-granted', rid, lock }));
      inner.settled.then((outcome) => send({ ev: 'inner-settled', rid, outcome }));
    },
    'inner-release': ({ rid, value }) => inners.get(rid)?.release(value),
    deadlock: ({ value }) => { globalThis.WEBLOCKS_DEADLOCK = value; },
    query: async ({ qid }) => send({ ev: 'query', qid, state: await locks.query() }),
    // Ends: cleanly with callbacks pending (no more messages keep the agent alive), by an uncaught
    // error, or by process.exit(). terminate() (or SIGKILL) is done from outside.
    close,
    crash: () => { setTimeout(() => { throw new Error('agent crashes on purpose'); }, 0); },
    exit: () => process.exit(7),
    stress: async ({ config }) => {
      const log = await runStressContext({ locks, ...config });
      send({ ev: 'stress', log });
    },
  };
  listen((message) => commands[message.op](message));
  // Ready once this agent reached its lock space (requests made earlier wait for it, which would
  // shift the stress run's clock: a steal would take effect later than its ticks say).
  await locks.query();
  send({ ev: 'ready' });
}
