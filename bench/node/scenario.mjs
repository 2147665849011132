// One Node scenario for one contender, in its own process, driven round by round so that the
// contenders of a comparison take turns (bench/node/run.mjs; machine load then hits them alike):
//   node bench/node/scenario.mjs <contender> <scenario>
// stdin lines: 'prepare' (load, calibrate, warm up), 'round' (one measured round), 'finish'.
// Each answer is one result line (bench/lib/child.mjs): { sample } for a round, { extra } otherwise.
import { Worker } from 'node:worker_threads';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { loadImpl } from './impls.mjs';
import { reportResult } from '../lib/child.mjs';
import { pendingOnce } from '../lib/workloads.mjs';

const [implName, scenarioName] = process.argv.slice(2);
const impl = await loadImpl(implName);
const { locks } = impl;
const now = () => performance.now();

/** Grows `size` until once(size) takes about targetMs, then returns it. */
async function calibrate(once, { start = 16, targetMs = 120, max = 1 << 20, min = start } = {}) {
  let size = start;
  for (;;) {
    const elapsed = await once(size);
    // A load spike during calibration must not shrink rounds to a handful of operations: keep `min`.
    if (elapsed >= targetMs / 4 || size >= max) return Math.max(min, Math.min(max, Math.round(size * targetMs / Math.max(elapsed, 0.001))));
    size *= 4;
  }
}

function uncontended() {
  const callback = () => {};
  let ops = 0;
  const once = async (n) => {
    const t0 = now();
    for (let i = 0; i < n; i++) await locks.request('uncontended', callback);
    return now() - t0;
  };
  return {
    async prepare() {
      ops = await calibrate(once, { min: 256 });
      // Steady state: JIT tiers (JS and wasm) settle after some tens of thousands of requests.
      for (let done = 0, r = 0; done < 30_000 || r < 3; done += ops, r++) await once(ops);
      return { opsPerRound: ops };
    },
    async round() { return (await once(ops)) * 1000 / ops; },
    ops: () => ops,
  };
}

function startWorkers(count) {
  const shared = new SharedArrayBuffer(64);
  const workers = [];
  const ready = [];
  for (let i = 0; i < count; i++) {
    const worker = new Worker(new URL('./thread.mjs', import.meta.url), { workerData: { impl: implName, shared } });
    impl.attachWorker?.(worker);
    ready.push(new Promise((resolve, reject) => {
      worker.once('error', reject);
      worker.on('message', function onReady(m) { if (m.ready) { worker.off('message', onReady); resolve(); } });
    }));
    workers.push(worker);
  }
  return { workers, shared, ready: Promise.all(ready) };
}

function command(worker, message, answerKey) {
  return new Promise((resolve) => {
    const listener = (m) => { if (m[answerKey]) { worker.off('message', listener); resolve(m); } };
    worker.on('message', listener);
    worker.postMessage(message);
  });
}

/** Threads hand one exclusive lock around (bench/node/thread.mjs: strict handoff). */
function handoff(threadCount) {
  let workers;
  let word;
  let perThread = 0;
  let switches = 0;
  let overlaps = 0;
  let acquisitions = 0;
  const once = async (count) => {
    for (const index of [1, 2, 3, 4, 5, 6]) Atomics.store(word, index, 0);
    const t0 = now();
    await Promise.all(workers.map((w) => command(w, { cmd: 'handoff', count, parties: threadCount }, 'done')));
    const elapsed = now() - t0;
    switches += Atomics.load(word, 2);
    overlaps += Atomics.load(word, 3);
    acquisitions += threadCount * count;
    return elapsed;
  };
  return {
    async prepare() {
      const started = startWorkers(threadCount);
      await started.ready;
      workers = started.workers;
      word = new Int32Array(started.shared);
      perThread = await calibrate(once, { start: 8, targetMs: 250, min: 64 });
      await once(perThread);
      await once(perThread);
      switches = 0; overlaps = 0; acquisitions = 0;
      return { acquisitionsPerThreadPerRound: perThread };
    },
    async round() { return threadCount * perThread / ((await once(perThread)) / 1000); },
    ops: () => threadCount * perThread,
    async finish() {
      await Promise.all(workers.map((w) => w.terminate()));
      return { holderChangedFraction: switches / acquisitions, overlaps };
    },
  };
}

