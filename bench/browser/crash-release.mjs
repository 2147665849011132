// A crashed tab's release: the ms from the crash of a tab holding a lock (CDP Page.crash, counted
// from the call) to the grant of that lock in a waiting tab, ours (the classic polyfill: the
// browser closes the tab's alive database, js/hub/alive.js) against Chromium's native
// navigator.locks, same page, same browser, in turns. Both on 127.0.0.1 with COOP + COEP, so that
// each tab has a process of its own (on a shared one the crash would take the hub down too), ours
// with the native API removed first (tests/browser/pages/remove-native.js, as the browser specs do).
// A fresh browser context per round: a first tab (ours: it hosts the hub), the holder, the waiter.
import { chromium } from 'playwright-core';
import { startServer } from './server.mjs';
import { summarize } from '../lib/stats.mjs';
import { CHROMIUM_ARGS } from './run.mjs';

export const CRASH_CONTENDERS = { native: 'Chromium native', ours: 'ours (classic polyfill)' };

const REMOVE_NATIVE = new URL('../../tests/browser/pages/remove-native.js', import.meta.url).pathname;

async function once(browser, url, removeNative) {
  const context = await browser.newContext();
  if (removeNative) await context.addInitScript({ path: REMOVE_NATIVE });
  try {
    const open = async () => { const page = await context.newPage(); await page.goto(url); return page; };
    await open(); // the hub's host (ours), left alone
    const holder = await open();
    const waiter = await open();
    const name = `crash-${Math.random()}`;
    await holder.evaluate((n) => window.hold(n), name);
    await waiter.evaluate((n) => window.wait(n), name);
    const crashed = new Promise((resolve) => holder.once('crash', resolve));
    const askedAt = await waiter.evaluate(() => window.clock());
    (await context.newCDPSession(holder)).send('Page.crash').catch(() => {});
    await crashed;
    const grantedAt = await waiter.waitForFunction(() => window.grantedAt, null, { timeout: 15_000, polling: 5 }).then((h) => h.jsonValue());
    const hubLosses = await waiter.evaluate(() => window[Symbol.for("weblocks-wasm.backend")]?.stats.hubLosses ?? 0);
    if (hubLosses > 0) throw new Error("the crash took the hub down (its renderer was the holder's)");
    return grantedAt - askedAt;
  } finally {
    await context.close();
  }
}

/** -> [{ id, label, summary }] */
export async function runCrashReleaseBench({ rounds = 6, log = console.error } = {}) {
  const server = await startServer({ isolated: true });
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS, headless: true });
  const page = `${server.origin}/bench/browser/crash-release.html`;
  const urls = { native: `${page}?impl=native`, ours: `${page}?impl=ours` };
  const samples = Object.fromEntries(Object.keys(urls).map((id) => [id, []]));
  try {
    for (let r = 0; r < rounds; r++) {
      for (const [id, url] of Object.entries(urls)) {
        const ms = await once(browser, url, id === 'ours');
        samples[id].push(ms);
        log(`crash release ${id} round ${r + 1}: ${ms.toFixed(1)} ms`);
      }
    }
  } finally {
    await browser.close();
    await server.close();
  }
  return Object.entries(samples).map(([id, list]) => ({ id, label: CRASH_CONTENDERS[id], summary: summarize(list) }));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const rounds = Number(process.argv[2] ?? 6);
  console.log(JSON.stringify(await runCrashReleaseBench({ rounds }), (k, v) => (k === 'samples' ? undefined : v), 1));
}
