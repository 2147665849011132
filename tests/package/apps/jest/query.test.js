// A second test file: its own module registry and environment in the same jest process; the
// setup file installs navigator.locks there too and it serves (shared locks coexist; released, the name is free again).
import { test, expect } from '@jest/globals';

test('shared locks are held together; query() lists both', async () => {
  const seen = await navigator.locks.request('shared-resource', { mode: 'shared' }, () =>
    navigator.locks.request('shared-resource', { mode: 'shared', ifAvailable: true }, async (lock) => ({
      second: lock?.mode,
      held: (await navigator.locks.query()).held.filter((info) => info.name === 'shared-resource').length,
    })));
  expect(seen).toEqual({ second: 'shared', held: 2 });
  expect(await navigator.locks.request('shared-resource', { ifAvailable: true }, (lock) => lock?.mode)).toBe('exclusive');
});
