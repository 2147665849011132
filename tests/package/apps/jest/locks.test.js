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
