// navigator.locks in jest's test environments (jsdom has none; node: Node's own, replaced on Node 24).
import { test, expect } from '@jest/globals';

test('the polyfill serves navigator.locks: a held lock excludes, query() shows it, release grants the next', async () => {
  let release;
  let granted;
  const isHeld = new Promise((resolve) => { granted = resolve; });
  const holding = navigator.locks.request('resource', () => { granted(); return new Promise((resolve) => { release = resolve; }); });
  await isHeld;
  expect((await navigator.locks.query()).held.map((info) => info.name)).toContain('resource');
  expect(await navigator.locks.request('resource', { ifAvailable: true }, (lock) => lock)).toBe(null);
  release();
  await holding;
  expect(await navigator.locks.request('resource', (lock) => lock.name)).toBe('resource');
});

test('shared locks are held together; query() lists both', async () => {
  const seen = await navigator.locks.request('shared-resource', { mode: 'shared' }, () =>
    navigator.locks.request('shared-resource', { mode: 'shared', ifAvailable: true }, async (lock) => ({
      second: lock?.mode,
      held: (await navigator.locks.query()).held.filter((info) => info.name === 'shared-resource').length,
    })));
  expect(seen).toEqual({ second: 'shared', held: 2 });
  expect(await navigator.locks.request('shared-resource', { ifAvailable: true }, (lock) => lock?.mode)).toBe('exclusive');
});
