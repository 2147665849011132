#!/usr/bin/env node
// The differential tester: drives the reference model and the wasm engine with the same random
// operations and stops at the first disagreement, which it shrinks to a minimal sequence.
//
//   node tests/model/differential.mjs --ops 1000000 --seed 7       a long run
//   node tests/model/differential.mjs --replay ops.json             replays a printed sequence
//   --shared              the shared-memory build (the Node host's) instead of createLocalEngine()
import { writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createRandom } from './random.mjs';
import { Replayer, Divergence } from './replayer.mjs';
import { OperationGenerator } from './generator.mjs';
import { ModelSystem, createEngineSystem } from './systems.mjs';
import { shrink, formatOps } from './shrink.mjs';

// Runs `count` random operations from `seed` (in epochs that end with every client closed and an
// empty state). Returns { counts, divergence, epochOps } where epochOps are the operations of the
// epoch that diverged, up to and including the diverging one.
// recordAll: also return every operation (for a divergence that needs the whole history).
export async function explore({ seed, count, createSystem = createEngineSystem, createModel = () => new ModelSystem(), recordAll = false, epochLength = [20, 400] }) {
  const rng = createRandom(seed);
  const replayer = new Replayer(createModel(), await createSystem());
  const generator = new OperationGenerator(rng, replayer);
  const all = recordAll ? [] : null;
  let epochOps = [];
  let epochs = 0;
  const run = (op) => {
    epochOps.push(op);
    all?.push(op);
    replayer.step(op);
  };
  try {
    while (replayer.index < count) {
      epochs++;
      epochOps = [];
      generator.startEpoch();
      const length = epochLength[0] + rng.int(epochLength[1] - epochLength[0]);
      for (let i = 0; i < length && replayer.index < count; i++) run(generator.next());
      for (const op of generator.endEpoch()) run(op);
      replayer.checkEmpty(replayer.index - 1);
    }
  } catch (error) {
    if (!(error instanceof Divergence)) throw error;
    return { counts: replayer.counts, epochs, divergence: error, epochOps, all };
  }
  return { counts: replayer.counts, epochs, divergence: null, epochOps: null, all };
}

// Replays ops on fresh systems; returns the Divergence or null.
export async function replay(ops, { createSystem = createEngineSystem, createModel = () => new ModelSystem(), snapshotEveryStep = true } = {}) {
  const replayer = new Replayer(createModel(), await createSystem(), { snapshotEveryStep });
  try {
    replayer.run(ops);
  } catch (error) {
    if (error instanceof Divergence) return error;
    throw error;
  }
  return null;
}

// From a divergence found by explore(): the smallest operation list that still diverges on fresh systems.
export async function minimize(found, options) {
  const { seed } = options;
  let ops = found.epochOps;
  if (!(await replay(ops, options))) {
    // The epoch alone does not reproduce: state carried over from earlier epochs matters.
    const full = await explore({ ...options, seed, count: found.divergence.index + 1, recordAll: true });
    ops = full.all;
  }
  const reproduces = async (candidate) => (await replay(candidate, options)) !== null;
  const { ops: minimal, replays } = await shrink(ops, reproduces);
  return { ops: minimal, replays, divergence: await replay(minimal, options) };
}

function parseArgs(argv) {
  const args = { ops: 100000, seed: 1, seeds: 1 };
  for (let i = 0; i < argv.length; i += 2) {
    const key = argv[i].replace(/^--/, '');
    if (key === 'shared') { args.shared = true; i--; continue; }
    if (!['ops', 'seed', 'seeds', 'replay'].includes(key)) throw new Error(`unknown option ${argv[i]}`);
    args[key] = key === 'replay' ? argv[i + 1] : Number(argv[i + 1]);
  }
  return args;
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  if (args.replay) {
    const ops = JSON.parse(readFileSync(args.replay, 'utf8'));
    const divergence = await replay(ops, { createSystem: () => createEngineSystem({ shared: !!args.shared }) });
    console.log(divergence ? `DIVERGES\n${divergence.message}` : `no divergence in ${ops.length} operations`);
    process.exitCode = divergence ? 1 : 0;
    return;
  }
  let failed = false;
  for (let seed = args.seed; seed < args.seed + args.seeds; seed++) {
    const started = performance.now();
    const createSystem = () => createEngineSystem({ shared: !!args.shared });
    const found = await explore({ seed, count: args.ops, createSystem });
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    console.log(JSON.stringify({ seed, build: args.shared ? 'shared memory' : 'ordinary memory', ops: args.ops, seconds, epochs: found.epochs, divergences: found.divergence ? 1 : 0, ...found.counts }));
    if (found.divergence) {
      failed = true;
      console.log(`DIVERGENCE (seed ${seed}):\n${found.divergence.message}\nshrinking...`);
      const minimal = await minimize(found, { seed, createSystem });
      const file = join(tmpdir(), `weblocks-divergence-seed${seed}.json`);
      writeFileSync(file, formatOps(minimal.ops));
      console.log(`minimal sequence (${minimal.ops.length} operations, ${minimal.replays} replays):\n${formatOps(minimal.ops)}`);
      console.log(`${minimal.divergence?.message}\nreplay: node tests/model/differential.mjs --replay ${file}`);
    }
  }
  process.exitCode = failed ? 1 : 0;
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) await main();
