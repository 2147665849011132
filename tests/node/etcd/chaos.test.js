// Chaos on the etcd lock space: several Node processes contend with random requests, steals and
// aborts on a 3-member cluster while etcd members and client processes are killed (SIGKILL) and
// restarted, members (the leader every other time) are paused (SIGSTOP), and the clients, which
// reach etcd through fault proxies (support/fault-proxy.js), have etcd's answers lost after it
// committed (the answer of one call, or every answer for a while) or delayed, and their watches
// of a name fall silent now and then (fixtures/contender.js). The resource they
// write to (support/fenced-resource.js, in this process) checks mutual exclusion by fencing
// tokens: no interleaved holders, no token given to two holders; at the end nothing is stuck.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { fork } from 'node:child_process';
import { startCluster } from './support/cluster.js';
import { startFaultProxies } from './support/fault-proxy.js';
import { FencedResource } from './support/fenced-resource.js';
import { createLockManager, closeLockManager } from '../../../js/etcd/index.js';

const CHAOS_MS = Number(process.env.WEBLOCKS_ETCD_CHAOS_MS ?? 15_000);
const CLIENTS = 4;
const contender = new URL('./fixtures/contender.js', import.meta.url);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
// Each phase that waits for the system under test has a bound of its own, so a stuck run fails
// naming the phase and what was still waiting, not with the test's timeout and no evidence.
async function within(ms, promise, describe) {
  let timer;
  const late = new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(`${describe()} (after ${ms} ms)`)), ms); });
  try { return await Promise.race([promise, late]); } finally { clearTimeout(timer); }
}

const cluster = await startCluster();
const proxies = await startFaultProxies(cluster);
const everyChild = new Set();
after(async () => {
  for (const child of everyChild) child.kill('SIGKILL'); // after a failure: nothing left behind
  await proxies.close();
  await cluster.stop();
});

