// Cost growth at the engine level (js/engine, the engine every host runs), one child process per size:
//   node bench/growth/scenario.mjs <pending|names> <count> <rounds>
//   pending: one held lock, then `count` requests queued on the same name, then drained in order
//   names:   `count` distinct names, each held
// Each round uses a fresh engine. Reports µs per entry (to add, and to drain / release) and the
// engine memory per entry (stats().memoryBytes after minus before, divided by count).
import { performance } from 'node:perf_hooks';
import { createLocalEngine, MODE, WAIT, STATUS } from '../../js/engine/index.js';
import { reportResult } from '../lib/child.mjs';

const [kind, countArg, roundsArg] = process.argv.slice(2);
const count = Number(countArg);
const rounds = Number(roundsArg ?? 5);
const now = () => performance.now();

function pendingRound(engine) {
  const client = engine.openClient('growth');
  const holder = engine.request(client, 'growth', MODE.exclusive, WAIT.wait);
  const before = engine.stats().memoryBytes;
  const ids = new Array(count);
  const t0 = now();
  for (let i = 0; i < count; i++) ids[i] = engine.request(client, 'growth', MODE.exclusive, WAIT.wait).id;
  const t1 = now();
  const after = engine.stats().memoryBytes;
  const entries = engine.stats().entries;
  engine.release(client, holder.id);
  for (let i = 0; i < count; i++) {
    engine.release(client, ids[i]);        // each release grants the next one in the queue
    if ((i & 1023) === 1023) engine.takeEvents(client);
  }
  engine.takeEvents(client);
  const t2 = now();
  if (entries !== count + 1) throw new Error(`engine shows ${entries} entries, expected ${count + 1}`);
  return { add: (t1 - t0) * 1000 / count, remove: (t2 - t1) * 1000 / count, bytes: (after - before) / count };
}

function namesRound(engine) {
  const client = engine.openClient('growth');
  const names = Array.from({ length: count }, (_, i) => `name-${i}`);
  const ids = new Array(count);
  const before = engine.stats().memoryBytes;
  const t0 = now();
  for (let i = 0; i < count; i++) {
    const answer = engine.request(client, names[i], MODE.exclusive, WAIT.wait);
    if (answer.status !== STATUS.granted) throw new Error(`name ${i} was not granted`);
    ids[i] = answer.id;
  }
  const t1 = now();
  const { memoryBytes: after, names: held } = engine.stats();
  for (let i = 0; i < count; i++) engine.release(client, ids[i]);
  const t2 = now();
  if (held !== count) throw new Error(`engine shows ${held} names, expected ${count}`);
  return { add: (t1 - t0) * 1000 / count, remove: (t2 - t1) * 1000 / count, bytes: (after - before) / count };
}

const round = kind === 'pending' ? pendingRound : namesRound;
const results = [];
for (let r = 0; r <= rounds; r++) {
  const result = round(await createLocalEngine());
  if (r > 0) results.push(result);      // round 0 warms up the JIT
}
reportResult({
  unit: 'µs/entry',
  samples: results.map((r) => r.add + r.remove),
  extra: { count, addUs: results.map((r) => r.add), removeUs: results.map((r) => r.remove), bytesPerEntry: results[0].bytes },
});
process.exit(0);
