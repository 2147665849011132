// Clearing the origin's site data while tabs hold and wait for locks (a `Clear-Site-Data:
// "storage"` response, as a site's sign-out or a user's "clear site data" sends): the browser
// closes every IndexedDB connection of the origin and deletes its databases, the windows' alive
// databases (js/hub/alive.js) and the hub's succession record (js/hub/succession.js) among them.
// A closed alive database is then no proof of a crash (the hub's own connection was closed too):
// the hub asks the tab and its sentinel, and a live tab keeps its locks, busy or not. The header
// is honoured on secure origins only, so these tabs run on 127.0.0.1 (with the native Web Locks
// removed, as everywhere in these specs).
import { test, expect, call, until, named } from './support/fixtures.js';
import { stampOf, expectAfter } from './support/clocks.js';

test.use({ origin: 'loopback' });

/** Resolves once `tab` named an alive database to the hub, the hub handled it, and its sentinel answered. */
async function watchedByHub(tab) {
  await expect.poll(async () => (await call(tab, 'aliveDatabase')) != null && (await call(tab, 'backendState')).sentinel?.answered === true,
    { message: 'the tab named its alive database and its sentinel answered the hub', timeout: 15_000 }).toBe(true);
  await call(tab, 'query'); // handled after the alive message: the port is in order
}

/**
 * A page in a process of its own, apart from the hub's host (so that a crash takes only it, and a
 * hub kill only the host): Chromium isolates a cross-origin-isolated page of this secure origin;
 * Firefox and WebKit give every tab its own process (their isolated pages would share one).
 */
const ownProcess = (engine) => (engine === 'chromium' ? 'plain.html?coi' : 'plain.html');

/**
 * Fetches a Clear-Site-Data response in `tab`; skips the test where the engine does not honour it
 * (the alive database `aliveName` is still there 5 s later): nothing was cleared, nothing to test.
 */
async function clearSiteData(tab, aliveName, engine) {
  const status = await tab.evaluate(() => fetch('/clear-site-data', { cache: 'no-store' }).then((response) => response.status));
  expect(status).toBe(200);
  const deadline = Date.now() + 5000;
  // One call of databases() can stay unanswered while the clear goes on (seen once in Chromium, a
  // whole test's time): each call is given a second ('unanswered'), and the next one is made.
  const gone = () => tab.evaluate((name) => (typeof indexedDB.databases === 'function'
    ? Promise.race([
      indexedDB.databases().then((list) => !list.some((d) => d.name === name)),
      new Promise((resolve) => setTimeout(() => resolve('unanswered'), 1000)),
    ]) : null), aliveName);
  let cleared = await gone();
  let answered = cleared !== 'unanswered';
  while ((cleared === false || cleared === 'unanswered') && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
    cleared = await gone();
    answered ||= cleared !== 'unanswered';
  }
  expect(answered, 'indexedDB.databases() answered within 5 s of the clear').toBe(true);
  if (cleared === 'unanswered') cleared = false;
  expect(cleared, 'indexedDB.databases() lists the origin\'s databases').not.toBeNull();
  test.skip(!cleared, `${engine} did not clear the origin's IndexedDB databases on a Clear-Site-Data: "storage" response: nothing to test here, not a pass`);
}

/** Tab `a` holds `name`, tab `b` waits for it, both watched by the hub: { host, a, b, held, waiting, before (a's alive database) }. */
async function holderAndWaiter(openTab, engine, name) {
  const host = await openTab();
  await call(host, 'query');
  const [a, b] = await Promise.all([openTab(ownProcess(engine)), openTab(ownProcess(engine))]);
  const held = await call(a, 'request', name);
  await call(a, 'granted', held);
  const waiting = await call(b, 'request', name);
  await until(b, (s) => named(s.pending, name).length === 1, 'the waiter is queued');
  await Promise.all([watchedByHub(a), watchedByHub(b)]);
  return { host, a, b, held, waiting, before: await call(a, 'aliveDatabase') };
}

test('clearing the site data while a tab holds a lock and another waits for it takes nobody\'s lock, and a crash is still told by the browser', async ({ openTab, crashTab, engine }) => {
  const { host, a, b, held, waiting, before } = await holderAndWaiter(openTab, engine, 'cleared');
  const { clientId } = await call(a, 'connection');

  await clearSiteData(host, before, engine);

  // The browser closed the holder's alive database: it opens a new one and names it to the hub.
  await expect.poll(() => call(a, 'aliveDatabase'), { message: 'the holder opened a new alive database and named it', timeout: 15_000 }).not.toBe(before);
  await call(a, 'query'); // handled after the alive message: the hub watches the new database
  expect(await call(a, 'state', held)).toBe('held');
  expect(await call(b, 'state', waiting), 'the waiter still waits').toBe('pending');
  expect(named((await call(host, 'query')).held, 'cleared')).toEqual([expect.objectContaining({ clientId })]);
  for (const tab of [a, b]) expect((await call(tab, 'connection')).stats).toMatchObject({ declaredDead: 0, hubLosses: 0 });

  // The holder's crash reaches the hub through its new alive database, as before the clear.
  await call(b, 'listenForVerdicts');
  await crashTab(a);
  await call(b, 'granted', waiting);
  await expect.poll(async () => (await call(b, 'verdicts')).find((v) => v.clientId === clientId) ?? null,
    { message: 'the hub released the crashed holder because the browser closed its new alive database', timeout: 15_000 }).toMatchObject({ cause: 'alive-database-closed', dead: true });
  await call(b, 'release', waiting);
});

