#!/usr/bin/env node
// Chaos across Node worker_threads sharing one engine: threads make random requests while the
// main thread terminates some and others crash on purpose; every dead thread's client is closed
// (agent termination, as the Node host does) and a new thread takes its place. The hold log is
// then checked for overlapping incompatible holds, and the engine must end empty.
//
//   node tests/model/thread-chaos.mjs --seconds 60 --threads 4 --seed 1      (prints the totals as JSON)
//   --plant-fake-grants   a deliberately broken thread, to see the checker catch it
import { Worker } from 'node:worker_threads';
import { pathToFileURL } from 'node:url';
import { createRandom } from './random.mjs';
import { createLogBuffer, SharedHoldLog } from './chaos-log.mjs';
import { checkHolds } from './hold-checker.mjs';

export async function runThreadChaos({ seconds = 2, threads = 3, seed = 1, nameCount = 3, crashChance = 0.002, killEveryMs = [150, 400], logCapacity = 2_000_000, plantFakeGrants = false } = {}) {
  const api = await import('../../js/engine/index.js');
  const module = await api.compileEngine({ shared: true });
  const memory = api.createEngineMemory({ shared: true });
  const engine = await api.attachEngine({ module, memory });
  const names = Array.from({ length: nameCount }, (_, i) => `resource-${i}`);
  const logBuffer = createLogBuffer(logCapacity);
  const log = new SharedHoldLog(logBuffer);
  const controlBuffer = new SharedArrayBuffer(8 * 4);
  const control = new Int32Array(controlBuffer);
  const rng = createRandom(seed);
  const totals = { spawned: 0, terminated: 0, crashed: 0, stopped: 0, closedByHost: 0, diedHoldingEngineMutex: 0 };
  const live = new Map();   // threadId -> { worker, exited: Promise }
  let stolenFromDead = 0;
  let workerIndex = 0;

  // What the Node host does when a thread dies: declare it dead, then close its clients. First,
  // if it died holding a lock, find out whether that lock had been stolen meanwhile (its release
  // says false), which the thread may not have lived to record.
  // A thread terminated inside an engine call may have died holding the engine mutex: that
  // release then waits for it until it gives up with STUCK, and closeClientsOfOwner() (which
  // undoes the cut call and frees the mutex) settles it; whether that hold was stolen is then
  // unknown, which the checker allows (a dead holder's holds end when it is declared dead).
  const buryThread = (threadId, record) => {
    log.append('dead', 0, threadId);   // before anything of it is released
    if (record[2] !== 0) {
      let released = true;
      try {
        released = engine.release(record[0], record[1]);
      } catch (error) {
        if (error?.code !== 'STUCK') throw error;
        totals.diedHoldingEngineMutex++;
      }
      if (!released) {
        log.append('stolen', record[2], threadId);
        stolenFromDead++;
      }
    }
    totals.closedByHost += engine.closeClientsOfOwner(threadId);
  };

  const spawn = () => {
    const recordBuffer = new SharedArrayBuffer(3 * 8);
    const record = new Float64Array(recordBuffer);
    const worker = new Worker(new URL('./thread-chaos-worker.mjs', import.meta.url), {
      workerData: { module, memory, logBuffer, controlBuffer, recordBuffer, seed: seed * 1000 + workerIndex, workerIndex: ++workerIndex, nameCount, crashChance, plantFakeGrants },
    });
    totals.spawned++;
    const threadId = worker.threadId;
    const exited = new Promise((resolve) => {
      let crashed = false;
      worker.on('error', () => { crashed = true; });
      worker.on('exit', () => {
        if (crashed) totals.crashed++;
        if (live.get(threadId)?.worker === worker) live.delete(threadId);
        buryThread(threadId, record);
        resolve();
      });
    });
    live.set(threadId, { worker, exited });
  };

  for (let i = 0; i < threads; i++) spawn();
  const deadline = performance.now() + seconds * 1000;
  while (performance.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, killEveryMs[0] + rng.int(killEveryMs[1] - killEveryMs[0])));
    const victims = [...live.values()];
    if (victims.length && rng.chance(0.7)) {
      const { worker, exited } = rng.pick(victims);
      await worker.terminate();
      await exited;
      totals.terminated++;
    }
    while (live.size < threads) spawn();
  }
  Atomics.store(control, 0, 1);
  await Promise.all([...live.values()].map(({ exited }) => exited));
  totals.stopped = totals.spawned - totals.terminated - totals.crashed;

  const { entries, overflowed } = log.read(names);
  const checked = checkHolds(entries);
  const snapshot = engine.snapshot();
  const stats = engine.stats();
  if (process.env.CHAOS_DUMP) (await import('node:fs')).writeFileSync(process.env.CHAOS_DUMP, JSON.stringify(entries));
  return {
    ...totals,
    grants: Atomics.load(control, 1), steals: Atomics.load(control, 2), abortsWon: Atomics.load(control, 3), notAvailable: Atomics.load(control, 4),
    logEntries: entries.length, logOverflowed: overflowed,
    holdsChecked: checked.holds, holdsStolen: checked.stolen, stolenFromDead, violations: checked.violations, stillHeld: checked.stillHeld, problems: checked.problems,
    engineHeldAtEnd: snapshot.held.length, enginePendingAtEnd: snapshot.pending.length, engineClientsAtEnd: stats.clients,
  };
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = Object.fromEntries(process.argv.slice(2).join(' ').split('--').filter(Boolean).map((s) => s.trim().split(/\s+/)).map(([k, v]) => [k.replace(/-(\w)/g, (_, c) => c.toUpperCase()), v === undefined ? true : Number(v)]));
  const result = await runThreadChaos(args);
  console.log(JSON.stringify(result, null, 1));
  process.exitCode = result.violations || result.stillHeld.length || result.problems.length || result.engineHeldAtEnd || result.enginePendingAtEnd ? 1 : 0;
}
