// WebKitGTK: WebKitWebDriver starts Debian's MiniBrowser (under an X server: the test command
// runs the browser tests under xvfb-run), one WebDriver session (one MiniBrowser, a fresh hub and
// fresh processes) per test. WebKit ends a WebDriver session as soon as any of its pages' web
// processes crashes (and leaves the browser running), while the liveness and hub-loss specs crash
// them on purpose and go on. So the pages are driven over the test server's remote-control
// channel (support/remote-control.mjs, remote-agent.js), which outlives a crash, and WebDriver
// only starts the browser and opens windows: each tab a window of its own (a web process of its
// own) while the session lives; after a crash ended it, a launcher page opens further tabs with
// window.open (MiniBrowser runs with --javascript-can-open-windows-automatically), and those share
// the launcher's web process (their process cannot be crashed alone: processOf says so).
//
// Processes: a tab's WebKitWebProcess is a child of the MiniBrowser, found by comparing the
// MiniBrowser's web processes before and after the tab opens (opening is serialized); the hub's
// SharedWorker runs in the web process of the tab that started it.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { WebDriverSession, startDriver } from '../webdriver.js';
import { alive, descendants, killAndWait, processWithThread } from '../processes.js';
import { RemoteTab } from './remote-tab.js';
import { captureWindowOf } from '../x-screenshot.js';
import { openInTurn, processOfTab } from './opening.js';
import { startLoopbackProxy, webdriverProxyCapability } from '../../../support/insecure-origin.mjs';

const MINIBROWSER = '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser';

function webProcesses(root) {
  return descendants(root).filter((p) => /\/WebKitWebProcess /.test(p.command)).map((p) => p.pid);
}

function withTab(url, id) {
  const u = new URL(url);
  u.searchParams.set('remote-tab', id);
  return u.href;
}

class WebKitTab extends RemoteTab {
  constructor(session, id) {
    super();
    this.session = session;
    this.id = id;
    this.page = null;
    this.lastUrl = '';
  }

  attach(page, url) {
    this.page = page;
    this.lastUrl = url;
    page.listeners.add((m) => {
      if (m.t === 'console') this.emit('console', { type: () => m.type, text: () => m.text });
      if (m.t === 'pageerror') this.emit('pageerror', { stack: m.text });
    });
  }

  evaluate(fn, arg) { return this.session.remote.evaluate(this.page, fn, arg); }

  /** Runs `fn` (which leaves the document) and resolves when the next document has connected. */
  async leave(fn, arg, url) {
    const next = this.session.remote.connected(this.id);
    await this.evaluate(fn, arg);
    this.attach(await next, url);
  }

  goto(url) {
    const target = withTab(url, this.id);
    this.history = [...(this.history ?? []), this.lastUrl];
    return this.leave((u) => { setTimeout(() => { location.href = u; }, 0); return true; }, target, url);
  }

  /** history.back(): resolves once the previous document connected again (restored from the back/forward cache, or loaded anew). */
  back() {
    const url = this.history?.pop() ?? this.lastUrl;
    return this.leave(() => { setTimeout(() => history.back(), 0); return true; }, null, url);
  }

  reload() { return this.leave(() => { setTimeout(() => location.reload(), 0); return true; }, null, this.lastUrl); }
  url() { return this.lastUrl; }

