// The browser benchmarks: Debian's Chromium, headless, one browser; every contender gets its own
// browser context (its own SharedWorker hub, localStorage and tabs), scenario by scenario, side by side.
import { chromium } from 'playwright-core';
import { startServer } from './server.mjs';
import { summarize } from '../lib/stats.mjs';
import { CHROMIUM_RESOLVER_ARG } from '../../tests/support/insecure-origin.mjs';

export const CHROMIUM_ARGS = [
  '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync',
  CHROMIUM_RESOLVER_ARG, // no name resolves but the made-up insecure one (to 127.0.0.1): loopback only
  // Several tabs run at once: keep Chromium from throttling the ones it considers hidden.
  '--disable-background-timer-throttling', '--disable-renderer-backgrounding', '--disable-backgrounding-occluded-windows',
];

export const BROWSER_CONTENDERS = {
  native: 'Chromium native',
  ours: 'ours (hub)',
  'navigator.locks': 'navigator.locks (npm)',
  'web-locks-polyfill': 'web-locks-polyfill (npm)',
  'async-mutex': 'async-mutex (npm, in-tab only)',
};

function withTimeout(promise, ms, what) {
  let timer;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise((_, reject) => { timer = setTimeout(() => reject(Object.assign(new Error(`${what}: no answer within ${ms} ms`), { hung: true })), ms); }),
  ]);
}

async function openTabs(context, origin, impl, count) {
  const pages = [];
  for (let i = 0; i < count; i++) {
    const page = await context.newPage();
    await page.goto(`${origin}/bench/browser/bench.html?impl=${encodeURIComponent(impl)}`);
    await page.evaluate(() => window.benchReady);
    pages.push(page);
  }
  return pages;
}

/** Grows `size` until once(size) takes about targetMs, then returns it. */
async function calibrate(once, { start, targetMs, max = 1 << 20, min = start }) {
  let size = start;
  for (;;) {
    const elapsed = await once(size);
    // A load spike during calibration must not shrink rounds to a handful of operations: keep `min`.
    if (elapsed >= targetMs / 4 || size >= max) return Math.max(min, Math.min(max, Math.round(size * targetMs / Math.max(elapsed, 0.01))));
    size *= 4;
  }
}

/** Merges the tabs' grant times: how often the next holder was another tab (timer resolution permitting). */
function holderChanges(spans) {
  const grants = [];
  spans.forEach((span, tab) => { for (const t of span.grants) grants.push([t, tab]); });
  grants.sort((a, b) => a[0] - b[0]);
  let changes = 0;
  for (let i = 1; i < grants.length; i++) if (grants[i][1] !== grants[i - 1][1]) changes++;
  return { changes, acquisitions: grants.length };
}

