// Hub loss: the hub SharedWorker lives in a renderer process of one tab; when that process
// crashes the hub dies with it. The other tabs notice (no message, no answer to a probe), start a
// fresh hub, and re-register the locks they hold and the requests they wait for; the new hub's
// reclaim window admits nothing new until they have. Mutual exclusion holds throughout.
import { test, expect, call, until, named } from './support/fixtures.js';

function report(label, ms) {
  test.info().annotations.push({ type: 'measured', description: `${label}: ${ms.toFixed(1)} ms` });
  console.log(`measured: ${label}: ${ms.toFixed(1)} ms`);
}

async function waitForNewHub(page, oldHubId) {
  await page.waitForFunction((old) => {
    const c = window.harness.connection();
    return c.hubId !== null && c.hubId !== old;
  }, oldHubId, { timeout: 20_000, polling: 20 });
  return call(page, 'connection');
}

test('when the hub\'s host tab crashes, the tabs that hold and wait re-register with a new hub in order, with no overlap', async ({ openTab, context }) => {
  // The host alone creates the hub, in its own process; the others are isolated pages of the
  // same origin (processes of their own), so the crash takes down the host and the hub only.
  const host = await openTab();
  await call(host, 'query');
  const [a, b] = await Promise.all([openTab('plain.html?coi'), openTab('plain.html?coi')]);
  const held = await call(a, 'request', 'survivor');
  await call(a, 'granted', held);
  const sharedA = await call(a, 'request', 'readers', { mode: 'shared' });
  const sharedB = await call(b, 'request', 'readers', { mode: 'shared' });
  await Promise.all([call(a, 'granted', sharedA), call(b, 'granted', sharedB)]);
  const waiting = await call(b, 'request', 'survivor');
  const hostHeld = await call(host, 'request', 'host-only');
  await call(host, 'granted', hostHeld);
  await until(a, (s) => named(s.pending, 'survivor').length === 1, 'b waits behind a');
  const before = await call(a, 'connection');

  const crashed = new Promise((resolve) => host.once('crash', resolve));
  (await context.newCDPSession(host)).send('Page.crash').catch(() => {});
  await crashed;
  const crashedAt = await call(a, 'clock');

  const [afterA, afterB] = await Promise.all([waitForNewHub(a, before.hubId), waitForNewHub(b, before.hubId)]);
  report('hub host crashed -> first client on a new hub', (await call(a, 'clock')) - crashedAt);
  expect(afterA.hubId).toBe(afterB.hubId);
  expect(afterA.stats.hubLosses).toBe(1);
  expect(afterB.stats.hubLosses).toBe(1);

  // A newcomer during or after the window queues behind what was re-registered.
  const c = await openTab('plain.html?coi');
  const late = await call(c, 'request', 'survivor');
  const state = await until(c, (s) => named(s.pending, 'survivor').length === 2, 'b and c wait');
  expect(await call(a, 'state', held)).toBe('held');
  expect(named(state.held, 'survivor')).toEqual([{ name: 'survivor', mode: 'exclusive', clientId: afterA.clientId }]);
  expect(named(state.pending, 'survivor').map((l) => l.clientId)).toEqual([afterB.clientId, (await call(c, 'connection')).clientId]);
  expect(named(state.held, 'readers').map((l) => l.clientId).sort()).toEqual([afterA.clientId, afterB.clientId].sort());
  expect(named(state.held, 'host-only'), 'the crashed tab\'s lock is gone').toEqual([]);
  report('hub host crashed -> state re-registered and visible', (await call(a, 'clock')) - crashedAt);

  const releasedAt = await call(a, 'release', held);
  const grantedB = await call(b, 'granted', waiting);
  expect(grantedB.at, 'b was granted only after a released').toBeGreaterThan(releasedAt);
  expect(await call(c, 'state', late)).toBe('pending');
  const releasedB = await call(b, 'release', waiting);
  const grantedC = await call(c, 'granted', late);
  expect(grantedC.at).toBeGreaterThan(releasedB);
  await call(c, 'release', late);
  for (const [page, id] of [[a, held], [b, waiting], [c, late]]) expect(await call(page, 'settled', id)).toMatchObject({ ok: true });
  await call(a, 'release', sharedA);
  await call(b, 'release', sharedB);
  expect(await call(a, 'settled', sharedA)).toMatchObject({ ok: true });
});

test('a tab that opens right after the hub died, before the survivors noticed, still waits for the lock a survivor holds', async ({ openTab, context }) => {
  const host = await openTab();
  await call(host, 'query');
  const a = await openTab('plain.html?coi');
  const held = await call(a, 'request', 'contested');
  await call(a, 'granted', held);
  const before = await call(a, 'connection');

  const crashed = new Promise((resolve) => host.once('crash', resolve));
  (await context.newCDPSession(host)).send('Page.crash').catch(() => {});
  await crashed;
  // The newcomer creates the new hub at once. The hub announces itself; `a` answers that it held
  // locks under another hub, so the new hub opens its reclaim window before granting anything.
  const newcomer = await openTab('plain.html?coi');
  const crashedAt = await call(a, 'clock');
  const late = await call(newcomer, 'request', 'contested');
  const after = await waitForNewHub(a, before.hubId);
  report('newcomer started a hub -> survivor on it', (await call(a, 'clock')) - crashedAt);
  expect(after.hubId).toBe((await call(newcomer, 'connection')).hubId);
  expect(await call(a, 'state', held)).toBe('held');
  const state = await until(newcomer, (s) => named(s.pending, 'contested').length === 1, 'the newcomer waits');
  expect(named(state.held, 'contested')).toEqual([{ name: 'contested', mode: 'exclusive', clientId: after.clientId }]);
  const releasedAt = await call(a, 'release', held);
  const granted = await call(newcomer, 'granted', late);
  expect(granted.at, 'the newcomer was granted only after the survivor released').toBeGreaterThan(releasedAt);
  await call(newcomer, 'release', late);
  expect(await call(a, 'settled', held)).toMatchObject({ ok: true });
});