test('clearing the site data while the holder is busy in its callback takes nobody\'s lock: its sentinel answers the hub\'s check', async ({ openTab, engine }) => {
  // The alive database's close is no proof of a crash here: the hub's own record was closed too,
  // so it asks the tab and its sentinel; the tab cannot answer (its event loop is busy), its
  // sentinel does (js/hub/alive.js). Before, a test closed the database from the page itself;
  // since the hub tells a crash by its own record staying open, only a real clear can show this.
  const host = await openTab();
  await call(host, 'query');
  const [a, b] = await Promise.all([openTab(ownProcess(engine)), openTab(ownProcess(engine))]);
  const name = 'cleared-while-busy';
  // The section stamps a BroadcastChannel while it runs: proof, from b, that a is busy (Firefox
  // starts it up to 1 s after go(): a background tab's timers are throttled).
  const beats = `${name}-beats`;
  await call(b, 'hearBeats', beats);
  const busy = await call(a, 'holdBusy', name, 3000, { beatChannel: beats });
  await call(a, 'granted', busy);
  const waiting = await call(b, 'request', name);
  await until(b, (s) => named(s.pending, name).length === 1, 'the waiter is queued behind the busy holder');
  await Promise.all([watchedByHub(a), watchedByHub(b)]);
  const before = await call(a, 'aliveDatabase');
  const { clientId } = await call(a, 'connection');
  await call(b, 'listenForVerdicts');
  await call(a, 'go', busy);
  await expect.poll(async () => (await call(b, 'heardBeat', beats)).count, { message: 'the holder is busy in its callback', timeout: 15_000 }).toBeGreaterThan(0);
  await clearSiteData(host, before, engine);
  if (engine === 'firefox') {
    // Firefox completes the hub's waiting delete when it clears the origin (the database was still
    // there: oldVersion 1), so the hub decides: its record's connection was closed too, it asks.
    await expect.poll(async () => (await call(b, 'verdicts')).find((v) => v.clientId === clientId) ?? null,
      { message: 'the hub checked, and found the busy tab alive', timeout: 15_000 }).toMatchObject({ cause: 'alive-database-closed', dead: false, confirmedBy: 'silence' });
  }
  // Chromium and WebKit fail the hub's waiting delete instead (AbortError "The connection was
  // closed."; UnknownError "Database deleted by request of the user"): nothing to decide; the
  // holder names a new database once its task ends. Either way, nobody's lock moves.
  const granted = await call(b, 'granted', waiting);
  const section = await call(a, 'section', busy);
  expect(section.exitedAt, 'the busy task ended').not.toBeNull();
  expectAfter(await stampOf(b, [], granted.at), await stampOf(a, [], section.exitedAt), 'the waiter was granted only after the busy holder left its critical section');
  expect(await call(a, 'settled', busy)).toEqual({ ok: true });
  expect((await call(a, 'connection')).stats.declaredDead, 'the busy holder was never declared dead').toBe(0);
  await call(b, 'release', waiting);
});

test('after the site data was cleared, a hub that dies still lets the survivors keep what they hold and wait for', async ({ openTab, killHubProcess, engine }) => {
  // The clear deleted the hub's succession record. Its successor must not take itself for the
  // origin's first hub (which refuses every claim of a lost one): the hub writes its record again.
  const { host, a, b, held, waiting, before } = await holderAndWaiter(openTab, engine, 'cleared-then-lost');
  const { hubId } = await call(a, 'connection');

  await clearSiteData(a, before, engine);
  await expect.poll(() => call(a, 'aliveDatabase'), { message: 'the holder opened a new alive database', timeout: 15_000 }).not.toBe(before);
  await expect.poll(() => host.evaluate(() => new Promise((resolve) => {
    const open = indexedDB.open('weblocks-hub-succession');
    open.onupgradeneeded = () => { open.transaction.abort(); resolve(null); };
    open.onerror = () => resolve(null);
    open.onsuccess = () => {
      const db = open.result;
      const read = db.transaction('hubs').objectStore('hubs').getAll();
      read.onsuccess = () => { db.close(); resolve(read.result.map((r) => ({ hubId: r.hubId, clients: r.clients }))); };
    };
  })), { message: 'the hub wrote its succession record again', timeout: 15_000 }).toEqual([{ hubId, clients: true }]);

  await killHubProcess(host);
  await expect.poll(async () => (await call(a, 'connection')).hubId, { message: 'the holder re-registered with a new hub', timeout: 20_000 }).not.toBe(hubId);
  await expect.poll(async () => (await call(b, 'connection')).hubId, { message: 'the waiter re-registered with a new hub', timeout: 20_000 }).not.toBe(hubId);
  expect(await call(a, 'state', held), 'the holder kept its lock across the hub\'s death').toBe('held');
  expect(await call(b, 'state', waiting), 'the waiter still waits').toBe('pending');
  await call(a, 'release', held);
  await call(b, 'granted', waiting);
  await call(b, 'release', waiting);
});
