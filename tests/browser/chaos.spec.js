// Chaos in the browser: tabs, each with a dedicated worker, make random navigator.locks requests
// with every option while the test closes tabs, crashes them, terminates workers, reopens tabs,
// and crashes the tab that hosts the hub (the SharedWorker dies with it). Every grant and release
// is logged, acknowledged, to a checker in this test process (tests/model/browser/server.mjs), which verifies
// that no two exclusive holds overlapped, no shared hold overlapped an exclusive one, and that
// nothing stayed held at the end. Bounded in time; the totals are printed.
import { test, expect } from '@playwright/test';
import { checkHolds } from '../model/hold-checker.mjs';
import { startChaosServer, excerpt, saveLog, lockStateOnceEmpty } from '../model/browser/server.mjs';
import { createRandom } from '../model/random.mjs';

// WEBLOCKS_CHAOS_SECONDS=300 for a long run (the test timeout grows with it).
const CHAOS_SECONDS = Number(process.env.WEBLOCKS_CHAOS_SECONDS) || 20;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const within = (promise, ms, label) => Promise.race([promise, sleep(ms).then(() => { throw new Error(`${label}: no answer in ${ms} ms`); })]);

test('locks stay mutually exclusive while tabs and workers are closed, crashed and reopened and the hub host crashes', async ({ browser }) => {
  test.setTimeout(160_000 + CHAOS_SECONDS * 1000);
  const server = await startChaosServer();
  const context = await browser.newContext();
  const rng = createRandom(2026);
  const live = new Map();   // holder -> page
  const totals = { tabsOpened: 0, tabsClosed: 0, tabsCrashed: 0, workersTerminated: 0, hubHostCrashed: 0, hubLossNoticed: 0, declaredDeadWhileAlive: 0 };
  const finalStats = [];
  let tabNumber = 0;

  const declareDead = (holder) => {
    if (!live.has(holder)) return;
    live.delete(holder);
    server.append({ type: 'dead', holder });   // also covers the tab's workers (holder/w...)
  };

  async function openTab() {
    const holder = `t${++tabNumber}`;
    const page = await context.newPage();
    page.on('crash', () => { totals.tabsCrashed++; declareDead(holder); });
    page.on('console', (message) => {
      if (message.text().includes('the lock hub stopped answering')) totals.hubLossNoticed++;
      if (message.text().includes('declared this context dead')) totals.declaredDeadWhileAlive++;
      if (message.type() === 'warning' || message.type() === 'error') server.append({ type: 'note', holder, text: message.text().slice(0, 300) });
    });
    await page.goto(`${server.url}tests/model/browser/chaos.html?holder=${holder}&seed=${tabNumber * 7919}&workers=1`);
    await page.waitForFunction(() => typeof window.chaos === 'object');
    live.set(holder, page);
    totals.tabsOpened++;
    return holder;
  }

  async function crashTab(holder) {
    const page = live.get(holder);
    declareDead(holder);   // no lock of it can be used from here on
    const crashed = new Promise((resolve) => page.once('crash', resolve));
    const cdp = await context.newCDPSession(page);
    cdp.send('Page.crash').catch(() => {});
    await within(crashed, 10_000, `crash of ${holder}`);
    await page.close().catch(() => {});
  }

  try {
    const hubHost = await openTab();   // the first tab creates the SharedWorker: the hub lives in its process
    for (let i = 0; i < 3; i++) await openTab();
    const started = Date.now();
    while (Date.now() - started < CHAOS_SECONDS * 1000) {
      await sleep(600 + rng.int(900));
      const others = [...live.keys()].filter((h) => h !== hubHost);
      if (!totals.hubHostCrashed && live.has(hubHost) && Date.now() - started > CHAOS_SECONDS * 400) {
        server.append({ type: 'note', holder: hubHost, text: 'test action: crash the hub host' });
        await crashTab(hubHost);
        totals.hubHostCrashed++;
      } else {
        const action = rng.weighted({ crash: 2, close: 2, worker: 3 });
        const holder = others.length ? rng.pick(others) : null;
        if (holder) server.append({ type: 'note', holder, text: `test action: ${action}` });
        if (holder && action === 'crash') await crashTab(holder);
        if (holder && action === 'close') {
          // Dead from the moment the close starts: its pagehide tells the hub, which releases its
          // locks at once, while the tab's last log message may still be on its way.
          const page = live.get(holder);
          declareDead(holder);
          await page.close();
          totals.tabsClosed++;
        }
        if (holder && action === 'worker' && live.has(holder)) {
          const page = live.get(holder);
          server.append({ type: 'dead', holder: await page.evaluate(() => window.chaos.currentWorker()) });
          await page.evaluate(() => window.chaos.replaceWorker());
          totals.workersTerminated++;
        }
      }
      while (live.size < 4) await openTab();
    }

    // Stop every agent (each finishes its current request), then nothing may stay held: the locks
    // of crashed tabs are released once the hub's heartbeat declares them dead.
    // A stop that hangs means a request that never settled: say which, and what its context sees.
    const stuck = async (page, label) => {
      const seen = await within(page.evaluate(async () => ({
        current: window.chaos.current(),
        query: await Promise.race([navigator.locks.query(), new Promise((r) => setTimeout(() => r('query did not settle in 5 s'), 5000))]),
      })), 10_000, `${label} diagnosis`).catch((error) => String(error));
      return `${label}: ${JSON.stringify(seen)}`;
    };
    for (const [holder, page] of live) {
      finalStats.push({ holder, ...(await within(page.evaluate(() => window.chaos.stop()), 30_000, `stop ${holder}`)
        .catch(async (error) => { throw new Error(`${error.message}; ${await stuck(page, holder)}`); })) });
      const worker = await within(page.evaluate(() => window.chaos.workerStats()), 30_000, `stop ${holder}'s worker`);
      if (worker) finalStats.push({ holder: `${holder}/worker`, ...worker });
    }
    const probe = await context.newPage();
    await probe.goto(`${server.url}tests/model/browser/chaos.html?holder=probe&idle=1`);
    const state = await lockStateOnceEmpty(probe);
    expect(state, 'nothing is held or pending once every agent stopped').toEqual({ held: [], pending: [] });

    const result = checkHolds(server.entries);
    const count = (type) => server.entries.filter((e) => e.type === type).length;
    const agentTotals = finalStats.reduce((sum, s) => {
      for (const key of ['requests', 'granted', 'notAvailable', 'aborted', 'stolen', 'rejectedAsSpecified', 'errors']) sum[key] = (sum[key] ?? 0) + s[key];
      return sum;
    }, {});
    const report = { ...totals, logEntries: server.entries.length, grantsLogged: count('grant'), stealsLogged: count('stealIntent'), stolenLogged: count('stolen'),
      holdsChecked: result.holds, violations: result.violations, stillHeld: result.stillHeld.length, survivingAgents: agentTotals };
    console.log(`chaos totals: ${JSON.stringify(report)}`);
    test.info().annotations.push({ type: 'chaos totals', description: JSON.stringify(report) });
    if (result.violations > 0) {
      const file = saveLog(server.entries, 'chaos');
      await test.info().attach('hold log around the violations', { body: excerpt(server.entries, result.involved), contentType: 'text/plain' });
      console.log(`full hold log: ${file}\n${excerpt(server.entries, result.involved)}`);
    }
    expect(result.problems, 'overlapping holds').toEqual([]);
    expect(result.violations).toBe(0);
    expect(result.stillHeld, 'holds never released by a live agent').toEqual([]);
    const errors = finalStats.filter((s) => s.errors > 0).map((s) => `${s.holder}: ${s.errors} errors, last ${s.lastError}`);
    expect(errors, 'agents saw only the outcomes the spec allows').toEqual([]);
    expect(count('grant')).toBeGreaterThan(200);
    expect(totals.hubHostCrashed).toBe(1);
    expect(totals.hubLossNoticed, 'the surviving tabs noticed the hub was gone and moved to a new one').toBeGreaterThan(0);
  } finally {
    await context.close();
    await server.close();
  }
});
