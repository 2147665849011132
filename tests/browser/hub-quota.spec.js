// The hub's byte quota, in three engines: a page asks the hub to keep 40,000 requests on a
// 65,536-unit name (10 GB if it kept them all) over one connection, with flow control (at most 256
// unanswered). Nearly all are refused with QuotaExceededError, the hub keeps within its bound by
// its own count, and an honest tab is served meanwhile and after. In Chromium the whole browser's
// memory is bounded too; Firefox's and WebKit's is reported, not asserted (the test's browser
// serves every test of its worker, and in a full run Firefox grew by 643 MB here, alone by 153 MB).
// A flood without flow control is hub-load.spec.js (Chromium).
import { test, expect, call } from './support/fixtures.js';
import { PROTOCOL_VERSION, LIMITS } from '../../js/hub/protocol.js';

test('a page asking the hub to keep 40,000 requests on a 65,536-unit name gets QuotaExceededError; the hub stays small and serves others', async ({ openTab, engine }) => {
  test.setTimeout(150_000);
  const honest = await openTab('plain.html?coi');
  const attacker = await openTab('plain.html');
  await call(honest, 'query'); // the hub runs
  const before = await browserMemory();
  let peak = before;
  const sampler = setInterval(async () => { peak = Math.max(peak, await browserMemory()); }, 250);
  // The attacker keeps at most WINDOW requests unanswered: what is asked of the hub is the same
  // (40,000 requests it would have to keep), but the 2.6 GB of names never pile up in the browser's
  // message queues at once, so the outcome does not depend on how fast this machine copies them
  // (a flood without flow control is hub-load.spec.js). STALL_MS without an answer ends the wait
  // with a report of how far it got.
  const result = await attacker.evaluate(([version, nameLength]) => new Promise((resolve) => {
    const worker = new SharedWorker('/build/dist/weblocks-hub.js', { name: 'weblocks-wasm-hub', extendedLifetime: true });
    const name = 'q'.repeat(nameLength);
    const heard = { failed: 0, quota: 0, granted: 0, other: 0, message: '', sent: 0, answered: 0 };
    const N = 40_000;
    const WINDOW = 256;
    const STALL_MS = 30_000;
    const started = performance.now();
    let stall;
    const done = (extra) => { clearTimeout(stall); resolve({ ...heard, ms: performance.now() - started, ...extra }); };
    const watch = () => { clearTimeout(stall); stall = setTimeout(() => done({ stalled: true }), STALL_MS); };
    const send = () => {
      while (heard.sent < N && heard.sent - heard.answered < WINDOW) worker.port.postMessage({ t: 'request', token: ++heard.sent, name, mode: 'shared', wait: 'wait' });
    };
    worker.port.onmessage = ({ data }) => {
      if (data.t === 'welcome') return;
      if (data.t === 'failed') { heard.failed++; if (data.name === 'QuotaExceededError') { heard.quota++; heard.message = data.message; } } else if (data.t === 'granted') heard.granted++; else heard.other++;
      if (data.t === 'failed' || data.t === 'granted') heard.answered++;
      watch();
      if (heard.answered >= N) done({});
      else send();
    };
    worker.port.start();
    worker.port.postMessage({ t: 'hello', v: version, clientId: 'hoarder', ...(version >= 3 ? { key: 'hoarder-key' } : {}), lostHub: null, reclaim: [] });
    watch();
    send();
  }), [PROTOCOL_VERSION, LIMITS.nameLength]);
  clearInterval(sampler);
  const after = await browserMemory();
  // The honest tab is served meanwhile and after.
  const h = await call(honest, 'request', 'mine');
  expect(await call(honest, 'granted', h)).toMatchObject({ name: 'mine' });
  await call(honest, 'release', h);
  const report = { ...result, browserRssBeforeMB: Math.round(before / 1e6), browserRssPeakMB: Math.round(peak / 1e6), browserRssAfterMB: Math.round(after / 1e6) };
  console.log(`hub quota: ${JSON.stringify(report)}`);
  test.info().annotations.push({ type: 'hub quota', description: JSON.stringify(report) });
  expect(result.stalled, `every request was answered (${JSON.stringify(report)})`).toBeUndefined();
  expect(result.quota, 'nearly every request refused with QuotaExceededError').toBeGreaterThan(39_000);
  expect(result.quota + result.granted, 'each request was either granted or refused').toBe(40_000);
  const [, charged, bound] = /\((\d+) of (\d+) bytes/.exec(result.message) ?? [];
  expect(Number(charged), 'what the hub charged this context stays within its bound').toBeLessThanOrEqual(Number(bound));
  expect(Number(bound)).toBe(LIMITS.connectionBytes);
  if (engine !== 'chromium') return;
  expect(peak - before, 'the browser grew by less than 8 x the hub\'s bound (the hub keeps at most hubBytes; the rest is the messages in flight between the pages and the hub and the pages\' own copies of the names, outside its control)').toBeLessThan(8 * LIMITS.hubBytes);
});

/**
 * Memory of this test's browser: the resident set of every process below this one (Linux /proc).
 * The hub's worker is one of them; what the attack makes it keep shows as growth.
 */
async function browserMemory() {
  const { readdirSync, readFileSync } = await import('node:fs');
  const parent = new Map();
  const rss = new Map();
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      parent.set(pid, /PPid:\s+(\d+)/.exec(status)[1]);
      rss.set(pid, Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) * 1024);
    } catch { /* gone */ }
  }
  const mine = (pid) => { for (let p = pid, i = 0; p && p !== '0' && i < 50; p = parent.get(p), i++) if (p === String(process.pid)) return true; return false; };
  let total = 0;
  for (const [pid, bytes] of rss) if (pid !== String(process.pid) && mine(pid)) total += bytes;
  return total;
}