// Each scenario: prepare() calibrates and warms up, round() measures once, finish() adds details.
const scenarios = {
  uncontended({ tabs: [page] }) {
    let ops = 0;
    const once = (n) => page.evaluate((k) => window.bench.uncontended(k), n);
    return {
      async prepare() { ops = await calibrate(once, { start: 16, targetMs: 100, min: 64 }); await once(ops); return { opsPerRound: ops }; },
      async round() { return (await once(ops)) * 1000 / ops; },
    };
  },
  contend({ tabs }) {
    let count = 0;
    let changes = 0;
    let acquisitions = 0;
    const once = async (n) => {
      const startAt = await tabs[0].evaluate(() => window.bench.clock() + 50);
      const spans = await Promise.all(tabs.map((tab) => tab.evaluate(([k, at]) => window.bench.handoff(k, at), [n, startAt])));
      const merged = holderChanges(spans);
      changes += merged.changes;
      acquisitions += merged.acquisitions;
      return Math.max(...spans.map((s) => s.end)) - Math.min(...spans.map((s) => s.start));
    };
    return {
      async prepare() {
        count = await calibrate(once, { start: 4, targetMs: 250, min: 16 });
        await once(count);
        changes = 0;
        acquisitions = 0;
        return { acquisitionsPerTabPerRound: count };
      },
      async round() { return tabs.length * count / ((await once(count)) / 1000); },
      async finish() { return { holderChangedFraction: changes / acquisitions }; },
    };
  },
  worker({ tabs: [page] }) {
    let count = 0;
    let changes = 0;
    let acquisitions = 0;
    const once = async (n) => {
      const spans = await page.evaluate((k) => window.bench.contendWithWorker(k), n);
      const merged = holderChanges(spans);
      changes += merged.changes;
      acquisitions += merged.acquisitions;
      return Math.max(...spans.map((s) => s.end)) - Math.min(...spans.map((s) => s.start));
    };
    return {
      async prepare() {
        await page.evaluate(() => window.bench.startWorker());
        count = await calibrate(once, { start: 4, targetMs: 250, min: 32 });
        await once(count);
        changes = 0;
        acquisitions = 0;
        return { acquisitionsPerContextPerRound: count };
      },
      async round() { return 2 * count / ((await once(count)) / 1000); },
      async finish() { return { holderChangedFraction: changes / acquisitions }; },
    };
  },
  // Several queries per round (about 100 ms of them), their mean: one query per round was at the
  // mercy of the page's timer resolution (0.1 ms in Chromium) and of whatever else ran just then.
  query({ tabs: [page], entries }) {
    let count = 0;
    const once = (n) => page.evaluate((k) => window.bench.queries(k), n);
    return {
      async prepare() {
        await page.evaluate(([n]) => window.bench.holdMany(n), [entries]);
        count = await calibrate(once, { start: 1, targetMs: 100, min: 3 });
        await once(count);
        return { entries, queriesPerRound: count };
      },
      async round() { return (await once(count)) / count; },
      async finish() { await page.evaluate(() => window.bench.releaseMany()); return {}; },
    };
  },
  pending({ tabs: [page], count }) {
    const enqueue = [];
    const drain = [];
    return {
      async prepare() { await page.evaluate((n) => window.bench.pending(n), count); return { count }; },
      async round() {
        const t = await page.evaluate((n) => window.bench.pending(n), count);
        enqueue.push(t.enqueue * 1000 / count);
        drain.push(t.drain * 1000 / count);
        return (t.enqueue + t.drain) * 1000 / count;
      },
      async finish() { return { enqueueUsPerRequest: enqueue, drainUsPerRequest: drain }; },
    };
  },
  burst({ tabs: [page], count }) {
    const made = [];
    return {
      // No warm-up burst: one takes tens of seconds natively (each round is one).
      async prepare() { return { count }; },
      async round() {
        const t = await page.evaluate((n) => window.bench.burst(n), count);
        made.push(t.made);
        return t.total;
      },
      async finish() { return { madeMs: made }; },
    };
  },
};

export const BROWSER_COMPARISONS = [
  { id: 'browser-uncontended', title: 'Uncontended request() in one tab', run: 'uncontended', tabs: 1, unit: 'µs/request', better: 'lower',
    contenders: ['native', 'ours', 'navigator.locks', 'web-locks-polyfill', 'async-mutex'] },
  { id: 'browser-handoff-2', title: 'Two tabs handing one exclusive lock back and forth', run: 'contend', tabs: 2, unit: 'handoffs/s', better: 'higher',
    contenders: ['native', 'ours', 'navigator.locks', 'web-locks-polyfill'] },
  { id: 'browser-contend-4', title: '4 tabs contending for one lock', run: 'contend', tabs: 4, unit: 'acquisitions/s', better: 'higher',
    contenders: ['native', 'ours'] },
  { id: 'browser-contend-8', title: '8 tabs contending for one lock', run: 'contend', tabs: 8, unit: 'acquisitions/s', better: 'higher',
    contenders: ['native', 'ours'] },
  { id: 'browser-worker', title: 'A dedicated worker contending with its page', run: 'worker', tabs: 1, unit: 'acquisitions/s', better: 'higher',
    contenders: ['native', 'ours'] },
  { id: 'browser-query-1k', title: 'query() with 1,000 held locks', run: 'query', tabs: 1, entries: 1000, unit: 'ms/query', better: 'lower',
    contenders: ['native', 'ours', 'navigator.locks'] },
  { id: 'browser-query-10k', title: 'query() with 10,000 held locks', run: 'query', tabs: 1, entries: 10_000, unit: 'ms/query', better: 'lower',
    contenders: ['native', 'ours'] },
  { id: 'browser-pending-10k', title: '10,000 pending requests on one name, enqueued and drained', run: 'pending', tabs: 1, count: 10_000, unit: 'µs/request', better: 'lower',
    contenders: ['native', 'ours', 'async-mutex'] },
  { id: 'browser-burst-10k', title: '10,000 requests in one burst (distinct names, callbacks return at once), made and all settled', run: 'burst', tabs: 1, count: 10_000, unit: 'ms/burst', better: 'lower',
    contenders: ['native', 'ours'], timeoutMs: 240_000 },
  { id: 'browser-burst-100k', title: '100,000 requests in one burst (distinct names, callbacks return at once), made and all settled', run: 'burst', tabs: 1, count: 100_000, unit: 'ms/burst', better: 'lower',
    contenders: ['native', 'ours'], timeoutMs: 240_000 },
];

