// The remote lock space over loopback, against a bare WebSocket echo on the same server, same run:
//   node bench/remote/run.mjs [--rounds N] [--ops N] [--liveness-rounds N] [--silent 200/1000,500/2000] [--out FILE.md]
// Node client: uncontended request() latency (p50, p99) vs the echo's round trip; handoffs/s
// between two clients on one name; then the liveness rounds (liveness.mjs): a holder process
// SIGKILLed, and one SIGSTOPped under each PING/GRACE pair, to the next waiter's grant.
// Writes build/bench/remote.json and prints markdown tables (also to --out, with the load average).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { parseArgs } from 'node:util';
import WebSocket from 'ws';
import { createLockManager } from '../../js/remote/node.js';
import { livenessRounds, livenessTables } from './liveness.mjs';
import { writeResultFile } from './out.mjs';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '5' }, ops: { type: 'string', default: '3000' },
    'liveness-rounds': { type: 'string', default: '9' }, silent: { type: 'string', default: '200/1000,500/2000' },
    out: { type: 'string' },
  },
});
const rounds = Number(values.rounds);
const ops = Number(values.ops);
const silentPairs = values.silent.split(',').filter(Boolean).map((pair) => {
  const [pingInterval, grace] = pair.split('/').map(Number);
  return { pingInterval, grace };
});
const loadAtStart = os.loadavg();
const startedAt = new Date();

const child = spawn(process.execPath, [new URL('./server.mjs', import.meta.url).pathname, ...silentPairs.map((p) => `${p.pingInterval}/${p.grace}`)], { stdio: ['ignore', 'pipe', 'inherit'] });
// The server goes with this process, whatever ends it (it shares this process's stderr: a pipe
// reading both would otherwise wait for it).
process.on('exit', () => child.kill());
const [portLine] = await once(child.stdout, 'data');
const port = Number(String(portLine).trim());

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
const median = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];

async function echoRound(socket) {
  const samples = [];
  const frame = JSON.stringify({ t: 'req', s: 1, a: 0, id: 1, name: 'bench', mode: 'exclusive', wait: 'wait' });
  for (let i = 0; i < ops; i++) {
    const t0 = performance.now();
    socket.send(frame);
    await once(socket, 'message');
    samples.push((performance.now() - t0) * 1000);
  }
  return samples.sort((a, b) => a - b);
}

async function requestRound(locks) {
  const samples = [];
  const callback = () => {};
  for (let i = 0; i < ops; i++) {
    const t0 = performance.now();
    await locks.request('uncontended', callback);
    samples.push((performance.now() - t0) * 1000);
  }
  return samples.sort((a, b) => a - b);
}

// The floor of a handoff between two clients: the holder's release must reach the server and the
// next holder's grant must come back from it, one hop each way. Two connections of the bare relay
// pass one frame back and forth (each forwards what it gets): hops per second, with no lock work
// and none of the other frames a handoff also carries (the releaser's confirmation, its next request).
async function relayRound(a, b) {
  const frame = JSON.stringify({ t: 'granted', s: 1, a: 0, id: 1, token: 1 });
  let hops = 0;
  const t0 = performance.now();
  await new Promise((resolve) => {
    const bounce = (socket) => () => {
      if (++hops === ops) resolve();
      else if (hops < ops) socket.send(frame);
    };
    a.on('message', bounce(a));
    b.on('message', bounce(b));
    a.send(frame);
  });
  const rate = hops / ((performance.now() - t0) / 1000);
  a.removeAllListeners('message');
  b.removeAllListeners('message');
  return rate;
}

async function handoffRound(a, b) {
  const n = ops;
  let done = 0;
  const t0 = performance.now();
  const loop = async (locks) => {
    while (done < n) await locks.request('handoff', () => { done++; });
  };
  await Promise.all([loop(a), loop(b)]);
  return done / ((performance.now() - t0) / 1000);
}

const echo = new WebSocket(`ws://127.0.0.1:${port}/echo`, { perMessageDeflate: false });
await once(echo, 'open');
const relay = [0, 1].map(() => new WebSocket(`ws://127.0.0.1:${port}/relay?pair=bench`, { perMessageDeflate: false }));
await Promise.all(relay.map((socket) => once(socket, 'message'))); // 'paired'
const locks = createLockManager({ url: `ws://127.0.0.1:${port}/locks` });
const [h1, h2] = [createLockManager({ url: `ws://127.0.0.1:${port}/locks` }), createLockManager({ url: `ws://127.0.0.1:${port}/locks` })];
// Warm-up: connections, JIT.
await echoRound(echo);
await requestRound(locks);
await handoffRound(h1, h2);
await relayRound(...relay);

const rows = { echoP50: [], echoP99: [], requestP50: [], requestP99: [], handoffs: [], relayHops: [], ratio: [] };
for (let round = 0; round < rounds; round++) {
  // Alternate the order so drift in the machine's load falls on both alike.
  const first = round % 2 === 0;
  const e = first ? await echoRound(echo) : null;
  const r = await requestRound(locks);
  const e2 = e ?? await echoRound(echo);
  rows.echoP50.push(percentile(e2, 0.5));
  rows.echoP99.push(percentile(e2, 0.99));
  rows.requestP50.push(percentile(r, 0.5));
  rows.requestP99.push(percentile(r, 0.99));
  rows.ratio.push(percentile(r, 0.5) / percentile(e2, 0.5));
  rows.handoffs.push(await handoffRound(h1, h2));
  rows.relayHops.push(await relayRound(...relay));
}
locks.close(); h1.close(); h2.close(); echo.close();
for (const socket of relay) socket.close();
const liveness = await livenessRounds(port, { rounds: Number(values['liveness-rounds']), silentPairs });
const result = {
  date: startedAt.toISOString(), rounds, ops, node: process.version,
  echoRoundTripP50us: median(rows.echoP50), echoRoundTripP99us: median(rows.echoP99),
  requestP50us: median(rows.requestP50), requestP99us: median(rows.requestP99),
  requestOverEchoP50: median(rows.ratio), handoffsPerSecond: median(rows.handoffs),
  relayHopsPerSecond: median(rows.relayHops),
};
mkdirSync(new URL('../../build/bench/', import.meta.url), { recursive: true });
writeFileSync(new URL('../../build/bench/remote.json', import.meta.url), JSON.stringify({ result, rows, liveness }, null, 2));
const markdown = `| remote lock space, Node client over loopback (median of ${rounds} rounds × ${ops}) | value |
|---|---|
| bare WebSocket echo round trip, p50 / p99 | ${result.echoRoundTripP50us.toFixed(0)} µs / ${result.echoRoundTripP99us.toFixed(0)} µs |
| uncontended request(), p50 / p99 | ${result.requestP50us.toFixed(0)} µs / ${result.requestP99us.toFixed(0)} µs |
| request() p50 ÷ echo p50 | ${result.requestOverEchoP50.toFixed(2)}× |
| handoffs between two clients on one name | ${Math.round(result.handoffsPerSecond)} /s |
| bare relay between two connections (a handoff's floor: release in, grant out), hops | ${Math.round(result.relayHopsPerSecond)} /s |
| handoffs ÷ relay hops | ${(result.handoffsPerSecond / result.relayHopsPerSecond).toFixed(2)} |

${livenessTables([['Node client process SIGKILLed', liveness.crash]], liveness.silent)}`;
console.log(markdown);
if (values.out) writeResultFile(values.out, { title: 'The lock server over loopback, Node clients', script: 'bench/remote/run.mjs', startedAt, loadAtStart, markdown });
child.kill();
