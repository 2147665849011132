// The etcd lock space side by side with what Node users pick today for distributed locks:
// redlock (npm, v5) on a local Redis. Both on loopback, started here: a 3-member etcd cluster
// (Debian's etcd-server, data on /dev/shm) and one redis-server (no persistence). Contenders take
// turns round by round. Prints JSON and writes bench/results/etcd.md.
//   node bench/etcd/run.mjs [--rounds 5] [--requests 200] [--seconds 3]
// Workloads:
// - uncontended: one client, `await request(name, () => {})` in a loop (acquire + release), µs each.
// - handoff: two clients each looping request → empty callback → release on one name for N seconds;
//   handoffs/s counts acquisitions by a different client than the previous holder (the waiter
//   getting the lock), acquisitions/s all of them.
// redlock runs with its defaults (retryDelay 200 ms, jitter 100 ms) and tuned (retryDelay 5 ms,
// jitter 5 ms), both with unlimited retries. Its locks have no queue: a waiter polls.
import { spawn } from 'node:child_process';
import { writeFileSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { startCluster, freePort } from '../../tests/node/etcd/support/cluster.js';
import { createLockManager, closeLockManager } from '../../js/etcd/index.js';
import { summarize } from '../lib/stats.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
const { values } = parseArgs({ options: {
  rounds: { type: 'string', default: '5' },
  requests: { type: 'string', default: '200' },
  seconds: { type: 'string', default: '3' },
  out: { type: 'string', default: 'bench/results/etcd.md' },
} });
const ROUNDS = Number(values.rounds);
const REQUESTS = Number(values.requests);
const SECONDS = Number(values.seconds);
const log = (message) => process.stderr.write(`${message}\n`);

async function startRedis() {
  const port = await freePort();
  const child = spawn('/usr/bin/redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  const { default: Redis } = await import('ioredis');
  for (let i = 0; i < 200; i++) {
    const probe = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0 });
    try {
      await probe.connect();
      await probe.ping();
      probe.disconnect();
      break;
    } catch {
      probe.disconnect();
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  return { port, stop: () => new Promise((resolve) => { child.once('exit', resolve); child.kill('SIGKILL'); }) };
}

// ---- contenders: each gives `acquireRelease(name, onHeld)` clients ----

function etcdContender(hosts) {
  return {
    name: 'weblocks-wasm/etcd (3-member etcd)',
    async client() {
      const locks = createLockManager({ etcd: { hosts, namespace: 'bench/' } });
      await locks.query();
      return { run: (name, onHeld) => locks.request(name, onHeld), close: () => closeLockManager(locks) };
    },
  };
}

function redlockContender(port, label, settings) {
  return {
    name: label,
    async client() {
      const { default: Redis } = await import('ioredis');
      const { default: Redlock } = await import('redlock');
      const redis = new Redis({ port, host: '127.0.0.1' });
      const redlock = new Redlock([redis], { retryCount: -1, ...settings });
      return {
        async run(name, onHeld) {
          const lock = await redlock.acquire([name], 5000);
          try { return await onHeld(); } finally { await lock.release(); }
        },
        close: async () => { await redlock.quit(); },
      };
    },
  };
}

async function uncontended(contender, round) {
  const client = await contender.client();
  const name = `u-${round}-${Math.random().toString(36).slice(2)}`;
  for (let i = 0; i < 10; i++) await client.run(name, () => {}); // warm-up
  const start = performance.now();
  for (let i = 0; i < REQUESTS; i++) await client.run(name, () => {});
  const us = ((performance.now() - start) * 1000) / REQUESTS;
  await client.close();
  return us;
}

async function handoff(contender, round) {
  const clients = [await contender.client(), await contender.client()];
  const name = `h-${round}-${Math.random().toString(36).slice(2)}`;
  let acquisitions = 0;
  let handoffs = 0;
  let last = -1;
  let stop = false;
  const start = performance.now();
  setTimeout(() => { stop = true; }, SECONDS * 1000);
  await Promise.all(clients.map(async (client, id) => {
    while (!stop) {
      await client.run(name, () => {
        acquisitions++;
        if (last !== -1 && last !== id) handoffs++;
        last = id;
      });
    }
  }));
  const seconds = (performance.now() - start) / 1000;
  await Promise.all(clients.map((client) => client.close()));
  return { handoffsPerSecond: handoffs / seconds, acquisitionsPerSecond: acquisitions / seconds };
}

const cluster = await startCluster();
const redis = await startRedis();
const contenders = [
  etcdContender(cluster.hosts),
  redlockContender(redis.port, 'redlock 5 on Redis 7 (defaults: retryDelay 200 ms)', {}),
  redlockContender(redis.port, 'redlock 5 on Redis 7 (retryDelay 5 ms, jitter 5 ms)', { retryDelay: 5, retryJitter: 5 }),
];
const samples = contenders.map(() => ({ uncontended: [], handoffs: [], acquisitions: [] }));
const loadAtStart = os.loadavg()[0];
try {
  for (let round = 0; round < ROUNDS; round++) {
    for (let c = 0; c < contenders.length; c++) {
      const us = await uncontended(contenders[c], round);
      const rate = await handoff(contenders[c], round);
      samples[c].uncontended.push(us);
      samples[c].handoffs.push(rate.handoffsPerSecond);
      samples[c].acquisitions.push(rate.acquisitionsPerSecond);
      log(`round ${round + 1}/${ROUNDS} ${contenders[c].name}: ${us.toFixed(0)} µs uncontended, ${rate.handoffsPerSecond.toFixed(0)} handoffs/s, ${rate.acquisitionsPerSecond.toFixed(0)} acquisitions/s`);
    }
  }
} finally {
  await redis.stop();
  await cluster.stop();
}

const results = contenders.map((contender, c) => ({
  name: contender.name,
  uncontendedMicroseconds: summarize(samples[c].uncontended),
  handoffsPerSecond: summarize(samples[c].handoffs),
  acquisitionsPerSecond: summarize(samples[c].acquisitions),
}));
const report = {
  when: new Date().toISOString(),
  machine: { cpu: os.cpus()[0]?.model, cores: os.cpus().length, node: process.version, loadAverage: [loadAtStart, os.loadavg()[0]].map((l) => Number(l.toFixed(2))) },
  config: { rounds: ROUNDS, requests: REQUESTS, seconds: SECONDS },
  results,
};
console.log(JSON.stringify(report, null, 2));

const ours = results[0];
// "3.2× slower" when a > b (a: ours for a latency, theirs for a rate), else "3.2× faster".
const ratio = (a, b, worse, better) => (a >= b ? `${(a / b).toFixed(1)}× ${worse}` : `${(b / a).toFixed(1)}× ${better}`);
const fmt = (n) => (n >= 100 ? Math.round(n).toLocaleString('en') : n.toFixed(1));
const spread = (s) => `${fmt(s.median)} (${fmt(s.q1)}-${fmt(s.q3)})`;
const lines = [
  '# The etcd lock space vs redlock',
  '',
  `Run of ${report.when.slice(0, 16).replace('T', ' ')} UTC, ${report.machine.cpu}, ${report.machine.cores} cores, Node ${process.version}, load average ${report.machine.loadAverage.join(' → ')}; `
    + `medians (interquartile range) over ${ROUNDS} rounds; ${REQUESTS} requests per uncontended round, ${SECONDS} s per handoff round. `
    + 'Command: `node bench/etcd/run.mjs` (starts a 3-member etcd 3.4 cluster on loopback with data on /dev/shm, and redis-server 7).',
  '',
  '| contender | uncontended request+release (µs) | handoffs/s (2 clients) | acquisitions/s (2 clients) | ours vs it: uncontended latency, handoff rate |',
  '|---|---:|---:|---:|---|',
  ...results.map((r) => `| ${r.name} | ${spread(r.uncontendedMicroseconds)} | ${spread(r.handoffsPerSecond)} | ${spread(r.acquisitionsPerSecond)} | `
    + (r === ours ? '-' : `${ratio(ours.uncontendedMicroseconds.median, r.uncontendedMicroseconds.median, 'slower', 'faster')}, `
      + `${ratio(r.handoffsPerSecond.median, ours.handoffsPerSecond.median, 'fewer handoffs', 'more handoffs')}`) + ' |'),
  '',
];
mkdirSync(`${root}bench/results`, { recursive: true });
writeFileSync(new URL(values.out, `file://${process.cwd()}/`), lines.join("\n"));
log(lines.join('\n'));
