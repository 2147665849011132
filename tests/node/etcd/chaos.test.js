// Chaos on the etcd lock space: several Node processes contend with random requests, steals and
// aborts on a 3-member cluster while etcd members and client processes are killed (SIGKILL) and
// restarted, members (the leader every other time) are paused (SIGSTOP), and the clients, which
// reach etcd through fault proxies (support/fault-proxy.js), have etcd's answers lost after it
// committed (the answer of one call, or every answer for a while) or delayed. The resource they
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

const cluster = await startCluster();
const proxies = await startFaultProxies(cluster);
const everyChild = new Set();
after(async () => {
  for (const child of everyChild) child.kill('SIGKILL'); // after a failure: nothing left behind
  await proxies.close();
  await cluster.stop();
});

test(`${CLIENTS} client processes contend while etcd members and clients are SIGKILLed and restarted, members paused and answers lost or delayed: zero fencing violations, nothing stuck`, { timeout: CHAOS_MS * 4 + 90_000 }, async () => {
  const namespace = `chaos-${process.pid}/`;
  const names = ['alpha', 'beta', 'gamma'];
  const resource = new FencedResource();
  const totals = { granted: 0, shared: 0, null: 0, stolen: 0, aborted: 0, lost: 0, failed: 0, refusedWrites: 0 };
  const seen = { granted: 0, shared: 0, null: 0, stolen: 0, aborted: 0, lost: 0, failed: 0, refusedWrites: 0 }; // every client's, as they happen
  const errors = [];
  const events = { memberKills: 0, leaderKills: 0, memberPauses: 0, leaderPauses: 0, clientKills: 0, clientsStarted: 0, answersLost: 0, answerLossWindows: 0, delayWindows: 0 };
  const children = new Set();
  let seed = 1;

  function startClient() {
    const child = fork(contender, [JSON.stringify({
      hosts: proxies.hosts, namespace, names, lanes: 3, seed: seed++, leaseTtl: 2, keepAliveInterval: 400,
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
        } else if (message.op === 'outcome') {
          seen[message.kind]++;
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
  await Promise.all([...children].map((entry) => entry.ready));

  // Chaos: one etcd member down at a time (quorum stays), and client processes killed and replaced,
  // for CHAOS_MS and then until what the test checks has happened (a run whose elections took
  // long made 67 writes and no steal in 15 s), at most four times as long.
  const end = Date.now() + CHAOS_MS;
  const cap = Date.now() + CHAOS_MS * 4;
  const enough = () => resource.check().writes > 100 && seen.stolen > 0 && seen.aborted > 0 && seen.null > 0
    && events.answersLost > 0;
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
      await startClient().ready;
    }
    await sleep(500);
  }

  await answerFaults;
  // Stop the survivors cleanly and collect their counts.
  const survivors = [...children];
  for (const entry of survivors) entry.child.send({ op: 'stop' });
  await Promise.all(survivors.map((entry) => entry.done));

  const result = resource.check();
  console.log(`# etcd chaos: ${CHAOS_MS} ms, ${JSON.stringify(events)}, outcomes of clean survivors ${JSON.stringify(totals)}, `
    + `of every client ${JSON.stringify(seen)}, rounds ${round}, `
    + `resource: ${result.writes} accepted writes on ${result.names} names, ${result.refused} refused by fencing, ${result.violations.length} violations${errors.length ? `; errors: ${JSON.stringify([...new Set(errors)])}` : ""}`);
  assert.deepEqual(result.violations, []);
  assert.deepEqual(errors, [], 'no request failed for another reason than a steal, an abort or a lost lease');
  assert.ok(result.writes > 100, `the clients made progress: ${result.writes} accepted writes`);
  assert.ok(seen.stolen > 0 && seen.aborted > 0 && seen.null > 0, `steals, aborts and ifAvailable happened: ${JSON.stringify(seen)}`);
  assert.ok(events.memberKills > 0 && events.leaderKills > 0 && events.clientKills > 0 && events.answersLost > 0, JSON.stringify(events));

  // Liveness: the killed clients' leases expire, and the lock space ends empty.
  const observer = createLockManager({ etcd: { hosts: cluster.hosts, namespace } });
  try {
    for (;;) {
      const state = await observer.query();
      if (state.held.length === 0 && state.pending.length === 0) break;
      await sleep(200);
    }
  } finally {
    await closeLockManager(observer);
  }
});
