// Chaos across processes: node:cluster workers and plain child processes (one with worker threads
// of its own) contend on three names with random requests, steals, ifAvailable and aborts, while
// processes SIGKILL themselves (in and out of critical sections), the harness SIGKILLs others, and
// the hub itself is SIGKILLed again and again, some of those times while a contender is stopped
// (SIGSTOP, for up to 3.5 s: it resumes under another hub) or busy in a synchronous task of its own
// (fixtures/chaos-agent.mjs). An external checker (stamps.js) reads every section's enter and leave
// from one O_APPEND file: zero violations, nothing lost but to a steal, nothing left held. A second
// oracle reads what each hub decided, its journal (journal-check.js): no grant while a conflicting
// lock was held, but by a steal.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createMachineLockManager } from '../../../js/machine/locks.js';
import { freshSpace, forkJoined, exitOf, killHub, hubPid } from './support.js';
import { checkStamps } from './stamps.js';
import { checkJournal } from './journal-check.js';

const RUN_MS = Number(process.env.WEBLOCKS_CHAOS_MS ?? 12_000);
const agent = new URL('./fixtures/chaos-agent.mjs', import.meta.url);
const clusterPrimary = new URL('./fixtures/chaos-cluster.mjs', import.meta.url);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

test(`cluster workers and child processes under SIGKILL, the hub SIGKILLed too: no two holders, nothing left held (${RUN_MS / 1000} s)`, { timeout: RUN_MS + 90_000 }, async (t) => {
  const space = freshSpace(t);
  const stamps = path.join(space.folder, 'stamps.log');
  fs.writeFileSync(stamps, '');
  const stamp = (line) => fs.appendFileSync(stamps, `${line}\n`);
  const deadline = Date.now() + RUN_MS;
  const base = { stamps, deadline, seed: 20261124, loops: 3, killAfterMs: 4000, killInSection: 0.002 };
  const running = new Set();
  let started = 0;

  // Plain child processes, each replaced when it dies; the first has two worker threads too.
  const keep = (slot, threads) => {
    const child = forkJoined(agent, [JSON.stringify({ ...base, threads })], space.env);
    started++;
    running.add(child);
    exitOf(child).then(() => {
      running.delete(child);
      if (Date.now() < deadline) keep(slot, threads);
    });
  };
  keep(0, 2);
  keep(1, 0);
  keep(2, 0);
  // A node:cluster primary keeping three workers.
  const primary = forkJoined(clusterPrimary, [JSON.stringify({ ...base, threads: 0, workers: 3 })], space.env);
  let clusterWorkers = 0;
  primary.on('message', () => { clusterWorkers++; });

  // The harness kills too: a random plain child every 1.5 s, the hub every 3 s; every other hub
  // kill, with a random plain child stopped from just before it until 0.5-3.5 s after.
  let hubKills = 0;
  const journals = new Map(); // hub pid -> its journal
  let pauses = 0;
  const paused = new Set(); // children stopped now
  const pick = () => {
    const candidates = [...running].filter((child) => child.exitCode === null && child.signalCode === null && !paused.has(child));
    return candidates[Math.floor(Math.random() * candidates.length)];
  };
  while (Date.now() < deadline - 500) {
    await sleep(1500);
    const victim = pick();
    if (victim?.pid !== undefined) {
      stamp(`kill ${victim.pid}`);
      victim.kill('SIGKILL');
    }
    await sleep(1500);
    const sleeper = hubKills % 2 === 0 ? pick() : undefined;
    if (sleeper?.pid !== undefined) {
      sleeper.kill('SIGSTOP');
      paused.add(sleeper);
      pauses++;
      setTimeout(() => { sleeper.kill('SIGCONT'); paused.delete(sleeper); }, 500 + Math.random() * 3000);
    }
    const pid = hubPid(space.files);
    if (pid !== null) {
      // The journal this hub wrote in its life (the next hub rewrites it), for checkJournal.
      try { journals.set(pid, fs.readFileSync(space.files.journal, 'utf8')); } catch { /* none yet */ }
      stamp(`hub-killed ${pid}`);
      killHub(space.files);
      hubKills++;
    }
  }
  while (paused.size > 0) await sleep(50);
  // Everyone stops at the deadline; one that does not within 30 s waits for a lock it never gets.
  const locks = createMachineLockManager({ folder: space.folder, space: space.space });
  const stopped = (async () => {
    await exitOf(primary);
    while (running.size > 0) await Promise.all([...running].map(exitOf));
  })();
  let timer;
  const late = await Promise.race([stopped.then(() => false), new Promise((resolve) => { timer = setTimeout(resolve, 30_000, true); })]);
  clearTimeout(timer);
  if (late) {
    const state = await locks.query();
    for (const child of [primary, ...running]) child.kill('SIGKILL');
    assert.fail(`contenders still running 30 s after the deadline; the lock space: ${JSON.stringify(state).slice(0, 2000)}`);
  }

  try { journals.set('last', fs.readFileSync(space.files.journal, 'utf8')); } catch { /* none */ }
  const hubs = [...journals].map(([pid, text]) => ({ pid, ...checkJournal(text) }));
  if (process.env.WEBLOCKS_CHAOS_KEEP) {
    for (const file of [stamps, space.files.log]) fs.copyFileSync(file, path.join(process.env.WEBLOCKS_CHAOS_KEEP, path.basename(file)));
    for (const [pid, text] of journals) fs.writeFileSync(path.join(process.env.WEBLOCKS_CHAOS_KEEP, `journal-of-${pid}`), text);
  }
  const stampText = fs.readFileSync(stamps, 'utf8');
  const result = checkStamps(stampText);
  if (result.violations.length > 0) {
    // The CI keeps only its log: the story of the first violation goes into the failure message.
    const holder = result.violations[0].while.split(' ')[0];
    const pid = holder.split('.')[0];
    const story = stampText.split('\n').map((line, at) => `${at}: ${line}`)
      .filter((line) => line.includes(` ${pid}.`) || line.includes(` ${pid}`) || /: (kill|killed|hub-killed) /.test(line)).slice(0, 200);
    let hubLog = '';
    try { hubLog = fs.readFileSync(space.files.log, 'utf8'); } catch { /* none */ }
    result.story = `stamps of process ${pid}, and every kill:\n${story.join('\n')}\nthe hubs' log:\n${hubLog.slice(-12_000)}\n`
      + `the hubs' journals: ${hubs.map((hub) => `hub ${hub.pid}: ${hub.grants} grants, ${hub.steals} steals, ${hub.conflicts.length} conflicting grants ${hub.conflicts.slice(0, 3).join('; ')}`).join('\n')}`;
  }
  const sum = (key) => hubs.reduce((total, hub) => total + hub[key], 0);
  t.diagnostic(`${started} child processes and ${clusterWorkers} cluster workers started, ${hubKills} hub kills, ${pauses} of them with a contender stopped; ${JSON.stringify(result.counts)}; `
    + `${hubs.length} hubs' journals: ${sum('grants')} grants, ${sum('steals')} steals, ${sum('unjudged')} not judged (cut short)`);
  const hubConflicts = hubs.flatMap((hub) => hub.conflicts.map((conflict) => `hub ${hub.pid}: ${conflict}`));
  assert.deepEqual(hubConflicts.slice(0, 5), [], 'no hub\'s journal shows a grant while a conflicting lock was held (but by a steal)');
  assert.ok(sum('grants') > 0, 'the journals were read');
  assert.deepEqual(result.violations.slice(0, 5), [], `${result.violations.length} violations; ${result.story}`);
  assert.deepEqual(result.errors.slice(0, 5), [], 'no request failed');
  assert.deepEqual(result.unexplainedLosses.slice(0, 5), [], 'no lock was lost but to a steal');
  const c = result.counts;
  assert.ok(c.sections > 0 && c.shared > 0 && c.steals > 0 && c.stolen > 0 && c.unavailable > 0 && c.aborted > 0 && c.processKills > 0 && c.hubKills > 0 && c.busy > 0 && pauses > 0,
    `every kind of event happened: ${JSON.stringify(c)}`);

  const state = await locks.query();
  assert.deepEqual(state, { held: [], pending: [] }, 'nothing left held or waiting');
});