  /**
   * Like Playwright's page.screenshot({ path }) (the viewport): WebDriver's screenshot of the tab's
   * window while the session lives; a tab opened with { ownWindow } is captured from the X server
   * instead, which still works after a crash has ended the session.
   */
  async screenshot({ path: file }) {
    if (this.ownWindow) { await captureWindowOf(this, file); return; }
    // WebKitWebDriver never answers for a tab that is not the one its window shows: fail instead.
    let timer;
    const png = this.handle && await Promise.race([
      this.session.webdriver((wd) => wd.inWindow(this.handle, 'GET', '/screenshot')),
      new Promise((_, reject) => { timer = setTimeout(() => reject(new Error('WebDriver\'s screenshot did not answer in 10 s: '
        + 'open the tab with session.open(url, listen, { ownWindow: true }) to capture it from the X server')), 10_000); }),
    ]).finally(() => clearTimeout(timer));
    if (!png) {
      throw new Error('WebKit ended the WebDriver session (a page\'s process crashed): screenshots of this tab are gone with it; '
        + 'open the tab with session.open(url, listen, { ownWindow: true }) to capture it from the X server');
    }
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, Buffer.from(png, 'base64'));
  }

  /** Like Playwright's page.setViewportSize: resizes the tab's window (WebDriver, else resizeTo). */
  async setViewportSize({ width, height }) {
    const done = this.handle && await this.session.webdriver((wd) => wd.inWindow(this.handle, 'POST', '/window/rect', { width, height }));
    if (!done) await this.evaluate(([w, h]) => { resizeTo(w, h); return true; }, [width, height]);
  }

  async close() {
    if (!this.page || this.page.closed) return;
    if (!(this.handle && await this.session.closeWindow(this.handle))) {
      // WebKit lets script close only the windows script opened: a window WebDriver opened leaves
      // its page for about:blank instead (the document goes as in a close: pagehide runs).
      await this.evaluate(() => {
        setTimeout(() => { window.close(); if (!window.closed) location.replace('about:blank'); }, 0);
        return true;
      });
    }
    await this.page.closedPromise;
  }
}

class WebKitSession {
  constructor({ wd, browserPid, remote, launcher, prefix }) {
    Object.assign(this, { wd, browserPid, remote, launcher, prefix });
    this.opening = Promise.resolve();
    this.tabs = 0;
    this.webdriverAlive = true;
  }

  /**
   * Runs a WebDriver command; null once WebKit has ended the session. After a crash it does so
   * asynchronously, and commands in between fail with other errors ("unknown error"): after a
   * crash, any failure counts as the end.
   */
  async webdriver(send) {
    // Once a page's process has been killed, no command is sent: some never get an answer.
    if (!this.webdriverAlive || this.crashed) return null;
    try {
      return await send(this.wd);
    } catch (error) {
      if (error.code !== 'invalid session id' && !this.crashed) throw error;
      this.webdriverAlive = false;
      return null;
    }
  }

  async closeWindow(handle) {
    const closed = (await this.webdriver((wd) => wd.inWindow(handle, 'DELETE', '/window'))) !== null;
    // WebDriver is left without a current window, and opens no new one from there: back to the launcher's.
    if (closed) await this.webdriver((wd) => wd.inWindow(this.launcherHandle, 'GET', '/window'));
    return closed;
  }

  /**
   * A new tab with `url` loaded; `listen(tab)` runs before its first script. `ownWindow`: opened
   * from the launcher page (window.open), a top-level window of its own that can be captured from
   * the X server (tab.screenshot) after a crash, but in the launcher's web process.
   */
  open(url, listen, { ownWindow = false } = {}) {
    const run = async () => {
      const before = new Set(webProcesses(this.browserPid));
      const tab = new WebKitTab(this, `${this.prefix}-${++this.tabs}`);
      tab.ownWindow = ownWindow;
      const next = this.remote.connected(tab.id);
      if (!ownWindow) tab.handle = (await this.webdriver((wd) => wd.send('POST', '/window/new', { type: 'tab' })))?.handle;
      if (tab.handle) {
        // WebDriver answers at the load event, or null when WebKit ended the session meanwhile.
        const loading = this.webdriver((wd) => wd.inWindow(tab.handle, 'POST', '/url', { url: withTab(url, tab.id) }));
        if (await Promise.race([next.then(() => 'connected'), loading]) === null) tab.handle = undefined;
        else loading.catch(() => {});
      }
      if (!tab.handle) {
        await this.remote.evaluate(this.launcher, (u) => { window.open(u, '_blank', 'noopener'); return true; }, withTab(url, tab.id));
      }
      const page = await next;
      tab.processes = webProcesses(this.browserPid).filter((pid) => !before.has(pid));
      tab.attach(page, url);
      listen?.(tab);
      return tab;
    };
    return openInTurn(this, run);
  }

