// The wasm engine (ordinary memory, as createLocalEngine gives it) against the reference model:
// fixed seeds, every observable compared after every operation. A failure prints the minimal
// diverging sequence and the command that replays it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { explore, minimize } from '../../model/differential.mjs';
import { formatOps } from '../../model/shrink.mjs';
import { createEngineSystem } from '../../model/systems.mjs';

const OPERATIONS = 25000;
const RUNS = [
  ...[1, 2, 3, 4, 5].map((seed) => ({ seed, shared: false, build: 'ordinary-memory build (createLocalEngine)' })),
  ...[6, 7].map((seed) => ({ seed, shared: true, build: 'shared-memory build (the Node host\'s)' })),
];

for (const { seed, shared, build } of RUNS) {
  test(`the engine's ${build} agrees with the spec model on ${OPERATIONS} random operations from seed ${seed}`, async () => {
    const createSystem = () => createEngineSystem({ shared });
    const found = await explore({ seed, count: OPERATIONS, createSystem });
    if (found.divergence) {
      const minimal = await minimize(found, { seed, createSystem });
      const file = join(tmpdir(), `weblocks-divergence-seed${seed}.json`);
      writeFileSync(file, formatOps(minimal.ops));
      assert.fail(`${found.divergence.message}\nminimal sequence:\n${formatOps(minimal.ops)}\n${minimal.divergence?.message}\n` +
        `replay: node tests/model/differential.mjs --replay ${file}${shared ? ' --shared' : ''}`);
    }
    const c = found.counts;
    assert.ok(c.granted > 2000 && c.queued > 2000 && c.notAvailable > 500 && c.stolen > 500 && c.aborted > 500 && c.closed > 1000,
      `every kind of operation was exercised: ${JSON.stringify(c)}`);
  });
}