function pending(count) {
  const enqueue = [];
  const drain = [];
  const once = async () => {
    const t = await pendingOnce(locks, count, now);
    return { enqueue: t.enqueue * 1000 / count, drain: t.drain * 1000 / count };
  };
  return {
    async prepare() { await once(); return { count }; },
    ops: () => count,
    async round() {
      const t = await once();
      enqueue.push(t.enqueue);
      drain.push(t.drain);
      return t.enqueue + t.drain;
    },
    async finish() { return { enqueueUsPerRequest: enqueue, drainUsPerRequest: drain }; },
  };
}

/** Steals of a lock held by this thread (holder: null) or by a worker thread. */
function steal(crossThread) {
  const steals = crossThread ? 50 : 200;
  let worker = null;
  const hold = async () => {
    if (worker) return command(worker, { cmd: 'hold', name: 'steal' }, 'held');
    let granted;
    const holding = new Promise((resolve) => { granted = resolve; });
    locks.request('steal', () => { granted(); return new Promise(() => {}); }).catch(() => {});
    return holding;
  };
  const once = async () => {
    let total = 0;
    for (let i = 0; i < steals; i++) {
      await hold();
      let t1;
      const t0 = now();
      await locks.request('steal', { steal: true }, () => { t1 = now(); });
      total += t1 - t0;
    }
    return total * 1000 / steals;
  };
  return {
    async prepare() {
      if (crossThread) {
        const started = startWorkers(1);
        await started.ready;
        worker = started.workers[0];
      }
      await once();
      await once();
      return { stealsPerRound: steals };
    },
    round: once,
    ops: () => steals,
    async finish() { if (worker) await worker.terminate(); return {}; },
  };
}

/**
 * A worker thread's start to its first grant: each round starts WORKERS workers one after another
 * (this process already uses the contender), each of which loads it and takes one lock; the sample
 * is the mean ms from new Worker() to the grant's message. 'bare' workers take no lock.
 */
function workerFirstGrant() {
  const WORKERS = 8;
  const script = new URL('./first-grant-worker.mjs', import.meta.url);
  const once = async () => {
    let total = 0;
    for (let i = 0; i < WORKERS; i++) {
      const t0 = now();
      const worker = new Worker(script, { workerData: { impl: implName } });
      impl.attachWorker?.(worker);
      await new Promise((resolve, reject) => { worker.once('message', resolve); worker.once('error', reject); });
      total += now() - t0;
      await worker.terminate();
    }
    return total / WORKERS;
  };
  return {
    async prepare() { await once(); return { workersPerRound: WORKERS }; },
    round: once,
    ops: () => WORKERS,
  };
}

const scenarios = {
  'uncontended': uncontended,
  'worker-first-grant': workerFirstGrant,
  'handoff-2': () => handoff(2),
  'handoff-4': () => handoff(4),
  'pending-10k': () => pending(10_000),
  'steal-same-thread': () => steal(false),
  'steal-cross-thread': () => steal(true),
};
if (!scenarios[scenarioName]) throw new Error(`unknown scenario ${scenarioName}`);
const scenario = scenarios[scenarioName]();

// CPU time of the whole process (every thread) per operation: unlike wall time, it barely moves
// when other programs load the machine.
for await (const line of createInterface({ input: process.stdin })) {
  if (line === 'prepare') reportResult({ extra: await scenario.prepare() });
  else if (line === 'round') {
    const before = process.cpuUsage();
    const sample = await scenario.round();
    const used = process.cpuUsage(before);
    reportResult({ sample, cpuUsPerOp: (used.user + used.system) / scenario.ops() });
  }
  else if (line === 'finish') { reportResult({ extra: (await scenario.finish?.()) ?? {} }); break; }
}
process.exit(0);   // a contender may keep handles alive (web-locks' timers, a host's keep-alive)
