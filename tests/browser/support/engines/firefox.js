// Firefox ESR (Debian's firefox-esr), headless, driven by puppeteer-core over WebDriver BiDi.
// One browser per Playwright worker; one browser context per test (its own SharedWorker hub:
// workers are keyed by context as well as origin).
//
// Processes: with Fission every tab that loads a page of an origin gets a content process
// (`-contentproc -isForBrowser ... tab`) of its own, a child of the browser; the hub's
// SharedWorker runs in the content process of the tab that started it (the specs start it in a
// tab alone). Found by comparing the browser's content processes before and after a tab
// opens (opening tabs is serialized for that); preallocated processes are turned off so that a
// tab never adopts one started earlier.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import puppeteer from 'puppeteer-core';
import { descendants, killAndWait, threadNames } from '../processes.js';
import { RemoteTab } from './remote-tab.js';
import { openInTurn, processOfTab } from './opening.js';
import { FIREFOX_RESOLVER_PREFS } from '../../../support/insecure-origin.mjs';

const PREFS = {
  'dom.ipc.processPrelaunch.enabled': false,
  'dom.ipc.processCount.webIsolated': 16,
  'dom.ipc.keepProcessesAlive.webIsolated.perOrigin': 0,
  // Full-resolution clocks: the specs order events of different tabs by their stamps
  // (performance.timeOrigin + now()), which Firefox otherwise rounds to 1 ms in each tab.
  'privacy.reduceTimerPrecision': false,
  // The insecure origin's name, and every other name Firefox looks up by itself, to 127.0.0.1.
  ...FIREFOX_RESOLVER_PREFS,
};

function tabProcesses(root) {
  return descendants(root).filter((p) => / -contentproc .* tab$/.test(p.command)).map((p) => p.pid);
}

const CONSOLE_TYPES = { warn: 'warning' };

class FirefoxTab extends RemoteTab {
  constructor(page) {
    super();
    this.page = page;
    page.on('console', (message) => this.emit('console', {
      type: () => CONSOLE_TYPES[message.type()] ?? message.type(),
      text: () => message.text(),
    }));
    page.on('pageerror', (error) => this.emit('pageerror', error));
  }

  evaluate(fn, arg) { return this.page.evaluate(fn, arg); }
  async goto(url) { await this.page.goto(url); }
  async reload() { await this.page.reload(); }
  /** history.back(), as a page's own script goes back: resolves at once (the caller waits for the document it expects). */
  async back() { await this.page.evaluate(() => { setTimeout(() => history.back(), 0); return true; }); }
  url() { return this.page.url(); }
  async close() { if (!this.page.isClosed()) await this.page.close(); }
  /** Like Playwright's page.screenshot({ path, fullPage }). */
  async screenshot({ path, fullPage = false }) {
    mkdirSync(dirname(path), { recursive: true });
    await this.page.screenshot({ path, fullPage });
  }

  async setViewportSize({ width, height }) { await this.page.setViewport({ width, height }); }
}

class FirefoxSession {
  constructor(browserPid, context) {
    this.browserPid = browserPid;
    this.context = context;
    this.opening = Promise.resolve();
    this.tabs = [];
  }

  /** A new tab with `url` loaded; `listen(tab)` runs before the load. */
  open(url, listen) {
    const run = async () => {
      const before = new Set(tabProcesses(this.browserPid));
      const tab = new FirefoxTab(await this.context.newPage());
      listen?.(tab);
      await tab.goto(url);
      tab.processes = tabProcesses(this.browserPid).filter((pid) => !before.has(pid));
      this.tabs.push(tab);
      return tab;
    };
    return openInTurn(this, run);
  }

  processOf(tab) {
    return processOfTab(tab, 'content process');
  }

  /** Kills the tab's content process (SIGKILL) and resolves once it has exited. */
  async crash(tab) {
    const pid = this.processOf(tab);
    await killAndWait(pid);
    return { pid };
  }

  /**
   * Kills the process that runs the hub and resolves once it has exited. Firefox names every
   * worker thread "DOM Worker"; each polyfilled tab runs one (its sentinel, js/browser/sentinel.js)
   * unless a policy forbids it, and the specs that call this start no others in the tabs that
   * survive, so the hub's process is, among this session's tabs, the one with more worker threads
   * than any other: it must be the host's (the tab that started the hub alone). Tabs of earlier
   * sessions are not compared: their processes may outlive them, with workers of their own. A tie
   * is allowed: a tab whose policy refused its sentinel may keep an idle worker thread for a while
   * (seen in 2 runs of 6: [host 1, a 0, b 1] with the sentinel forbidden to all three). Every caller
   * checks that its pages reached a new hub afterwards, so a kill that missed the hub fails loudly.
   */
  async killHub(host) {
    const ours = new Set(this.tabs.flatMap((tab) => tab.processes));
    const pids = tabProcesses(this.browserPid).filter((p) => ours.has(p));
    const workers = new Map(pids.map((pid) => [pid, threadNames(pid).filter((name) => name === 'DOM Worker').length]));
    const pid = this.processOf(host);
    const others = pids.filter((p) => p !== pid).map((p) => workers.get(p));
    if (!(workers.get(pid) >= Math.max(1, ...others))) {
      throw new Error(`cannot tell that the hub runs in the host tab's process ${pid}: worker threads per content process ${JSON.stringify([...workers])}`);
    }
    await killAndWait(pid);
    return { pid };
  }

  async close() { await this.context.close().catch(() => {}); }
}

export async function launchFirefox() {
  const browser = await puppeteer.launch({
    browser: 'firefox', executablePath: '/usr/bin/firefox-esr', headless: true, extraPrefsFirefox: PREFS,
  });
  const pid = browser.process().pid;
  return {
    name: 'firefox',
    async newSession() { return new FirefoxSession(pid, await browser.createBrowserContext()); },
    close: () => browser.close(),
  };
}
