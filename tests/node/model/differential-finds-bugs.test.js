// The differential tester itself under test: against a copy of the reference model it must see
// no divergence, and against each deliberately broken lock manager it must find the bug and
// shrink it to a short, replayable sequence.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { explore, minimize, replay } from '../../model/differential.mjs';
import { ModelSystem } from '../../model/systems.mjs';
import { mutants } from '../../model/mutants.mjs';

test('the reference model never diverges from itself over 20,000 random operations', async () => {
  const found = await explore({ seed: 11, count: 20000, createSystem: async () => new ModelSystem(undefined, 'copy') });
  assert.equal(found.divergence, null);
  assert.ok(found.counts.granted > 1000 && found.counts.queued > 1000 && found.counts.stolen > 100 && found.counts.aborted > 100,
    `every kind of operation happened: ${JSON.stringify(found.counts)}`);
});

for (const [name, Mutant] of Object.entries(mutants)) {
  test(`a lock manager with the bug "${name}" is caught and shrunk to a short sequence`, async () => {
    const options = { seed: 5, createSystem: async () => new ModelSystem(new Mutant(), name) };
    const found = await explore({ ...options, count: 50000 });
    assert.ok(found.divergence, 'the bug was found');
    const minimal = await minimize(found, options);
    assert.ok(minimal.ops.length <= 8, `shrunk to ${minimal.ops.length} operations`);
    assert.ok(await replay(minimal.ops, options), 'the printed sequence reproduces the divergence');
    assert.equal(await replay(minimal.ops, { createSystem: async () => new ModelSystem(undefined, 'copy') }), null,
      'the same sequence passes against a correct manager');
  });
}
