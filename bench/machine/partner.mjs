// The second process of a cross-process handoff (bench/machine/scenario.mjs): on { count }, takes
// the lock `count` times in a row (re-requesting at once after each release) and answers
// { handoffs }: how many of its acquisitions followed another process's.
import { loadCrossProcess, holderWord } from './impls.mjs';

const [implName, folder] = process.argv.slice(2);
const { withLock } = await loadCrossProcess(implName, folder);
const holder = holderWord(folder);
process.on('message', async ({ count }) => {
  let handoffs = 0;
  for (let i = 0; i < count; i++) await withLock('handoff', () => { if (holder.take()) handoffs++; });
  process.send({ handoffs });
});
process.send({ ready: true });
