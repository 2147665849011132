// Protocol fuzzing of the hub: a hostile same-origin page (tests/model/browser/hostile.js) opens
// its own connections to the hub and sends random and malformed messages, forged tokens, other
// clients' clientIds, floods and undeserializable data, while two honest tabs (each with a worker)
// run the chaos agents. The hub must keep serving the honest tabs correctly: they keep getting
// locks, mutual exclusion holds (same checker as the chaos spec), they never see an error the
// spec does not allow, the hub never dies, and once the hostile page is gone nothing stays held.
import { test, expect } from '@playwright/test';
import { checkHolds } from '../model/hold-checker.mjs';
import { startChaosServer, excerpt, saveLog, lockStateOnceEmpty } from '../model/browser/server.mjs';
import { PROTOCOL_VERSION } from '../../js/hub/protocol.js';

// WEBLOCKS_FUZZ_SECONDS=300 for a long run.
const FUZZ_SECONDS = Number(process.env.WEBLOCKS_FUZZ_SECONDS) || 12;

test('a hostile page sending random and malformed hub messages cannot disturb the other tabs', async ({ browser }) => {
  test.setTimeout(120_000 + FUZZ_SECONDS * 1000);
  const server = await startChaosServer();
  const context = await browser.newContext();
  const hubTrouble = [];
  try {
    const honest = [];
    for (const holder of ['a', 'b']) {
      const page = await context.newPage();
      page.on('console', (message) => {
        if (/stopped answering|declared this context dead|lock requests fail/.test(message.text())) hubTrouble.push(`${holder}: ${message.text()}`);
        if (message.type() === 'warning' || message.type() === 'error') server.append({ type: 'note', holder, text: message.text().slice(0, 300) });
      });
      await page.goto(`${server.url}tests/model/browser/chaos.html?holder=${holder}&seed=${holder.charCodeAt(0)}&workers=1`);
      await page.waitForFunction(() => typeof window.chaos === 'object');
      honest.push([holder, page]);
    }
    const hostile = await context.newPage();
    await hostile.goto(`${server.url}tests/model/browser/hostile.html`);
    const grantsBefore = server.entries.filter((e) => e.type === 'grant').length;
    const fuzz = await hostile.evaluate(([seconds, version]) => window.hostile.run({ seconds, seed: 7, version }), [FUZZ_SECONDS, PROTOCOL_VERSION]);
    const grantsDuring = server.entries.filter((e) => e.type === 'grant').length - grantsBefore;

    const stats = [];
    for (const [holder, page] of honest) {
      stats.push({ holder, ...(await page.evaluate(() => window.chaos.stop())) });
      stats.push({ holder: `${holder}/worker`, ...(await page.evaluate(() => window.chaos.workerStats())) });
    }
    await hostile.close();   // its connections die with it; the hub's heartbeat releases what they held

    const probe = honest[0][1];
    const state = await lockStateOnceEmpty(probe);

    const result = checkHolds(server.entries);
    const report = { seconds: FUZZ_SECONDS, hostileSent: fuzz.sent, hostileConnections: fuzz.connections, hostileSendFailures: fuzz.sendFailures,
      hubReplies: fuzz.replies, learnedClientIds: fuzz.learnedClientIds, honestGrantsDuringFuzz: grantsDuring,
      holdsChecked: result.holds, violations: result.violations, honestErrors: stats.reduce((n, s) => n + s.errors, 0) };
    console.log(`protocol fuzz totals: ${JSON.stringify(report)}`);
    test.info().annotations.push({ type: 'protocol fuzz totals', description: JSON.stringify(report) });

    expect(fuzz.sent).toBeGreaterThan(10_000);
    expect(fuzz.replies.welcome ?? 0, 'the hostile page got registered (its hellos speak the hub\'s protocol version)').toBeGreaterThan(0);
    expect(fuzz.replies.granted ?? 0, 'the hostile page reached the engine, not only the validator').toBeGreaterThan(0);
    expect(fuzz.learnedClientIds, 'the hostile page learned the honest clientIds (from query) and tried them').toBeGreaterThan(0);
    expect(hubTrouble, 'the hub never died or declared an honest tab dead').toEqual([]);
    expect(grantsDuring, 'the honest tabs kept getting locks during the attack').toBeGreaterThan(50);
    expect(stats.filter((s) => s.errors > 0).map((s) => `${s.holder}: ${s.lastError}`), 'honest agents saw only outcomes the spec allows').toEqual([]);
    if (result.violations > 0) {
      const file = saveLog(server.entries, 'protocol-fuzz');
      await test.info().attach('hold log around the violations', { body: excerpt(server.entries, result.involved), contentType: 'text/plain' });
      console.log(`full hold log: ${file}\n${excerpt(server.entries, result.involved)}`);
    }
    expect(result.problems).toEqual([]);
    expect(result.violations).toBe(0);
    expect(result.stillHeld).toEqual([]);
    expect(state, 'nothing held or pending once the hostile page is gone').toEqual({ held: [], pending: [] });
  } finally {
    await context.close();
    await server.close();
  }
});
