// The test process's end of the remote-control channel (remote-agent.js runs in the pages): pages
// opened with `?remote-tab=<id>` get the agent injected into their HTML and connect here over a
// WebSocket. `connected(id)` resolves with the page's connection; `evaluate` sends it a function.
import fs from 'node:fs';
import path from 'node:path';
import { WebSocketServer } from 'ws';

const AGENT = '<script src="/tests/browser/support/remote-agent.js"></script>';

export class RemoteControl {
  constructor(root) {
    this.root = root;
    this.wss = new WebSocketServer({ noServer: true });
    this.pages = new Map();
    this.waiters = new Map();
    this.nextCommand = 0;
  }

  /** Serves an HTML page with the agent first in it; false when the request is not for one. */
  serveWithAgent(req, res, headers) {
    const url = new URL(req.url, 'http://host');
    if (!url.searchParams.has('remote-tab') || !url.pathname.endsWith('.html')) return false;
    const file = path.join(this.root, decodeURIComponent(url.pathname));
    if (!file.startsWith(this.root) || !fs.existsSync(file)) return false;
    const html = fs.readFileSync(file, 'utf8');
    const at = html.search(/<meta charset="utf-8">/i);
    const cut = at >= 0 ? html.indexOf('>', at) + 1 : html.toLowerCase().startsWith('<!doctype') ? html.indexOf('>') + 1 : 0;
    res.writeHead(200, { ...headers, 'Content-Type': 'text/html; charset=utf-8' });
    res.end(`${html.slice(0, cut)}\n${AGENT}${html.slice(cut)}`);
    return true;
  }

  attach(server) {
    server.on('upgrade', (req, socket, head) => {
      const url = new URL(req.url, 'http://host');
      if (url.pathname !== '/__remote') {
        // Another listener's (the demo's lock server): left to it; an upgrade nobody serves is refused.
        if (server.listenerCount('upgrade') === 1) socket.destroy();
        return;
      }
      this.wss.handleUpgrade(req, socket, head, (ws) => this.accept(url.searchParams.get('tab'), ws));
    });
  }

  accept(id, ws) {
    const page = { id, ws, pending: new Map(), listeners: new Set(), closed: false };
    page.closedPromise = new Promise((resolve) => ws.on('close', () => {
      page.closed = true;
      for (const { reject } of page.pending.values()) reject(new Error(`the page of tab ${id} went away (closed, navigated or crashed)`));
      page.pending.clear();
      resolve();
    }));
    ws.on('message', (data) => {
      const m = JSON.parse(String(data));
      if (m.t === 'result') {
        const call = page.pending.get(m.id);
        page.pending.delete(m.id);
        if (!call) return;
        if (m.error !== undefined) call.reject(new Error(`evaluate: ${m.error}`)); else call.resolve(m.value);
      } else {
        for (const listener of page.listeners) listener(m);
      }
    });
    this.pages.set(id, page);
    for (const resolve of this.waiters.get(id) ?? []) resolve(page);
    this.waiters.delete(id);
  }

  /** The next page to connect as tab `id` (a fresh document: opened, navigated or reloaded). */
  connected(id, timeoutMs = 30_000) {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`tab ${id}: no page connected within ${timeoutMs} ms`)), timeoutMs);
      if (!this.waiters.has(id)) this.waiters.set(id, []);
      this.waiters.get(id).push((page) => { clearTimeout(timer); resolve(page); });
    });
  }

  evaluate(page, fn, arg) {
    if (page.closed) return Promise.reject(new Error(`the page of tab ${page.id} is gone`));
    const id = ++this.nextCommand;
    return new Promise((resolve, reject) => {
      page.pending.set(id, { resolve, reject });
      page.ws.send(JSON.stringify({ id, fn: String(fn), arg: arg === undefined ? null : arg }));
    });
  }

  close() {
    for (const page of this.pages.values()) page.ws.terminate();
    this.wss.close();
  }
}
