// Two files (leak-a and leak-b: tests/package/run.mjs copies this one) that each forget a lock and leave a request pending behind it. Run in
// one worker one after the other, the second must not see what the first left (the setup file
// gives each file a new lock space), and the run must still end by itself.
import { test, expect } from 'vitest';

test('nothing left by another test file; this one leaves a held lock and a pending request', async () => {
  const before = await navigator.locks.query();
  expect([...before.held, ...before.pending].filter((info) => info.name === 'left-behind')).toEqual([]);
  await new Promise((held) => { navigator.locks.request('left-behind', () => { held(); return new Promise(() => {}); }); });
  navigator.locks.request('left-behind', () => {});
  const after = await navigator.locks.query();
  expect([after.held.length, after.pending.length]).toEqual([1, 1]);
});
