// A second test file: the setup file installs navigator.locks for it too (with isolate: false
// vitest reuses the modules, but each file gets its own environment), and it serves
// (shared locks coexist; released, the name is free again).
import { test, expect } from 'vitest';

test('shared locks are held together; query() lists both', async () => {
  const seen = await navigator.locks.request('shared-resource', { mode: 'shared' }, () =>
    navigator.locks.request('shared-resource', { mode: 'shared', ifAvailable: true }, async (lock) => ({
      second: lock?.mode,
      held: (await navigator.locks.query()).held.filter((info) => info.name === 'shared-resource').length,
    })));
  expect(seen).toEqual({ second: 'shared', held: 2 });
  expect(await navigator.locks.request('shared-resource', { ifAvailable: true }, (lock) => lock?.mode)).toBe('exclusive');
});
