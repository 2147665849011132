// First grant: the ms from a context's first request() to its callback, as an app that takes a lock
// at page load sees it. Ours (the classic polyfill on the insecure origin) against Chromium's native
// navigator.locks (on 127.0.0.1), same page, same browser, taken in turns. Cases:
//   fresh        the first tab of a fresh profile (a new browser context: no hub, empty storage)
//   second-tab   a tab opened while another tab of the origin is open
//   worker       a dedicated worker created by an open tab (measured inside the worker)
//   reload-only  the reload of the only tab of the origin (its hub ends with it, unless the browser
//                keeps it: Chromium, extendedLifetime)
//   reload-other the reload of a tab while another tab is open
// `ours-plain` is ours with the hub asked for without Chromium's SharedWorker extendedLifetime option
// (as before it was asked for: the hub ends with the last tab). `floor` is no lock space at all: one
// round trip to a SharedWorker that answers at once (floor-client.js), on the insecure origin, the
// least any SharedWorker-based polyfill pays; ours minus floor is what our own code costs.
import { chromium } from 'playwright-core';
import { startServer } from './server.mjs';
import { summarize } from '../lib/stats.mjs';
import { CHROMIUM_ARGS } from './run.mjs';
import { insecureUrlOf } from '../../tests/support/insecure-origin.mjs';

export const FIRST_GRANT_CASES = ['fresh', 'second-tab', 'worker', 'reload-only', 'reload-other'];
export const FIRST_GRANT_CONTENDERS = { native: 'Chromium native', ours: 'ours (classic polyfill)', 'ours-plain': 'ours, hub without extendedLifetime', floor: 'floor: a bare SharedWorker round trip' };

async function openPage(context, url) {
  const page = await context.newPage();
  await page.goto(url);
  return page;
}

const grantOf = (page) => page.evaluate(() => window.firstGrant);

async function once(browser, caseName, url) {
  const context = await browser.newContext();
  try {
    const first = await openPage(context, url);
    const firstMs = await grantOf(first);
    switch (caseName) {
      case 'fresh': return firstMs;
      case 'second-tab': return await grantOf(await openPage(context, url));
      case 'worker': return await first.evaluate(() => window.workerFirstGrant());
      case 'reload-only': await first.reload(); return await grantOf(first);
      case 'reload-other': {
        const second = await openPage(context, url);
        await grantOf(second);
        await second.reload();
        return await grantOf(second);
      }
      default: throw new Error(`unknown case ${caseName}`);
    }
  } finally {
    await context.close();
  }
}

/** -> [{ case, contenders: [{ id, label, summary }] }] */
export async function runFirstGrantBench({ rounds = 12, cases = FIRST_GRANT_CASES, log = console.error } = {}) {
  const server = await startServer();
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS, headless: true });
  const page = `${server.origin}/bench/browser/first-grant.html`;
  const urls = { native: `${page}?impl=native`, ours: `${insecureUrlOf(page)}?impl=ours`, 'ours-plain': `${insecureUrlOf(page)}?impl=ours&plain`, floor: `${insecureUrlOf(page)}?impl=floor` };
  const results = [];
  try {
    for (const caseName of cases) {
      const samples = Object.fromEntries(Object.keys(urls).map((id) => [id, []]));
      for (let r = 0; r < rounds; r++) {
        const order = r % 2 === 0 ? Object.keys(urls) : Object.keys(urls).reverse();
        for (const id of order) {
          try {
            samples[id].push(await once(browser, caseName, urls[id]));
          } catch (error) {
            log(`  first grant, ${caseName}, ${id}: ${String(error.message).split('\n')[0]}`);
          }
        }
      }
      const contenders = Object.keys(urls).map((id) => ({ id, label: FIRST_GRANT_CONTENDERS[id], summary: summarize(samples[id]), samples: samples[id], failed: rounds - samples[id].length }));
      log(`  first grant, ${caseName}: ${contenders.map((c) => `${c.id} ${c.summary.median.toFixed(1)} ms`).join(', ')}`);
      results.push({ case: caseName, contenders });
    }
  } finally {
    await browser.close();
    await server.close();
  }
  return results;
}

if (process.argv[1] === new URL(import.meta.url).pathname) {
  // node bench/browser/first-grant.mjs [rounds] [case,case...]
  const rounds = Number(process.argv[2] ?? 12);
  const cases = process.argv[3] ? process.argv[3].split(',') : FIRST_GRANT_CASES;
  console.log(JSON.stringify(await runFirstGrantBench({ rounds, cases }), null, 1));
}
