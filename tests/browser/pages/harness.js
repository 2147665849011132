// A remote control for navigator.locks in one context (window, iframe or worker), driven by the
// Playwright specs. Requests are handles whose callbacks hold the lock until released; every
// event is stamped (performance.timeOrigin + now): specs order two contexts' stamps on one clock
// (tests/browser/support/clocks.js: each context's time origin is its own reading of the wall clock).
// Workers: spawn(url) creates a dedicated worker (which loads this harness too); call(path, ...)
// runs a harness method in a worker, or in a worker of a worker (path = [id, id, ...]).
(function (scope) {
  const handles = new Map();
  const workers = new Map();
  const beatBuffers = new Map(); // worker id -> Float64Array shared with it (shareBeat)
  const heardBeats = new Map();  // BroadcastChannel name -> { last, count } (hearBeats)
  let beatBuffer = null;        // in a worker: the buffer its creator shared
  let nextHandle = 0;
  let nextWorker = 0;
  let nextCall = 0;
  const calls = new Map();
  // Every message app code saw (on this worker's global, or from the workers this context spawned).
  const appMessages = [];
  if (typeof WorkerGlobalScope !== 'undefined') {
    scope.addEventListener('message', (event) => {
      if (event.data && event.data.harnessBeatBuffer !== undefined) { beatBuffer = new Float64Array(event.data.harnessBeatBuffer); return; }
      if (!event.data || event.data.harnessCall === undefined) appMessages.push(event.data);
    });
  }
  const clock = () => performance.timeOrigin + performance.now();
  const backendOf = () => scope[Symbol.for('weblocks-wasm.backend')];
  const verdicts = [];
  let verdictChannel = null;

  function request(name, options = {}) {
    const id = ++nextHandle;
    const h = { id, name, state: 'pending', events: [], controller: null };
    let release;
    let fail;
    h.callbackResult = new Promise((res, rej) => { release = res; fail = rej; });
    h.release = release;
    h.fail = fail;
    h.granted = new Promise((resolve) => { h.onGranted = resolve; });
    const opts = {};
    for (const key of ['mode', 'ifAvailable', 'steal']) if (options[key] !== undefined) opts[key] = options[key];
    if (options.signal) { h.controller = new AbortController(); opts.signal = h.controller.signal; }
    const promise = navigator.locks.request(name, opts, (lock) => {
      h.events.push(['granted', clock()]);
      if (lock === null) { h.state = 'not-available'; h.onGranted(null); return 'no-lock'; }
      h.state = 'held';
      h.onGranted({ name: lock.name, mode: lock.mode, at: clock() });
      // options.inner: a request made at once inside this callback (the behavioural suite's deadlocks).
      if (options.inner !== undefined) h.inner = request(options.inner.name, options.inner.options || {});
      return h.callbackResult;
    });
    h.settled = promise.then(
      (value) => { h.state = 'settled'; h.events.push(['settled', clock()]); return { ok: true, value, at: clock() }; },
      (error) => { h.state = 'settled'; h.events.push(['rejected', clock()]); return { ok: false, name: error && error.name, message: error && error.message, at: clock() }; });
    handles.set(id, h);
    return id;
  }

  function handle(id) {
    const h = handles.get(id);
    if (!h) throw new Error(`no handle ${id}`);
    return h;
  }

  const api = {
    request,
    granted: (id) => handle(id).granted,
    settled: (id) => handle(id).settled,
    state: (id) => handle(id).state,
    release: (id, value) => { const h = handle(id); h.releasedAt = clock(); h.release(value); return h.releasedAt; },
    fail: (id, message) => { handle(id).fail(new Error(message || 'callback failed')); },
    abort: (id) => { handle(id).controller.abort(); },
    /** The handle of the request made inside this one's callback (options.inner), once granted. */
    inner: async (id) => { await handle(id).granted; return handle(id).inner; },
    setDeadlock: (value) => { scope.WEBLOCKS_DEADLOCK = value; return true; },
    query: () => navigator.locks.query(),
    /** An ifAvailable request and a query, each with its outcome and how long it took (ms). */
    async tryLocks(name) {
      const time = async (run) => {
        const start = performance.now();
        try {
          const value = await run();
          return { ok: true, value, ms: performance.now() - start };
        } catch (error) {
          return { ok: false, name: error && error.name, message: error && error.message, ms: performance.now() - start };
        }
      };
      return {
        request: await time(() => navigator.locks.request(name, { ifAvailable: true }, (lock) => (lock ? 'granted' : 'not available'))),
        query: await time(() => navigator.locks.query()),
      };
    },
    clock,
    /** Held-lock intervals of this context: [name, mode, grantedAt, endedAt|null]. */
    intervals: () => [...handles.values()].filter((h) => h.events.length && h.events[0][0] === 'granted' && h.state !== 'not-available')
      .map((h) => [h.name, h.mode, h.events[0][1], h.releasedAt !== undefined ? h.releasedAt : (h.events[1] ? h.events[1][1] : null)]),
    /** Creates a dedicated worker; resolves with its id once its harness is up, rejects if it fails to start. */
    spawn(url) {
      const id = ++nextWorker;
      const worker = new Worker(url);
      let up;
      let down;
      const starting = new Promise((resolve, reject) => { up = resolve; down = reject; });
      const bound = setTimeout(() => down(new Error(`worker ${id} (${url}) neither started nor reported an error within 20 s`)), 20_000);
      worker.addEventListener('message', (event) => {
        const m = event.data;
        if (m && m.harnessReady === true) { clearTimeout(bound); up(id); return; }
        if (!m || m.harnessReply === undefined) { appMessages.push(m); return; }
        const call = calls.get(m.harnessReply);
        calls.delete(m.harnessReply);
        if (m.error !== undefined) call.reject(new Error(m.error)); else call.resolve(m.value);
      });
      // A worker that fails to load or throws at its top level: spawn() rejects with the error.
      worker.addEventListener('error', (event) => {
        clearTimeout(bound);
        down(new Error(`worker ${id} (${url}) failed: ${event.message || 'an error event without a message (its script did not load?)'}${event.filename ? ` at ${event.filename}:${event.lineno}` : ''}`));
      });
      workers.set(id, worker);
      return starting;
    },
    /** terminate(); busyMs: then this context runs a synchronous task that long (its thread is busy). */
    terminate(id, busyMs = 0) {
      workers.get(id).terminate();
      workers.delete(id);
      const at = clock();
      const end = performance.now() + busyMs;
      while (performance.now() < end) { /* busy */ }
      return at;
    },
    /** terminate() as the browser's own, behind the polyfill's back (a reference taken before it loaded). */
    terminateNatively(id) {
      let proto = Object.getPrototypeOf(workers.get(id));
      while (proto.constructor[Symbol.for('weblocks-wasm.worker-patch')] !== undefined) proto = Object.getPrototypeOf(proto);
      proto.terminate.call(workers.get(id));
      workers.delete(id);
      return clock();
    },
    call(path, method, ...args) {
      if (path.length === 0) return api[method](...args);
      const worker = workers.get(path[0]);
      const call = ++nextCall;
      return new Promise((resolve, reject) => {
        calls.set(call, { resolve, reject });
        worker.postMessage({ harnessCall: call, path: path.slice(1), method, args });
      });
    },
    info: () => ({
      kind: typeof WorkerGlobalScope !== 'undefined' ? 'worker' : 'window',
      isolated: !!scope.crossOriginIsolated,
      hasLocks: !!(navigator.locks && typeof navigator.locks.request === 'function'),
      polyfill: navigator.locks !== undefined && navigator.locks === scope[Symbol.for('weblocks-wasm.installed')],
    }),
    ready: () => true,
    /**
     * A CPU-bound critical section: holds `name` (exclusive) and, once go(id) is called, runs a
     * synchronous task of `ms` in the callback, stamping entry and exit (read with section(id)).
     */
    holdBusy(name, ms, { atOnce = false, beatChannel = null } = {}) {
      const id = ++nextHandle;
      const h = { id, name, state: 'pending', events: [], mode: 'exclusive', enteredAt: null, exitedAt: null, requestedAt: clock(), grantedAt: null };
      let go;
      h.go = new Promise((resolve) => { go = resolve; });
      h.start = go;
      h.granted = new Promise((resolve) => { h.onGranted = resolve; });
      h.settled = navigator.locks.request(name, async () => {
        h.state = 'held';
        h.grantedAt = clock();
        h.onGranted({ at: h.grantedAt });
        // atOnce: the callback is busy from its first line (no round trip to the test first).
        if (!atOnce) await h.go;
        h.enteredAt = clock();
        const end = performance.now() + ms;
        // Busy: the event loop is blocked. Where its creator shared a beat buffer (isolated pages),
        // the section stamps it as it runs: proof, outside it, of when it last ran.
        // beatChannel: a BroadcastChannel the section also posts its stamp on, every 20 ms (where no
        // shared buffer can be: pages that are not cross-origin isolated).
        const channel = beatChannel === null ? null : new BroadcastChannel(beatChannel);
        let posted = 0;
        while (performance.now() < end) {
          if (beatBuffer !== null) beatBuffer[0] = clock();
          if (channel !== null && performance.now() - posted >= 20) { posted = performance.now(); channel.postMessage(clock()); }
        }
        h.exitedAt = clock();
      }).then(() => ({ ok: true }), (error) => ({ ok: false, name: error && error.name, message: error && error.message }));
      handles.set(id, h);
      return id;
    },
    /** Starts the busy task of holdBusy(id) after this call has returned. */
    go: (id) => {
      const h = handle(id);
      setTimeout(() => h.start(), 0);
      return clock();
    },
    /** The name of the alive database this window's polyfill last gave the hub, or null. */
    aliveDatabase: () => backendOf().aliveSent,
    /** From now on, records the hub's liveness verdicts (js/hub/protocol.js ANNOUNCE) heard by this window. */
    listenForVerdicts: () => {
      if (verdictChannel === null) {
        verdictChannel = new BroadcastChannel('weblocks-wasm-hub');
        verdictChannel.onmessage = (event) => { if (event.data && event.data.t === 'liveness-verdict') verdicts.push({ ...event.data, at: clock() }); };
      }
      return true;
    },
    verdicts: () => verdicts.slice(),
    /** Shares a buffer with a worker (isolated pages only): its busy sections stamp it while they run. */
    shareBeat(workerId) {
      const buffer = new SharedArrayBuffer(8);
      beatBuffers.set(workerId, new Float64Array(buffer));
      workers.get(workerId).postMessage({ harnessBeatBuffer: buffer });
      return true;
    },
    lastBeat: (workerId) => beatBuffers.get(workerId)[0] || null,
    /** Starts keeping the latest stamp posted on BroadcastChannel `name` (holdBusy's beatChannel). */
    hearBeats(name) {
      const channel = new BroadcastChannel(name);
      heardBeats.set(name, { last: null, count: 0 });
      channel.onmessage = (event) => { const h = heardBeats.get(name); h.last = Math.max(h.last ?? 0, event.data); h.count++; };
      return true;
    },
    heardBeat: (name) => heardBeats.get(name),
    section: (id) => { const h = handle(id); return { requestedAt: h.requestedAt, grantedAt: h.grantedAt, enteredAt: h.enteredAt, exitedAt: h.exitedAt }; },
    /** A worker ending itself cleanly (while its callbacks are still pending). */
    closeSelf: () => { setTimeout(() => scope.close(), 0); return true; },
    appMessages: () => appMessages.map((m) => JSON.stringify(m)),
    post: (path, data) => { if (path.length === 1) workers.get(path[0]).postMessage(data); else api.call([path[0]], 'post', path.slice(1), data); },
    /** Where the polyfill's connection stands (for a failing test's report): port, hub, sentinel, records. */
    backendState: () => {
      const b = scope[Symbol.for('weblocks-wasm.backend')];
      if (!b) return null;
      return {
        port: b.port !== null, connecting: b.connecting !== null, hubId: b.hubId, failure: b.failure && String(b.failure),
        records: [...b.records.values()].map((r) => ({ name: r.name, state: r.state })), outbox: b.flow.waiting,
        sentinel: b.sentinel && { started: b.sentinel.worker !== null, answered: b.sentinel.answered, failed: b.sentinel.failed },
        asleep: b.asleep, probe: b.probe !== null, identity: b.identity !== null,
      };
    },
    /** The polyfill's connection: which hub, how many hub losses and dead declarations it saw. */
    connection: () => {
      const b = scope[Symbol.for('weblocks-wasm.backend')];
      return b ? { hubId: b.hubId, clientId: b.clientId, stats: { ...b.stats } } : null;
    },
  };
  // Records the handle's mode for intervals().
  const plainRequest = api.request;
  api.request = (name, options = {}) => { const id = plainRequest(name, options); handle(id).mode = options.mode || 'exclusive'; return id; };

  // Page lifecycle, for the back/forward cache spec.
  const lifecycle = [];
  if (typeof WorkerGlobalScope === 'undefined') {
    scope.addEventListener('pagehide', (e) => lifecycle.push(`pagehide persisted=${e.persisted}`));
    scope.addEventListener('pageshow', (e) => lifecycle.push(`pageshow persisted=${e.persisted}`));
  }
  api.lifecycle = () => lifecycle.slice();

  scope.harness = api;
  if (typeof WorkerGlobalScope !== 'undefined') {
    scope.addEventListener('message', async (event) => {
      const m = event.data;
      if (!m || m.harnessCall === undefined) return;
      try {
        const value = await api.call(m.path, m.method, ...m.args);
        scope.postMessage({ harnessReply: m.harnessCall, value });
      } catch (error) {
        scope.postMessage({ harnessReply: m.harnessCall, error: String(error && error.stack || error) });
      }
    });
    // Its creator's spawn() resolves once this worker's harness is up.
    scope.postMessage({ harnessReady: true });
  }
})(self);
