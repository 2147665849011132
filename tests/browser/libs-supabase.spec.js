// @supabase/auth-js 2.119.1, navigatorLock(name, acquireTimeout, fn), unmodified, over the
// polyfill, across tabs of an insecure origin (plain http on the machine's address, where the
// browser has no navigator.locks and the library would otherwise throw). What is checked is the
// library's own outcome: its critical sections never interleave (a shared read-modify-write
// counter loses no update), acquireTimeout 0 fails at once with its NavigatorLockAcquireTimeoutError
// while another tab holds, a crashed holder's lock comes back, and a holder stuck past the
// acquireTimeout is stolen from (the library's recovery) and learns it.
import {
  test, expect, call, until, named, report, openLibTab, lib, expectInsecureOrigin, uniqueName,
} from './support/libs.js';

test.use({ origin: 'insecure' });

const SECTIONS_PER_TAB = 25;

test('two tabs serialize their navigatorLock critical sections: no lost update', async ({ openTab }) => {
  const [a, b] = await Promise.all([openLibTab(openTab, 'supabase.html'), openLibTab(openTab, 'supabase.html')]);
  await expectInsecureOrigin(a);
  const name = uniqueName('supabase-sections');
  // Contention made certain rather than left to timing (under load one tab once ran all its
  // sections before the other's first request arrived): a holds the name while b's loop and then
  // a's queue behind it. Requests are granted in queue order (spec 4.4, "process the lock request
  // queue"), so b's first section runs, then a's, and b's other sections come after an a section.
  const gate = await lib(a, 'hold', name);
  await lib(a, 'started', gate);
  const fromBDone = lib(b, 'increments', name, SECTIONS_PER_TAB);
  await until(b, (s) => named(s.pending, name).length === 1, 'b\'s first section waits');
  const fromADone = lib(a, 'increments', name, SECTIONS_PER_TAB);
  await until(b, (s) => named(s.pending, name).length === 2, 'a\'s first section waits behind b\'s');
  await lib(a, 'release', gate);
  const [fromA, fromB] = await Promise.all([fromADone, fromBDone]);
  const total = 2 * SECTIONS_PER_TAB;
  expect(await lib(b, 'counter', name), 'every increment of both tabs landed').toBe(total);
  // Each section read the value the previous one wrote: the reads are exactly 0..total-1, once each.
  const sections = [...fromA.map((s) => ({ ...s, tab: 'a' })), ...fromB.map((s) => ({ ...s, tab: 'b' }))].sort((x, y) => x.read - y.read);
  expect(sections.map((s) => s.read)).toEqual([...Array(total).keys()]);
  // The lock passed between the tabs in queue order.
  expect(sections.slice(0, 2).map((s) => s.tab), 'the queued sections ran in queue order').toEqual(['b', 'a']);
  const handoffs = sections.filter((s, i) => i > 0 && s.tab !== sections[i - 1].tab).length;
  expect(handoffs, 'the lock went back and forth between the tabs').toBeGreaterThanOrEqual(2);
  report(`${total} sections in 2 tabs, ${handoffs} cross-tab handoffs: mean section incl. wait`,
    (Math.max(...sections.map((s) => s.exit)) - Math.min(...sections.map((s) => s.enter))) / total);
});

test('acquireTimeout 0 fails at once with NavigatorLockAcquireTimeoutError while another tab holds, and succeeds once it is free', async ({ openTab }) => {
  const [a, b] = await Promise.all([openLibTab(openTab, 'supabase.html'), openLibTab(openTab, 'supabase.html')]);
  const name = uniqueName('supabase-fail-fast');
  const held = await lib(a, 'hold', name);
  await lib(a, 'started', held);
  const denied = await lib(b, 'tryNow', name);
  expect(denied, 'the library reports an acquire timeout and never runs fn').toMatchObject({ ok: false, acquireTimeout: true, ran: false });
  expect(denied.message).toContain('immediately failed');
  report('acquireTimeout 0 while another tab holds -> NavigatorLockAcquireTimeoutError', denied.tookMs);
  await lib(a, 'release', held);
  expect(await lib(a, 'outcome', held)).toMatchObject({ ok: true, value: 'released' });
  await until(b, (s) => named(s.held, name).length === 0, 'the lock is free');
  expect(await lib(b, 'tryNow', name)).toMatchObject({ ok: true, value: 'ran', ran: true });
});

test('a lock orphaned by a crashed tab is recovered: the waiting tab\'s section runs', async ({ openTab, crashTab }) => {
  const [a, b] = await Promise.all([openLibTab(openTab, 'supabase.html'), openLibTab(openTab, 'supabase.html')]);
  const name = uniqueName('supabase-crash');
  const held = await lib(a, 'hold', name);
  await lib(a, 'started', held);
  // A generous acquireTimeout: the section must run because the crashed holder's lock was
  // released, not because the library gave up waiting and stole it.
  const waiting = await lib(b, 'hold', name, 20_000);
  await until(b, (s) => named(s.pending, name).length === 1, 'the second tab waits');
  const crashAskedAt = await call(b, 'clock');
  await crashTab(a);
  const crashedAt = await call(b, 'clock');
  // Bounded well below the library's own 20 s acquire timeout, so a lock that is never released
  // fails here and is not papered over by the library's steal.
  const startedAt = await Promise.race([lib(b, 'started', waiting), new Promise((_, reject) => setTimeout(
    () => reject(new Error('the crashed tab\'s lock was not released within 15 s')), 15_000))]);
  // The hub may have run in the crashed tab's process (Chromium on plain http cannot be asked to
  // isolate it): then the survivor moved to a new hub, which the measured time includes.
  const { stats } = await call(b, 'connection');
  report('crash reported', crashedAt - crashAskedAt);
  report(`holder tab crashed -> waiting tab's navigatorLock section runs (hub lost with it: ${stats.hubLosses > 0})`, startedAt - crashedAt);
  const state = await call(b, 'query');
  expect(named(state.held, name), 'the waiting tab holds it, alone').toHaveLength(1);
  await lib(b, 'release', waiting);
  expect(await lib(b, 'outcome', waiting)).toMatchObject({ ok: true, value: 'released' });
});

test('a holder stuck past acquireTimeout is stolen from (the library\'s recovery), and its navigatorLock rejects', async ({ openTab }) => {
  const [a, b] = await Promise.all([openLibTab(openTab, 'supabase.html'), openLibTab(openTab, 'supabase.html')]);
  const name = uniqueName('supabase-steal');
  const stuck = await lib(a, 'hold', name);
  await lib(a, 'started', stuck);
  const askedAt = await call(b, 'clock');
  const recovering = await lib(b, 'hold', name, 300);
  const startedAt = await lib(b, 'started', recovering);
  expect(startedAt - askedAt, 'not before the acquire timeout').toBeGreaterThanOrEqual(300);
  report('acquireTimeout 300 ms -> signal aborts -> steal -> section runs', startedAt - askedAt);
  // The stuck tab's request rejects (AbortError from the steal), which the library reports as stolen.
  const stolen = await lib(a, 'outcome', stuck);
  expect(stolen).toMatchObject({ ok: false, acquireTimeout: true });
  expect(stolen.message).toContain('stole');
  const state = await call(b, 'query');
  expect(named(state.held, name), 'only the stealing tab holds it').toHaveLength(1);
  await lib(b, 'release', recovering);
  expect(await lib(b, 'outcome', recovering)).toMatchObject({ ok: true, value: 'released' });
});
