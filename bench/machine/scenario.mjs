// One cross-process scenario for one contender, driven round by round like bench/node/scenario.mjs:
//   node bench/machine/scenario.mjs <machine|proper-lockfile> <uncontended|handoff-2>
// uncontended: one process takes and releases a lock nobody else wants (µs per acquisition).
// handoff-2: this process and a partner process (partner.mjs) take one exclusive lock in turns,
// each re-requesting at once after its release; the sample is handoffs per second, a handoff being
// an acquisition that follows another process's (a contender that lets a releaser take its lock
// again at once is not credited for those). Each contender gets a lock space folder of its own.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fork } from 'node:child_process';
import { createInterface } from 'node:readline';
import { performance } from 'node:perf_hooks';
import { reportResult } from '../lib/child.mjs';
import { loadCrossProcess, holderWord } from './impls.mjs';

const [implName, scenarioName] = process.argv.slice(2);
const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'wl-bench-'));
process.env.WEBLOCKS_MACHINE_IDLE_MS = '2000';
const { withLock } = await loadCrossProcess(implName, folder);
const now = () => performance.now();
const noop = () => {};

/** Grows the round size until a round takes about targetMs. */
async function calibrate(once, start, targetMs) {
  for (let size = start; ; size *= 4) {
    const elapsed = await once(size);
    if (elapsed >= targetMs / 4) return Math.max(start, Math.round(size * targetMs / elapsed));
  }
}

function uncontended() {
  let ops = 0;
  const once = async (n) => {
    const t0 = now();
    for (let i = 0; i < n; i++) await withLock('uncontended', noop);
    return now() - t0;
  };
  return {
    async prepare() {
      // (the first request starts the hub: calibrated on it, every round was 64 requests long)
      await once(64);
      ops = await calibrate(once, 64, 150);
      for (let done = 0; done < 10_000; done += ops) await once(ops);
      return { opsPerRound: ops };
    },
    async round() { return (await once(ops)) * 1000 / ops; },
  };
}

function handoff() {
  let partner = null;
  let count = 0;
  let acquisitions = 0;
  let handoffs = 0;
  const holder = holderWord(folder);
  const once = async (n) => {
    const partnerDone = new Promise((resolve) => partner.once('message', resolve));
    const t0 = now();
    partner.send({ count: n });
    let mine = 0;
    for (let i = 0; i < n; i++) await withLock('handoff', () => { if (holder.take()) mine++; });
    const theirs = (await partnerDone).handoffs;
    const elapsed = now() - t0;
    acquisitions += 2 * n;
    handoffs += mine + theirs;
    return { elapsed, handoffs: mine + theirs };
  };
  return {
    async prepare() {
      partner = fork(new URL('./partner.mjs', import.meta.url), [implName, folder], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
      await new Promise((resolve) => partner.once('message', resolve));
      await once(200); // the hub starts, both processes connect and warm up
      count = await calibrate(async (n) => (await once(n)).elapsed, 32, 300);
      await once(count);
      acquisitions = 0;
      handoffs = 0;
      return { acquisitionsPerProcessPerRound: count };
    },
    async round() {
      const { elapsed, handoffs: changed } = await once(count);
      return changed / (elapsed / 1000);
    },
    async finish() {
      partner.kill();
      return { holderChangedFraction: handoffs / acquisitions };
    },
  };
}

const scenarios = { uncontended, 'handoff-2': handoff };
if (!scenarios[scenarioName]) throw new Error(`unknown scenario ${scenarioName}`);
const scenario = scenarios[scenarioName]();
for await (const line of createInterface({ input: process.stdin })) {
  if (line === 'prepare') reportResult({ extra: await scenario.prepare() });
  else if (line === 'round') reportResult({ sample: await scenario.round() });
  else if (line === 'finish') { reportResult({ extra: (await scenario.finish?.()) ?? {} }); break; }
}
// The hub of this contender's lock space exits by itself 2 s after its last client.
fs.rmSync(folder, { recursive: true, force: true });
process.exit(0);
