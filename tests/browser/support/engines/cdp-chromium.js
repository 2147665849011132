// Debian's Chromium driven over the DevTools protocol alone, for what Playwright cannot do: hide
// and freeze a page. Playwright turns focus emulation on for every page it drives, which keeps the
// page "captured", so always visible, and Chromium does not freeze a visible page: measured with
// Playwright 1.65 and Chromium 156, Page.setWebLifecycleState { state: 'frozen' } on a Playwright
// page leaves document.visibilityState 'visible', fires no freeze event, and a 50 ms interval runs
// 40 times in 2 s; on a page of this launcher it becomes hidden, gets its freeze event and runs none.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebSocket } from 'ws';
import { RemoteTab } from './remote-tab.js';
import { killAndWait } from '../processes.js';
import { CHROMIUM_RESOLVER_ARG } from '../../../support/insecure-origin.mjs';

/** One DevTools connection: send(method, params) -> result (rejects with the protocol's error). */
async function connect(url) {
  const socket = new WebSocket(url, { perMessageDeflate: false });
  await new Promise((resolve, reject) => { socket.once('open', resolve); socket.once('error', reject); });
  let next = 0;
  const waiting = new Map();
  socket.on('message', (data) => {
    const message = JSON.parse(String(data));
    const settle = waiting.get(message.id);
    if (!settle) return;
    waiting.delete(message.id);
    if (message.error) settle.reject(new Error(`${message.error.message} (${message.error.code})`)); else settle.resolve(message.result);
  });
  socket.on('close', () => { for (const settle of waiting.values()) settle.reject(new Error('the DevTools connection closed')); waiting.clear(); });
  return {
    send(method, params = {}) {
      const id = ++next;
      socket.send(JSON.stringify({ id, method, params }));
      return new Promise((resolve, reject) => waiting.set(id, { resolve, reject }));
    },
    close: () => socket.close(),
  };
}

class CdpTab extends RemoteTab {
  constructor(cdp) {
    super();
    this.cdp = cdp;
  }

  async evaluate(fn, arg) {
    const { result, exceptionDetails } = await this.cdp.send('Runtime.evaluate', {
      expression: `(${String(fn)})(${JSON.stringify(arg ?? null)})`, awaitPromise: true, returnByValue: true,
    });
    if (exceptionDetails) throw new Error(exceptionDetails.exception?.description ?? exceptionDetails.text);
    return result.value;
  }

  /** The page lifecycle as Chromium's own tab freezing drives it: 'frozen' hides and freezes the page; 'active' thaws it. */
  setLifecycle(state) { return this.cdp.send('Page.setWebLifecycleState', { state }); }
}

/** Launches a headless Chromium of its own; open(url) gives a tab (its own browser context). */
export async function launchCdpChromium() {
  const profile = mkdtempSync(join(tmpdir(), 'weblocks-cdp-chromium-'));
  const browser = spawn('/usr/bin/chromium', [
    '--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', '--remote-debugging-port=0', `--user-data-dir=${profile}`,
    CHROMIUM_RESOLVER_ARG, 'about:blank',
  ], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  const endpoint = await new Promise((resolve, reject) => {
    browser.stderr.on('data', (data) => {
      stderr += data;
      const found = /DevTools listening on (ws:\/\/\S+)/.exec(stderr);
      if (found) resolve(found[1]);
    });
    browser.once('exit', (code) => reject(new Error(`Chromium exited (${code}) before it listened: ${stderr.slice(-800)}`)));
  });
  const root = await connect(endpoint);
  const tabs = [];
  return {
    async open(url) {
      const { browserContextId } = await root.send('Target.createBrowserContext', {});
      const { targetId } = await root.send('Target.createTarget', { url: 'about:blank', browserContextId });
      const tab = new CdpTab(await connect(`ws://${new URL(endpoint).host}/devtools/page/${targetId}`));
      tabs.push(tab);
      await tab.cdp.send('Page.enable');
      await tab.cdp.send('Page.navigate', { url });
      return tab;
    },
    async close() {
      const exited = new Promise((resolve) => { if (browser.exitCode !== null || browser.signalCode !== null) resolve(); else browser.once('exit', resolve); });
      await root.send('Browser.close').catch(() => {});
      let timer;
      const timedOut = await Promise.race([exited.then(() => false), new Promise((resolve) => { timer = setTimeout(resolve, 10_000, true); })]);
      clearTimeout(timer);
      if (timedOut) await killAndWait(browser.pid);
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