/**
 * -> array of comparison results (see bench/run.mjs). Per comparison every contender gets its own
 * browser context and tabs, all prepared first, then the rounds are taken in turns (A B, B A, ...).
 */
export async function runBrowserBench({ rounds = 7, only = null, contenders: allowed = null, timeoutMs = 30_000, log = console.error } = {}) {
  const server = await startServer();
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS, headless: true });
  const results = [];
  try {
    for (const comparison of BROWSER_COMPARISONS) {
      if (only && !only.some((o) => comparison.id.includes(o))) continue;
      const entry = { group: 'browser', id: comparison.id, title: comparison.title, unit: comparison.unit, better: comparison.better, baseline: 'native', contenders: [] };
      const runs = [];
      for (const impl of comparison.contenders) {
        if (allowed && !allowed.includes(impl)) continue;
        runs.push({ impl, row: { id: impl, label: BROWSER_CONTENDERS[impl] }, context: await browser.newContext(), samples: [], extra: {}, failure: null });
      }
      const step = async (run, what) => {
        if (run.failure) return;
        try {
          const value = await withTimeout(what(), comparison.timeoutMs ?? timeoutMs, `${comparison.id} ${run.impl}`);
          if (typeof value === 'number') run.samples.push(value); else Object.assign(run.extra, value);
        } catch (error) {
          run.failure = { status: error.hung ? 'hung' : 'failed', detail: String(error.message).split('\n')[0].slice(0, 200) };
          await run.context.close().catch(() => {});   // stops whatever still runs in its tabs
        }
      };
      for (const run of runs) {
        await step(run, async () => {
          const tabs = await openTabs(run.context, server.origin, run.impl, comparison.tabs);
          run.scenario = scenarios[comparison.run]({ tabs, entries: comparison.entries, count: comparison.count });
          return run.scenario.prepare();
        });
      }
      const roundCount = comparison.run === 'pending' || comparison.run === 'burst' ? Math.min(rounds, 5) : rounds;
      for (let r = 0; r < roundCount; r++) {
        for (const run of r % 2 === 0 ? runs : [...runs].reverse()) await step(run, () => run.scenario.round());
      }
      for (const run of runs) {
        await step(run, async () => (await run.scenario.finish?.()) ?? {});
        await run.context.close().catch(() => {});
        const { row } = run;
        if (run.failure) Object.assign(row, run.failure);
        else Object.assign(row, { status: 'ok', summary: summarize(run.samples), extra: run.extra });
        log(`  ${comparison.id} ${run.impl}: ${row.status === 'ok' ? row.summary.median.toFixed(2) + ' ' + comparison.unit : row.status + ' ' + row.detail}`);
        entry.contenders.push(row);
      }
      results.push(entry);
    }
  } finally {
    await browser.close();
    await server.close();
  }
  return results;
}
