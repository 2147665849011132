import { test, expect, call } from './support/fixtures.js';

test('the polyfill is installed in a window whose native navigator.locks was removed', async ({ openTab }) => {
  const page = await openTab();
  const info = await call(page, 'info');
  expect(info).toMatchObject({ hasLocks: true, polyfill: true });
  const id = await call(page, 'request', 'smoke');
  expect(await call(page, 'granted', id)).toMatchObject({ name: 'smoke', mode: 'exclusive' });
  await call(page, 'release', id, 'done');
  expect(await call(page, 'settled', id)).toMatchObject({ ok: true, value: 'done' });
});