  processOf(tab) {
    return processOfTab(tab, 'WebKitWebProcess');
  }

  /** Kills the tab's web process (SIGKILL) and resolves once it has exited. */
  async crash(tab) {
    const pid = this.processOf(tab);
    this.crashed = true;
    await killAndWait(pid);
    return { pid };
  }

  /** Kills the web process that runs the hub (its thread "WebCore: SharedWorker") once it has exited. */
  async killHub(host) {
    const pid = processWithThread(webProcesses(this.browserPid), /SharedWorker$/, 'the hub SharedWorker');
    if (pid !== this.processOf(host)) throw new Error(`the hub runs in web process ${pid}, not in the host tab's (${this.processOf(host)})`);
    this.crashed = true;
    await killAndWait(pid);
    return { pid };
  }

  async close() {
    // After a crash WebKit has already ended the WebDriver session but left the browser running.
    // WebKitWebDriver still counts the session until it is deleted (it runs one at a time), so
    // the delete is sent even after a crash, bounded in time.
    if (this.webdriverAlive) {
      let timer;
      await Promise.race([this.wd.delete().catch(() => {}), new Promise((r) => { timer = setTimeout(r, 5_000); })]);
      clearTimeout(timer);
    }
    // Its web processes go too: one busy in a script (a busy-holder page) does not notice its
    // browser's end until the script returns, and spins on meanwhile, reparented, slowing the
    // next sessions' start past their bound (seen as three failed tries in a row after csp.spec's
    // busy cases; the retry, seconds later, started at once).
    const tree = descendants(this.browserPid).map((p) => p.pid);
    if (alive(this.browserPid)) await killAndWait(this.browserPid);
    await Promise.all(tree.filter(alive).map((pid) => killAndWait(pid).catch(() => {})));
  }
}

const BROWSER_SEEN_WITHIN = 10_000;

/**
 * Watches a driver's new-session request: its `signal` aborts once a MiniBrowser that the driver
 * started (not in `before`) has died before the session was answered (the driver would never
 * answer it). Call stop() when the request is answered.
 */
function watchBrowserStart(driverPid, before) {
  const controller = new AbortController();
  const since = Date.now();
  let started = null;
  const timer = setInterval(() => {
    if (started === null) {
      started = descendants(driverPid).find((p) => !before.has(p.pid) && p.command.startsWith(MINIBROWSER))?.pid ?? null;
      // (One that died before we looked: none is seen at all. The driver starts it at once.)
      if (started === null && Date.now() - since > BROWSER_SEEN_WITHIN) {
        clearInterval(timer);
        controller.abort(new Error(`no MiniBrowser of a new WebDriver session seen in ${BROWSER_SEEN_WITHIN} ms: it crashed as it started, or never did`));
      }
    } else if (!alive(started)) {
      clearInterval(timer);
      controller.abort(new Error(`the MiniBrowser of a new WebDriver session (pid ${started}) crashed as it started`));
    }
  }, 50);
  return { signal: controller.signal, stop: () => clearInterval(timer) };
}

