// The remote lock space from a Chromium page over loopback, against a bare WebSocket echo on the
// same server, same run: node bench/remote/browser.mjs [--rounds N] [--ops N] [--crash-rounds N] [--out FILE.md]
// The page (on the insecure test name) imports weblocks-wasm/remote's browser entry (js/remote/index.js)
// and measures, round by round, the echo's round trip and an uncontended request() (p50, p99).
// Then --crash-rounds times: a page holds a lock, a Node client here queues for it, the page's
// renderer is crashed (CDP Page.crash), and the time from the crash to the waiter's grant is taken.
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import sirv from 'sirv';
import { WebSocketServer } from 'ws';
import { chromium } from 'playwright-core';
import { createLockServer } from '../../js/server/index.js';
import { livenessTables, timeToNextHolder } from './liveness.mjs';
import { writeResultFile } from './out.mjs';
import { CHROMIUM_RESOLVER_ARG, insecureBase } from '../../tests/support/insecure-origin.mjs';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '5' }, ops: { type: 'string', default: '1000' }, 'crash-rounds': { type: 'string', default: '9' }, out: { type: 'string' } } });
const startedAt = new Date();
const loadAtStart = os.loadavg();
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const files = sirv(root, { dev: true, dotfiles: false });
const server = http.createServer((req, res) => {
  if (req.url === '/bench-remote.html') {
    res.setHeader('Content-Type', 'text/html');
    res.end('<!doctype html><meta charset="utf-8"><script type="module">import { createLockManager } from "/js/remote/index.js"; window.createLockManager = createLockManager; window.ready = true;</script>');
    return;
  }
  files(req, res, () => { res.statusCode = 404; res.end(); });
});
createLockServer({ authorize: () => 'bench' }).attach(server, { path: '/locks' });
const echo = new WebSocketServer({ noServer: true, perMessageDeflate: false });
server.on('upgrade', (req, socket, head) => {
  if (req.url !== '/echo') return;
  echo.handleUpgrade(req, socket, head, (ws) => ws.on('message', (data, isBinary) => ws.send(data, { binary: isBinary })));
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu', CHROMIUM_RESOLVER_ARG] });
const page = await browser.newPage();
await page.goto(`${insecureBase(server.address().port)}bench-remote.html`);
await page.waitForFunction(() => window.ready === true);
const result = await page.evaluate(async ({ rounds, ops }) => {
  const pct = (list, p) => { const s = [...list].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(s.length * p))]; };
  const median = (list) => pct(list, 0.5);
  const socket = new WebSocket(`ws://${location.host}/echo`);
  await new Promise((resolve) => { socket.onopen = resolve; });
  const frame = JSON.stringify({ t: 'req', s: 1, a: 0, id: 1, name: 'bench', mode: 'exclusive', wait: 'wait' });
  // The page's clock is coarse (100 µs in Chromium): each sample is a multiple of it, so the
  // round's mean (its whole time over ops: one reading at each end) is the precise figure.
  const echoRound = async () => {
    const samples = [];
    samples.began = performance.now();
    for (let i = 0; i < ops; i++) {
      const t0 = performance.now();
      socket.send(frame);
      await new Promise((resolve) => { socket.onmessage = resolve; });
      samples.push((performance.now() - t0) * 1000);
    }
    samples.mean = (performance.now() - samples.began) * 1000 / ops;
    return samples;
  };
  const locks = window.createLockManager({ url: '/locks' });
  const requestRound = async () => {
    const samples = [];
    samples.began = performance.now();
    for (let i = 0; i < ops; i++) {
      const t0 = performance.now();
      await locks.request('uncontended', () => {});
      samples.push((performance.now() - t0) * 1000);
    }
    samples.mean = (performance.now() - samples.began) * 1000 / ops;
    return samples;
  };
  await echoRound(); await requestRound(); // warm-up
  const rows = { echo: [], request: [], ratio: [], requestP99: [], echoMean: [], requestMean: [], meanRatio: [] };
  for (let r = 0; r < rounds; r++) {
    const e = await echoRound();
    const q = await requestRound();
    rows.echo.push(pct(e, 0.5));
    rows.request.push(pct(q, 0.5));
    rows.requestP99.push(pct(q, 0.99));
    rows.ratio.push(pct(q, 0.5) / pct(e, 0.5));
    rows.echoMean.push(e.mean);
    rows.requestMean.push(q.mean);
    rows.meanRatio.push(q.mean / e.mean);
  }
  return {
    echoP50: median(rows.echo), requestP50: median(rows.request), requestP99: median(rows.requestP99), ratio: median(rows.ratio),
    echoMean: median(rows.echoMean), requestMean: median(rows.requestMean), meanRatio: median(rows.meanRatio),
  };
}, { rounds: Number(values.rounds), ops: Number(values.ops) });
const throughput = `| remote lock space, Chromium page over loopback (median of ${values.rounds} rounds × ${values.ops}) | value |
|---|---|
| bare WebSocket echo round trip, p50 (the page's clock: 100 µs steps) / mean | ${result.echoP50.toFixed(0)} µs / ${result.echoMean.toFixed(0)} µs |
| uncontended request(), p50 / p99 / mean | ${result.requestP50.toFixed(0)} µs / ${result.requestP99.toFixed(0)} µs / ${result.requestMean.toFixed(0)} µs |
| request() ÷ echo: p50 / mean | ${result.ratio.toFixed(2)}× / ${result.meanRatio.toFixed(2)}× |`;
console.log(throughput);

// A page holding a lock whose renderer crashes: to a Node client's grant (it sends no Origin: allowed).
const crashMs = [];
for (let round = 0; round < Number(values['crash-rounds']); round++) {
  const name = `page-crash-${round}`;
  const holder = await browser.newPage();
  await holder.goto(`${insecureBase(server.address().port)}bench-remote.html`);
  await holder.waitForFunction(() => window.ready === true);
  await holder.evaluate((name) => new Promise((resolve) => {
    window.createLockManager({ url: '/locks' }).request(name, () => { resolve(); return new Promise(() => {}); });
  }), name);
  const cdp = await holder.context().newCDPSession(holder);
  const stop = () => { cdp.send('Page.crash').catch(() => {}); }; // never answered: the page is gone
  crashMs.push(await timeToNextHolder({ url: `ws://127.0.0.1:${server.address().port}/locks`, name, stop, timeoutMs: 30_000 }));
  await holder.close().catch(() => {});
}
const crash = crashMs.length > 0 ? `\n\n${livenessTables([['Chromium page, renderer crashed (CDP Page.crash)', crashMs]])}` : '';
console.log(crash.trimStart());
if (values.out) writeResultFile(values.out, { title: 'The lock server over loopback, a Chromium page', script: 'bench/remote/browser.mjs', startedAt, loadAtStart, markdown: throughput + crash });
await browser.close();
server.closeAllConnections();
server.close();
process.exit(0);
