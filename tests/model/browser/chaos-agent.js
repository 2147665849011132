// A chaos agent in one browser context (a tab, or a dedicated worker of one): random
// navigator.locks requests with every option, holding each granted lock for a random while, and
// logging every hold to the test server's checker (/chaos/log) — the grant once the callback runs,
// the release before the callback returns, each acknowledged before the agent goes on. A tab
// agent also runs a worker agent of its own. Loaded as a classic script after the polyfill.
(function (scope) {
  const params = new URLSearchParams(scope.location.search);
  const holder = params.get('holder');
  const names = ['r0', 'r1', 'r2'];
  let seed = Number(params.get('seed')) >>> 0 || 1;
  // mulberry32: a seeded sequence per agent.
  const random = () => {
    seed = (seed + 0x6d2b79f5) >>> 0;
    let t = seed;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const pick = (list) => list[Math.floor(random() * list.length)];
  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
  const stats = { requests: 0, granted: 0, notAvailable: 0, aborted: 0, stolen: 0, rejectedAsSpecified: 0, errors: 0, lastError: null };
  let stopping = false;
  let holds = 0;
  let worker = null;
  let workerCount = 0;
  let current = null; // what one() is doing now: reported when a stop hangs

  async function log(entry) {
    const response = await fetch('/chaos/log', { method: 'POST', body: JSON.stringify({ holder, ...entry }) });
    if (!response.ok) throw new Error(`checker answered ${response.status}`);
  }

  async function one() {
    const name = pick(names);
    const r = random();
    const kind = r < 0.5 ? 'wait' : r < 0.7 ? 'ifAvailable' : r < 0.78 ? 'steal' : r < 0.96 ? 'signal' : 'invalid';
    const mode = kind === 'steal' || random() < 0.6 ? 'exclusive' : 'shared';
    const hold = `${holder}#${++holds}`;
    const options = { mode };
    if (kind === 'ifAvailable') options.ifAvailable = true;
    if (kind === 'steal') options.steal = true;
    if (kind === 'signal') {
      const controller = new AbortController();
      options.signal = controller.signal;
      setTimeout(() => controller.abort(), random() * 40);
    }
    if (kind === 'invalid') Object.assign(options, pick([{ steal: true, ifAvailable: true }, { steal: true, mode: 'shared' }]));
    if (options.steal) await log({ type: 'stealIntent', hold, name });
    let granted = false;
    stats.requests++;
    current = { hold, name, kind, mode, phase: 'requested', since: Date.now() };
    try {
      await navigator.locks.request(name, options, async (lock) => {
        current.phase = lock === null ? 'not available' : 'granted';
        if (lock === null) { stats.notAvailable++; return; }
        granted = true;
        stats.granted++;
        await log({ type: 'grant', hold, name: lock.name, mode: lock.mode, steal: !!options.steal });
        await sleep(random() * 25);
        await log({ type: 'release', hold });
      });
      if (kind === 'invalid') throw new Error('an invalid option combination was accepted');
    } catch (error) {
      if (kind === 'invalid' && error?.name === 'NotSupportedError') { stats.rejectedAsSpecified++; return; }
      if (error?.name === 'AbortError') {
        // Before the grant: the signal won. After it: the lock was taken away (steal, declared dead, hub lost).
        if (granted) { stats.stolen++; await log({ type: 'stolen', hold }); } else stats.aborted++;
        return;
      }
      throw error;
    }
  }

  // idle=1: a bystander page that only queries.
  if (params.get('idle') === '1') stopping = true;
  const done = (async () => {
    await Promise.resolve();
    while (!stopping) {
      try {
        await one();
      } catch (error) {
        stats.errors++;
        stats.lastError = `${error?.name}: ${error?.message}`;
        await sleep(5);
      }
    }
  })();

  function spawnWorker() {
    if (typeof WorkerGlobalScope !== 'undefined' || params.get('workers') !== '1') return;
    const id = `${holder}/w${++workerCount}`;
    worker = new Worker(`/tests/model/browser/chaos-worker.js?holder=${encodeURIComponent(id)}&seed=${seed + workerCount}`);
    worker.onmessage = (event) => { if (event.data?.chaosStats) worker.lastStats = event.data.chaosStats; };
  }
  spawnWorker();

  const api = {
    stats: () => stats,
    current: () => (current === null ? null : { ...current, forMs: Date.now() - current.since }),
    async stop() {
      stopping = true;
      await done;
      return stats;
    },
    currentWorker: () => `${holder}/w${workerCount}`,
    // Terminates this tab's worker (the caller logs its death first) and starts a new one.
    replaceWorker() {
      const old = `${holder}/w${workerCount}`;
      worker?.terminate();
      spawnWorker();
      return old;
    },
    workerStats: () => new Promise((resolve) => {
      if (!worker) return resolve(null);
      worker.addEventListener('message', (event) => { if (event.data?.chaosStats) resolve(event.data.chaosStats); });
      worker.postMessage({ chaosStop: true });
    }),
  };
  scope.chaos = api;
  if (typeof WorkerGlobalScope !== 'undefined') {
    scope.addEventListener('message', async (event) => {
      if (event.data?.chaosStop) scope.postMessage({ chaosStats: await api.stop() });
    });
  }
})(self);
