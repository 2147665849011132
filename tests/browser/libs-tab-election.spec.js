// tab-election 4.2.8, Hub & Spoke, unmodified, over the polyfill, on an insecure origin. Each tab's
// Spoke starts a dedicated module worker running the library's Hub; the Hubs elect one leader
// among the workers with navigator.locks requested inside the workers (a long-held lock taken
// with an AbortSignal), and the tabs themselves poll it with ifAvailable (Tab.hasLeader). The
// tabs' calls go to the leader's service, which keeps a counter in IndexedDB. Checked by the
// library's outcome: one worker's service is initialised as leader and answers every call; no
// increment is lost or doubled (two leaders would both run each call); when the leader's tab
// closes (its worker ends with it), exactly one other worker takes over and the count goes on.
import {
  test, expect, call, report, openLibTab, lib, expectInsecureOrigin, uniqueName,
} from './support/libs.js';

test.use({ origin: 'insecure' });

const CALLS_PER_TAB = 10;

/** The first of `tabs` whose worker's Hub becomes leader: { tab, workerId, at }. */
function nextLeader(tabs) {
  return Promise.race(tabs.map((tab) => lib(tab, 'leadership').then((m) => ({ tab, ...m }))));
}

async function leaderEvents(tabs) {
  return (await Promise.all(tabs.map((tab) => lib(tab, 'workerEvents')))).flat().filter((m) => m.type === 'leader');
}

/** Every tab calls the leader CALLS_PER_TAB times at once; returns all answers. */
async function incrementEverywhere(tabs, key) {
  return (await Promise.all(tabs.map((tab) => lib(tab, 'increments', key, CALLS_PER_TAB)))).flat();
}

test('the Hub workers of 3 tabs elect one leader with navigator.locks in the workers; when its tab closes exactly one takes over, and no update is lost', async ({ openTab }) => {
  const open = () => openLibTab(openTab, 'tab-election.html');
  const tabs = await Promise.all([open(), open(), open()]);
  await expectInsecureOrigin(tabs[0]);
  const app = uniqueName('tab-election');
  const key = `${app}-count`;
  const elected = nextLeader(tabs);
  for (const tab of tabs) await lib(tab, 'start', app);
  const first = await elected;
  const started = await Promise.all(tabs.map((tab) => lib(tab, 'workerStarted')));
  expect(new Set(started.map((m) => m.workerId)).size, 'each tab runs its own Hub worker').toBe(3);

  // Every call, from every tab, is served by that one worker, one after another.
  const answers = await incrementEverywhere(tabs, key);
  expect(answers.map((a) => a.value).sort((x, y) => x - y), 'each increment counted once').toEqual(Array.from({ length: 3 * CALLS_PER_TAB }, (_, i) => i + 1));
  expect(new Set(answers.map((a) => a.workerId)), 'one leader answered everything').toEqual(new Set([first.workerId]));
  expect(await lib(tabs[0], 'counter', key)).toBe(3 * CALLS_PER_TAB);
  expect((await leaderEvents(tabs)).map((m) => m.workerId), 'only one Hub was ever leader').toEqual([first.workerId]);

  // The leader's tab closes; its worker goes with it. Exactly one other worker takes over.
  const survivors = tabs.filter((t) => t !== first.tab);
  const takeover = nextLeader(survivors);
  const closedAt = await call(survivors[0], 'clock');
  await first.tab.close();
  const second = await takeover;
  report('leader tab (and its Hub worker) closed -> a worker in another tab leads (its service init ran)', second.at - closedAt);
  expect(second.workerId).not.toBe(first.workerId);

  // The new leader serves both tabs and carries on the count: nothing lost, nothing doubled.
  const after = await incrementEverywhere(survivors, key);
  expect(after.map((a) => a.value).sort((x, y) => x - y)).toEqual(Array.from({ length: 2 * CALLS_PER_TAB }, (_, i) => 3 * CALLS_PER_TAB + i + 1));
  expect(new Set(after.map((a) => a.workerId))).toEqual(new Set([second.workerId]));
  expect(await lib(survivors[0], 'counter', key)).toBe(5 * CALLS_PER_TAB);
  expect((await leaderEvents(survivors)).map((m) => m.workerId), 'one new leader among the survivors').toEqual([second.workerId]);
});

test('Spoke.close() in the leader\'s tab terminates its Hub worker: exactly one other worker takes over', async ({ openTab }) => {
  const open = () => openLibTab(openTab, 'tab-election.html');
  const tabs = await Promise.all([open(), open()]);
  const app = uniqueName('tab-election-close');
  const key = `${app}-count`;
  const elected = nextLeader(tabs);
  for (const tab of tabs) await lib(tab, 'start', app);
  const first = await elected;
  await Promise.all(tabs.map((tab) => lib(tab, 'workerStarted')));
  const [other] = tabs.filter((t) => t !== first.tab);
  expect((await incrementEverywhere([other], key)).map((a) => a.workerId)).toEqual(Array(CALLS_PER_TAB).fill(first.workerId));

  // worker.terminate() ends the worker without a word: its lock is released when the hub's
  // heartbeat declares it dead (docs/browser.md, Liveness), which this measures.
  const takeover = nextLeader([other]);
  const closedAt = await lib(first.tab, 'close');
  const second = await takeover;
  report('Spoke.close() (worker.terminate()) in the leader tab -> the other tab\'s worker leads', second.at - closedAt);
  const after = await incrementEverywhere([other], key);
  expect(after.map((a) => a.value).sort((x, y) => x - y)).toEqual(Array.from({ length: CALLS_PER_TAB }, (_, i) => CALLS_PER_TAB + i + 1));
  expect(new Set(after.map((a) => a.workerId))).toEqual(new Set([second.workerId]));
});
