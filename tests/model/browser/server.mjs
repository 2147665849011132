// The browser chaos and protocol-fuzz specs' server: the repository root over HTTP, plus
// POST /chaos/log, the hold checker's log (entries numbered in order of arrival; each is
// acknowledged only once recorded, so an agent that awaits the answer knows it is in order).
import http from 'node:http';
import os from 'node:os';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sirv from 'sirv';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

export async function startChaosServer() {
  const entries = [];
  const files = sirv(root, { dev: true, dotfiles: false });
  const append = (entry) => entries.push({ ...entry, seq: entries.length, at: Date.now() });
  const server = http.createServer((req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    if (req.method === 'POST' && req.url === '/chaos/log') {
      let body = '';
      req.on('data', (chunk) => { body += chunk; });
      req.on('end', () => {
        try {
          append(JSON.parse(body));
          res.writeHead(204).end();
        } catch {
          res.writeHead(400).end();
        }
      });
      return;
    }
    files(req, res, () => res.writeHead(404).end('not found'));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/`,
    entries,
    append,
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(resolve); }),
  };
}

// The entries around the first few involved holds (and all of theirs), for a failing test's report.
export function excerpt(entries, involved, { holds = 4, around = 12 } = {}) {
  const shown = new Set(involved.slice(0, holds));
  const holders = new Set();
  const wanted = new Set();
  for (const e of entries) {
    if (!shown.has(e.hold)) continue;
    if (e.holder !== undefined) holders.add(e.holder);
    for (let s = Math.max(0, e.seq - around); s <= Math.min(entries.length - 1, e.seq + around); s++) wanted.add(s);
  }
  return entries.filter((e) => wanted.has(e.seq) || (e.type === 'note' && holders.has(e.holder))).map((e) => JSON.stringify(e)).join('\n');
}

// Saves the whole log where a later run does not delete it; returns the path.
export function saveLog(entries, label) {
  const file = path.join(os.tmpdir(), `weblocks-${label}-${Date.now()}.json`);
  writeFileSync(file, JSON.stringify(entries));
  return file;
}

/**
 * The origin's lock state as `page` sees it, once nothing is held or pending, or after `ms`
 * (the hub's heartbeat releases what dead agents held within about 2 s).
 */
export async function lockStateOnceEmpty(page, ms = 20_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const state = await page.evaluate(() => navigator.locks.query());
    if ((state.held.length === 0 && state.pending.length === 0) || Date.now() > deadline) return state;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
