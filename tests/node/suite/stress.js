// The stress workload: several contexts issue random requests (exclusive, shared, ifAvailable,
// steal, abort) on a few names at once; the logs prove mutual exclusion and that every promise
// settled. Plain ESM: run runStressContext() in each agent, checkStressLogs() on the results.
//
// Shared memory (an Int32Array on a SharedArrayBuffer, `shared`) holds:
//   [0]            a ticket clock: Atomics.add gives every event a global order
//   [1], [2]       for the last name (never stolen): exclusive holders, shared holders right now
//   [3]            live violations seen on that name
// The last name gets no steals, so holders there are checked live with those counters; every
// name is also checked afterwards from the tickets: no two holders whose promises fulfilled may
// overlap unless both are shared, and every holder rejected with an AbortError must have been
// stolen by a steal that overlaps it.

export const STRESS_WORDS = 4;

export function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const tick = (shared) => Atomics.add(shared, 0, 1) + 1;

function hold(random) {
  const r = random();
  if (r < 0.35) return undefined;                       // a synchronous callback
  if (r < 0.85) return Promise.resolve();               // one microtask
  return new Promise((resolve) => setTimeout(resolve, 0)); // one macrotask
}

/**
 * Runs `requests` random requests from this context, at most `window` outstanding at a time.
 * Returns the log: one array per request
 * [nameIndex, kind, mode, requestT, entryT, exitT, settleT, outcome, stealPostT]
 * kind: 'wait' | 'ifAvailable' | 'steal' | 'abort'; outcome: 'ok' | 'null' | 'AbortError' | 'aborted' | other error name.
 */
export async function runStressContext({ locks, shared, names, requests, seed, window = 6 }) {
  const random = mulberry32(seed);
  const guarded = names.length - 1; // the never-stolen name with live counters
  const log = [];
  let started = 0;

  async function one() {
    const nameIndex = Math.floor(random() * names.length);
    const name = names[nameIndex];
    const r = random();
    let kind = 'wait';
    if (r < 0.12) kind = 'ifAvailable';
    else if (r < 0.22 && nameIndex !== guarded) kind = 'steal';
    else if (r < 0.37) kind = 'abort';
    const mode = kind === 'steal' || random() < 0.6 ? 'exclusive' : 'shared';
    const entry = [nameIndex, kind, mode, 0, 0, 0, 0, '', 0];
    log.push(entry);
    const options = { mode };
    let controller = null;
    if (kind === 'ifAvailable') options.ifAvailable = true;
    if (kind === 'steal') options.steal = true;
    if (kind === 'abort') { controller = new AbortController(); options.signal = controller.signal; }
    const holdFor = hold(random);
    const abortAfter = random() < 0.5 ? 'microtask' : 'macrotask';
    entry[3] = tick(shared);
    const promise = locks.request(name, options, async (lock) => {
      if (lock === null) return 'null';
      entry[4] = tick(shared);
      const live = nameIndex === guarded;
      if (live) {
        const exclusive = Atomics.add(shared, 1, mode === 'exclusive' ? 1 : 0) + (mode === 'exclusive' ? 1 : 0);
        const sharedCount = Atomics.add(shared, 2, mode === 'shared' ? 1 : 0) + (mode === 'shared' ? 1 : 0);
        if (exclusive > 1 || (exclusive === 1 && sharedCount > 0)) Atomics.add(shared, 3, 1);
      }
      await holdFor;
      if (live) {
        if (mode === 'exclusive') Atomics.sub(shared, 1, 1); else Atomics.sub(shared, 2, 1);
      }
      entry[5] = tick(shared);
      return 'ok';
    });
    if (kind === 'steal') entry[8] = tick(shared); // after the steal took effect (request() is synchronous)
    if (controller) {
      if (abortAfter === 'microtask') queueMicrotask(() => controller.abort());
      else setTimeout(() => controller.abort(), 0);
    }
    try {
      entry[7] = await promise;
    } catch (error) {
      entry[7] = kind === 'abort' && error?.name === 'AbortError' && entry[4] === 0 ? 'aborted' : String(error?.name);
    }
    entry[6] = tick(shared);
  }

  async function lane() {
    while (started < requests) {
      started += 1;
      await one();
    }
  }
  await Promise.all(Array.from({ length: window }, lane));
  return log;
}

/**
 * Checks the logs of every context; returns { violations: string[], settled, counts }.
 * `stealsTakeEffectByGrant`: for a remote lock space (etcd), where request() only sends the steal,
 * a steal is known to have taken effect once its callback runs, not when request() returns.
 */
export function checkStressLogs(logs, { names, requests, shared, stealsTakeEffectByGrant = false }) {
  const violations = [];
  let settled = 0;
  const counts = { ok: 0, null: 0, stolen: 0, aborted: 0 };
  const steals = names.map(() => []);
  const holders = names.map(() => []);
  const stolen = names.map(() => []);
  for (const log of logs) {
    if (log.length !== requests) violations.push(`a context logged ${log.length} requests instead of ${requests}`);
    for (const [nameIndex, kind, mode, requestT, entryT, exitT, settleT, outcome, stealPostT] of log) {
      if (settleT > 0) settled += 1;
      if (kind === 'steal') steals[nameIndex].push([requestT, stealsTakeEffectByGrant ? Math.max(stealPostT, entryT) : stealPostT]);
      if (outcome === 'ok') {
        counts.ok += 1;
        holders[nameIndex].push([entryT, exitT, mode]);
      } else if (outcome === 'null') {
        counts.null += 1;
        if (kind !== 'ifAvailable') violations.push(`a ${kind} request was called back with null`);
      } else if (outcome === 'aborted') {
        counts.aborted += 1;
      } else if (outcome === 'AbortError') {
        // Stolen (a lock stolen before its callback ran is still called back, spec 4.4): some
        // steal on this name must overlap [requestT, settleT]; checked below, once all steals are known.
        counts.stolen += 1;
        stolen[nameIndex].push([requestT, settleT, kind, mode, entryT, exitT]);
      } else {
        violations.push(`a ${kind} request settled with ${outcome}`);
      }
    }
  }
  for (let n = 0; n < names.length; n++) {
    for (const [requestT, settleT, kind, mode, entryT, exitT] of stolen[n]) {
      if (!steals[n].some(([pre, post]) => pre < settleT && post > requestT)) {
        const near = steals[n].filter(([pre, post]) => Math.abs(pre - requestT) < 50 || Math.abs(post - settleT) < 50);
        violations.push(`a ${mode} ${kind} holder of ${names[n]} [request ${requestT}, entry ${entryT}, exit ${exitT}, ` +
          `settle ${settleT}] rejected with AbortError with no steal overlapping it (steals near: ${JSON.stringify(near)})`);
      }
    }
    // Sweep the fulfilled holders by entry: any overlap needs both to be shared.
    const list = holders[n].slice().sort((a, b) => a[0] - b[0]);
    const active = [];
    for (const [entryT, exitT, mode] of list) {
      for (let i = active.length - 1; i >= 0; i--) if (active[i][1] < entryT) active.splice(i, 1);
      for (const other of active) {
        if (mode === 'exclusive' || other[2] === 'exclusive') {
          violations.push(`${names[n]}: ${mode} holder [${entryT}, ${exitT}] overlaps ${other[2]} holder [${other[0]}, ${other[1]}]`);
        }
      }
      active.push([entryT, exitT, mode]);
    }
  }
  const live = Atomics.load(shared, 3);
  if (live !== 0) violations.push(`${live} live counter violations on ${names[names.length - 1]}`);
  return { violations, settled, counts };
}
