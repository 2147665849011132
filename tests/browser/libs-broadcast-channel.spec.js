// broadcast-channel 7.4.0, createLeaderElection, unmodified, over the polyfill, across tabs of an
// insecure origin. With navigator.locks present the library elects by one long-held lock per
// channel (`pubkey-bc||native||<channel>`), requested with an AbortSignal. Checked by the library's
// own outcome (awaitLeadership() resolves, isLeader, hasLeader()): exactly one leader among three
// tabs; when the leader's tab closes, and when it crashes, exactly one new leader; a tab that
// leaves the election (channel.close(), which aborts its request with a reason of its own) leaves
// it without an error. Takeover times are measured and reported.
import {
  test, expect, call, until, named, report, openLibTab, lib, expectInsecureOrigin, uniqueName,
} from './support/libs.js';

test.use({ origin: 'insecure' });

/** The first of `tabs` whose awaitLeadership() resolves: { tab, at }. */
function nextLeader(tabs) {
  return Promise.race(tabs.map((tab) => lib(tab, 'leadership').then((at) => ({ tab, at }))));
}

/** Exactly one of `tabs` is leader by the library's own flag, and it is `leader`. */
async function expectSoleLeader(tabs, leader) {
  const states = await Promise.all(tabs.map((tab) => lib(tab, 'state')));
  expect(states.map((s) => s.isLeader), 'exactly one leader').toEqual(tabs.map((tab) => tab === leader));
  expect(states.map((s) => s.electionError)).toEqual(tabs.map(() => null));
  for (const tab of tabs) expect(await lib(tab, 'hasLeader'), 'every tab sees that there is a leader').toBe(true);
}

test('exactly one leader among 3 tabs; closing, then crashing the leader elects exactly one new leader each time', async ({ openTab, crashTab }) => {
  const open = () => openLibTab(openTab, 'broadcast-channel.html');
  // The fourth tab joins the election later; it is opened now (WebDriver in WebKit opens no new
  // window once one was closed).
  const [newcomer, ...tabs] = await Promise.all([open(), open(), open(), open()]);
  await expectInsecureOrigin(tabs[0]);
  const channel = uniqueName('bc-election');
  const lockName = `pubkey-bc||native||${channel}`;
  const electedFirst = nextLeader(tabs);
  for (const tab of tabs) expect(await lib(tab, 'join', channel), 'the library took its Web Locks elector').toBe(lockName);
  const contenders = (held, pending) => (s) => named(s.held, lockName).length === held && named(s.pending, lockName).length === pending;

  // Three tabs: one leader, and the two others wait for the library's lock (not merely slow to ask).
  let { tab: leader } = await electedFirst;
  await until(tabs[0], contenders(1, 2), 'one leader holds the lock, two tabs wait for it');
  await expectSoleLeader(tabs, leader);

  // The leader's tab closes: exactly one of the two others takes over.
  let survivors = tabs.filter((t) => t !== leader);
  let elected = nextLeader(survivors);
  const closedAt = await call(survivors[0], 'clock');
  await leader.close();
  ({ tab: leader } = await elected.then((e) => { report('leader tab closed -> new leader (awaitLeadership resolved)', e.at - closedAt); return e; }));
  await until(survivors[0], contenders(1, 1), 'the new leader holds the lock, the other tab waits');
  await expectSoleLeader(survivors, leader);

  // A third tab joins again; then the leader's renderer crashes: exactly one of the two others takes over.
  expect(await lib(newcomer, 'join', channel)).toBe(lockName);
  await until(newcomer, contenders(1, 2), 'the newcomer waits behind the leader');
  await expectSoleLeader([...survivors, newcomer], leader);
  survivors = [...survivors, newcomer].filter((t) => t !== leader);
  elected = nextLeader(survivors);
  const crashAskedAt = await call(survivors[0], 'clock');
  await crashTab(leader);
  const crashedAt = await call(survivors[0], 'clock');
  const takeover = await elected;
  const { stats } = await call(takeover.tab, 'connection');
  report('Page crash asked -> crash reported', crashedAt - crashAskedAt);
  report(`leader tab crashed -> new leader (hub lost with it: ${stats.hubLosses > 0})`, takeover.at - crashedAt);
  leader = takeover.tab;
  await until(leader, contenders(1, 1), 'the new leader holds the lock, the other tab waits');
  await expectSoleLeader(survivors, leader);
});

test('leaving the election: a waiting tab\'s aborted request goes quietly, a leader that leaves hands over at once', async ({ openTab }) => {
  const open = () => openLibTab(openTab, 'broadcast-channel.html');
  const tabs = await Promise.all([open(), open(), open()]);
  const channel = uniqueName('bc-leave');
  const lockName = `pubkey-bc||native||${channel}`;
  const electedFirst = nextLeader(tabs);
  for (const tab of tabs) await lib(tab, 'join', channel);
  const { tab: leader } = await electedFirst;
  await until(leader, (s) => named(s.held, lockName).length === 1 && named(s.pending, lockName).length === 2, 'one leader, two waiting');
  const [waiterLeaving, waiterStaying] = tabs.filter((t) => t !== leader);

  // die() aborts the waiting request with the library's own Error as the signal's reason; the
  // library recognises it by its message (spec: the request rejects with the signal's abort reason).
  await lib(waiterLeaving, 'leave');
  await until(leader, (s) => named(s.pending, lockName).length === 1, 'the leaving tab\'s request is gone');
  expect(await lib(waiterLeaving, 'state')).toMatchObject({ isLeader: false, isDead: true, electionError: null });

  const elected = nextLeader([waiterStaying]);
  const leftAt = await lib(leader, 'leave');
  const { at } = await elected;
  report('leader closed its channel (die) -> next tab leader', at - leftAt);
  expect(await lib(leader, 'state')).toMatchObject({ isLeader: false, isDead: true, electionError: null });
  await expectSoleLeader([waiterStaying], waiterStaying);
});