test(`${CLIENTS} client processes contend while etcd members and clients are SIGKILLed and restarted, members paused, answers lost or delayed and watches silenced: zero fencing violations, nothing stuck`, { timeout: CHAOS_MS * 4 + 150_000 }, async () => {
  const namespace = `chaos-${process.pid}/`;
  const names = ['alpha', 'beta', 'gamma'];
  const resource = new FencedResource();
  const totals = { granted: 0, shared: 0, null: 0, stolen: 0, aborted: 0, lost: 0, failed: 0, refusedWrites: 0 };
  const seen = { granted: 0, shared: 0, null: 0, stolen: 0, aborted: 0, lost: 0, failed: 0, refusedWrites: 0 }; // every client's, as they happen
  const errors = [];
  const grants = new Map(); // `${name}@${fencingToken}` -> every grant with that token (evidence)
  const events = { memberKills: 0, leaderKills: 0, memberPauses: 0, leaderPauses: 0, clientKills: 0, clientsStarted: 0, answersLost: 0, answerLossWindows: 0, delayWindows: 0, watchesSilenced: 0 };
  const children = new Set();
  let seed = 1;

  function startClient() {
    const child = fork(contender, [JSON.stringify({
      hosts: proxies.hosts, namespace, names, lanes: 3, seed: seed++, leaseTtl: 2, keepAliveInterval: 400, deafenEvery: 2000,
    })], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    events.clientsStarted++;
    everyChild.add(child);
    child.on('exit', () => everyChild.delete(child));
    const entry = { child, ready: null, done: null };
    entry.ready = new Promise((resolve, reject) => {
      child.on('message', (m) => { if (m.op === 'ready') resolve(); });
      child.on('exit', (code) => reject(new Error(`a client process exited (${code}) before it was ready: ${errors.join('; ')}`)));
    });
    entry.ready.catch(() => {});
    entry.done = new Promise((resolve) => {
      child.on('message', (message) => {
        if (message.op === 'write') {
          const accepted = resource.write(message.name, message.holder, message.token);
          if (child.connected) child.send({ op: 'written', id: message.id, accepted });
        } else if (message.op === 'grant') {
          const key = `${message.name}@${message.fence}`;
          if (!grants.has(key)) grants.set(key, []);
          grants.get(key).push(`${message.key.slice(-28)} by ${message.where} (view at ${message.mirror}: ${message.queue}; watch: ${JSON.stringify(message.history)})`);
        } else if (message.op === 'outcome') {
          seen[message.kind]++;
        } else if (message.op === 'deafened') {
          events.watchesSilenced++;
        } else if (message.op === 'done') {
          for (const key of Object.keys(totals)) totals[key] += message.counts[key];
        } else if (message.op === 'error') {
          errors.push(message.message);
        }
      });
      child.on('exit', resolve);
    });
    children.add(entry);
    child.on('exit', () => children.delete(entry));
    return entry;
  }

  for (let i = 0; i < CLIENTS; i++) startClient();
  await within(30_000, Promise.all([...children].map((entry) => entry.ready)), () => `the client processes did not connect: ${errors.join('; ')}`);

  // Chaos: one etcd member down at a time (quorum stays), and client processes killed and replaced,
  // for CHAOS_MS and then until what the test checks has happened (a run whose elections took
  // long made 67 writes and no steal in 15 s), at most four times as long.
  const end = Date.now() + CHAOS_MS;
  const cap = Date.now() + CHAOS_MS * 4;
  const enough = () => resource.check().writes > 100 && seen.stolen > 0 && seen.aborted > 0 && seen.null > 0
    && events.answersLost > 0 && events.memberKills > 0 && events.leaderKills > 0 && events.clientKills > 0 && events.watchesSilenced > 0;
  const chaosOver = () => Date.now() >= end && (enough() || Date.now() >= cap);
  // Answer loss, beside the rest: the answer of the next call lost (its connection cut), every
  // answer lost for a moment, or every answer late for a moment.
  const answerFaults = (async () => {
    for (let i = 0; !chaosOver(); i++) {
      const kind = i % 3;
      if (kind === 0) {
        const lost = proxies.loseAnswerOf(1 + (i % 2), 'cut');
        await Promise.race([lost.then(() => { events.answersLost++; }), sleep(2000)]);
      } else if (kind === 1) {
        proxies.loseAnswers();
        events.answerLossWindows++;
        await sleep(100 + (i * 97) % 500);
        proxies.restore();
      } else {
        proxies.delayAnswers(50 + (i * 53) % 250);
        events.delayWindows++;
        await sleep(300 + (i * 71) % 700);
        proxies.restore();
      }
      await sleep(200 + (i * 131) % 600);
    }
    proxies.restore();
  })();
  let round = 0;
  while (!chaosOver()) {
    round++;
    if (round % 6 === 5) {
      // A member paused for half the clients' lease TTL (every other time the leader).
      const leader = round % 12 === 5 ? await cluster.leaderIndex() : -1;
      const member = leader >= 0 ? leader : round % 3;
      cluster.pause(member);
      events.memberPauses++;
      if (leader >= 0) events.leaderPauses++;
      await sleep(1000);
      cluster.resume(member);
    } else if (round % 2 === 1) {
      // Every other member kill is the leader's (an election follows).
      const leader = round % 4 === 1 ? await cluster.leaderIndex() : -1;
      const member = leader >= 0 ? leader : round % 3;
      await cluster.kill(member);
      events.memberKills++;
      if (leader >= 0) events.leaderKills++;
      await sleep(700 + (round * 137) % 800);
      cluster.restart(member);
      await cluster.waitHealthy([member]);
    } else {
      const victims = [...children];
      const victim = victims[round % victims.length];
      victim.child.kill('SIGKILL');
      events.clientKills++;
      await victim.done;
      await within(30_000, startClient().ready, () => `a client process started after a kill did not connect: ${errors.join('; ')}`);
    }
    await sleep(500);
  }

  await answerFaults;
  // Stop the survivors cleanly and collect their counts.
  const survivors = [...children];
  for (const entry of survivors) entry.child.send({ op: 'stop' });
  // A contender reports what its lanes still wait for 20 s after stop (an error message).
  try {
    await within(25_000, Promise.all(survivors.map((entry) => entry.done)), () => 'the surviving clients did not stop');
  } catch (error) {
    const observer = createLockManager({ etcd: { hosts: cluster.hosts, namespace } });
    const state = await within(5000, observer.query(), () => 'query() of the lock space').catch((e) => e.message);
    closeLockManager(observer).catch(() => {});
    const members = await Promise.all(cluster.members.map(async (member, i) => {
      try {
        const metrics = await (await fetch(`${cluster.hosts[i]}/metrics`, { signal: AbortSignal.timeout(2000) })).text();
        const metric = (name) => metrics.match(new RegExp(`^${name} (\\S+)$`, 'm'))?.[1];
        return { member: i, paused: member.paused ?? false, revision: metric('etcd_debugging_mvcc_current_revision'),
          leader: metric('etcd_server_is_leader'), hasLeader: metric('etcd_server_has_leader'), applied: metric('etcd_server_proposals_applied_total'),
          watchers: metric('etcd_debugging_mvcc_watcher_total'), slowWatchers: metric('etcd_debugging_mvcc_slow_watcher_total') };
      } catch (e) { return { member: i, error: e.message }; }
    }));
    error.message += `; the members: ${JSON.stringify(members)}; the lock space: ${JSON.stringify(state)}; the clients said: ${JSON.stringify([...new Set(errors)])}`;
    throw error;
  }

  const result = resource.check();
  console.log(`# etcd chaos: ${CHAOS_MS} ms, ${JSON.stringify(events)}, outcomes of clean survivors ${JSON.stringify(totals)}, `
    + `of every client ${JSON.stringify(seen)}, rounds ${round}, `
    + `resource: ${result.writes} accepted writes on ${result.names} names, ${result.refused} refused by fencing, ${result.violations.length} violations${errors.length ? `; errors: ${JSON.stringify([...new Set(errors)])}` : ""}`);
  const evidence = result.violations.map((violation) => {
    const [, name, token] = violation.match(/^(\S+): token (\d+)/) ?? [];
    return name === undefined ? violation : `${violation}; grants: ${JSON.stringify(grants.get(`${name}@${token}`))}`;
  });
  assert.deepEqual(evidence, []);
  assert.deepEqual(errors, [], 'no request failed for another reason than a steal, an abort or a lost lease');
  assert.ok(result.writes > 100, `the clients made progress: ${result.writes} accepted writes`);
  assert.ok(seen.stolen > 0 && seen.aborted > 0 && seen.null > 0, `steals, aborts and ifAvailable happened: ${JSON.stringify(seen)}`);
  assert.ok(events.memberKills > 0 && events.leaderKills > 0 && events.clientKills > 0 && events.answersLost > 0 && events.watchesSilenced > 0, JSON.stringify(events));

  // Liveness: the killed clients' leases expire, and the lock space ends empty.
  const observer = createLockManager({ etcd: { hosts: cluster.hosts, namespace } });
  let state = null;
  try {
    await within(30_000, (async () => {
      for (;;) {
        state = await observer.query();
        if (state.held.length === 0 && state.pending.length === 0) break;
        await sleep(200);
      }
    })(), () => `the lock space did not end empty; last query(): ${JSON.stringify(state)}`);
  } finally {
    await closeLockManager(observer);
  }
});