export async function launchWebKit(servers) {
  if (!process.env.DISPLAY) {
    throw new Error('WebKit needs an X server: run the browser tests under `xvfb-run -a` (scripts/test.sh does)');
  }
  let driver = await startDriver('/usr/bin/WebKitWebDriver');
  let sessions = 0;
  // WebKitGTK cannot map a name to an address: the insecure origin (weblocks.test) is reached
  // through a proxy on 127.0.0.1 that forwards that name to 127.0.0.1 and refuses every other host.
  let proxy = await startLoopbackProxy();
  const refused = [];
  const capabilities = () => ({
    'webkitgtk:browserOptions': { binary: MINIBROWSER, args: ['--automation', '--javascript-can-open-windows-automatically=true'] },
    proxy: webdriverProxyCapability(proxy),
  });
  // A new session's start is bounded by SESSION_BUDGET_MS only (well inside the fixture's 60 s),
  // not by a shorter bound per try. Under the load of other steps a start took 1-10 s, and a cold
  // one (its libraries not yet in the page cache: seconds in disk wait) 9 s to over 24 s: a try cut
  // at 12 s killed a browser that was still starting and began again with a fresh driver, proxy and
  // browser, which loaded the machine more (the failed session starts of CI runs). Left alone, the
  // same start succeeds in one try. A fresh driver is taken only when the start surely failed: the
  // MiniBrowser died as it started (the WebKitGTK 2.50 noProxy crash, see webdriverProxyCapability,
  // was one such), or the driver dropped the request's connection.
  const SESSION_BUDGET_MS = 45_000;
  const SLOW_START_MS = 5_000;
  async function restartDriver() {
    const left = descendants(driver.pid).map((p) => p.pid);
    await driver.stop();
    await Promise.all(left.filter(alive).map((pid) => killAndWait(pid).catch(() => {})));
    refused.push(...proxy.refused);
    await proxy.close();
    proxy = await startLoopbackProxy();
    driver = await startDriver('/usr/bin/WebKitWebDriver');
  }
  async function startSession(timeoutMs) {
    const before = new Set(descendants(driver.pid).map((p) => p.pid));
    const watch = watchBrowserStart(driver.pid, before);
    let wd;
    try {
      wd = await WebDriverSession.create(driver.url, capabilities(), { timeoutMs, signal: watch.signal });
    } finally {
      watch.stop();
    }
    const browser = descendants(driver.pid).find((p) => !before.has(p.pid) && p.command.startsWith(MINIBROWSER));
    if (!browser) throw new Error('the WebDriver session started no MiniBrowser that we can see under /proc');
    const prefix = `s${++sessions}`;
    const connected = servers.remote.connected(`${prefix}-launcher`, timeoutMs);
    connected.catch(() => {});
    await wd.send('POST', '/url', { url: withTab(`${servers.loopback}tests/browser/pages/launcher.html`, `${prefix}-launcher`) });
    const session = new WebKitSession({ wd, browserPid: browser.pid, remote: servers.remote, launcher: await connected, prefix });
    session.launcherHandle = await wd.send('GET', '/window');
    return session;
  }
  // Failures after which a fresh driver is worth a try (the session surely did not start).
  const crashedOrDropped = (error) => error instanceof TypeError || /crashed as it started|never did/.test(String(error?.message));
  return {
    name: 'webkit',
    async newSession() {
      const started = Date.now();
      const deadline = started + SESSION_BUDGET_MS;
      for (let attempt = 1; ; attempt++) {
        try {
          let timer;
          const left = deadline - Date.now();
          const session = await Promise.race([startSession(left), new Promise((_, reject) => {
            timer = setTimeout(() => reject(new Error(`no session within the budget of ${SESSION_BUDGET_MS} ms`)), left + 1_000);
          })]).finally(() => clearTimeout(timer));
          const took = Date.now() - started;
          if (took > SLOW_START_MS) console.log(`webkit: a new session took ${(took / 1000).toFixed(1)} s to start (try ${attempt})`);
          return session;
        } catch (error) {
          if (deadline - Date.now() < 2_000 || !crashedOrDropped(error)) {
            throw new Error(`a WebKit session did not start (try ${attempt}, ${Date.now() - started} ms): ${error?.message ?? error}\n`
              + `WebKitWebDriver's stderr: ${driver.stderr().slice(-1500) || '(nothing)'}`, { cause: error });
          }
          // The driver's stderr carries its browsers' too: what a browser said as it died.
          console.log(`webkit: a new session failed (${String(error?.message ?? error).slice(0, 120)}); starting a fresh driver, try ${attempt + 1}; `
            + `WebKitWebDriver's stderr: ${driver.stderr().trim().slice(-600) || '(nothing)'}`);
          await restartDriver();
        }
      }
    },
    async close() {
      await driver.stop();
      await proxy.close();
      refused.push(...proxy.refused);
      if (refused.length) console.log(`webkit: the loopback proxy refused ${refused.length} request(s) for other hosts: ${[...new Set(refused)].join(', ')}`);
    },
  };
}
