// WebKitGTK: WebKitWebDriver drives Debian's MiniBrowser (under an X server: the test command
// runs this project under xvfb-run). One WebDriver session (one MiniBrowser) per test, so the
// origin's hub and every process start fresh; each tab is a window of that session.
//
// Processes: every window that loads a page gets a WebKitWebProcess of its own, a child of the
// MiniBrowser; the hub's SharedWorker runs in a web process of its origin. Both are found by
// comparing the MiniBrowser's children before and after (opening tabs is serialized for that).
import { WebDriverSession, startDriver } from '../webdriver.js';
import { descendants, killAndWait } from '../processes.js';
import { RemoteTab } from './remote-tab.js';

const MINIBROWSER = '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser';
const WEB_PROCESS = /\/WebKitWebProcess$/;

function webProcesses(root) {
  return descendants(root).filter((p) => WEB_PROCESS.test(p.argv[0])).map((p) => p.pid);
}

class WebKitTab extends RemoteTab {
  constructor(session, handle) {
    super();
    this.session = session;
    this.handle = handle;
    this.slots = 0;
    this.closed = false;
  }

  command(method, path, body) { return this.session.wd.inWindow(this.handle, method, path, body); }

  /**
   * Playwright's page.evaluate(fn, arg). A WebDriver session runs one command at a time, and a
   * harness call may wait for a lock that another tab's next command releases: so the function
   * is started in the page and its result collected by short polls, never awaited in one command.
   */
  async evaluate(fn, arg) {
    const slot = ++this.slots;
    const start = `
      const [arg, slot, done] = arguments;
      const results = window.__webdriverResults || (window.__webdriverResults = new Map());
      const record = { done: false };
      results.set(slot, record);
      let given = false;
      const give = () => { if (given) return; given = true; if (record.done) results.delete(slot); done(record); };
      Promise.resolve().then(() => (${fn})(arg)).then(
        (value) => { record.done = true; record.value = value === undefined ? null : value; give(); },
        (error) => { record.done = true; record.error = String((error && error.stack) || error); give(); });
      setTimeout(give, 50);`;
    let record = await this.command('POST', '/execute/async', { script: start, args: [arg ?? null, slot] });
    for (let wait = 2; !record.done; wait = Math.min(wait * 2, 20)) {
      await new Promise((r) => setTimeout(r, wait));
      record = await this.command('POST', '/execute/sync', {
        script: `const results = window.__webdriverResults; const r = results && results.get(arguments[0]);
          if (r && r.done) results.delete(arguments[0]); return r || { done: true, error: 'the page navigated away' };`,
        args: [slot],
      });
    }
    if (record.error !== undefined) throw new Error(`evaluate: ${record.error}`);
    return record.value;
  }

  async goto(url) { await this.command('POST', '/url', { url }); }
  async reload() { await this.command('POST', '/refresh', {}); }
  url() { return this.lastUrl ?? ''; }

  async close() {
    if (this.closed) return;
    this.closed = true;
    await this.session.wd.enqueue(async () => {
      await this.session.wd.sendNow('POST', '/window', { handle: this.handle });
      this.session.wd.current = this.handle;
      await this.session.wd.sendNow('DELETE', '/window');
      this.session.wd.current = null;
    });
  }
}

class WebKitSession {
  constructor(wd, browserPid, blankHandle) {
    this.wd = wd;
    this.browserPid = browserPid;
    this.blankHandle = blankHandle;
    this.opening = Promise.resolve();
    this.tabs = [];
  }

  /** A new window with `url` loaded; `listen(tab)` runs before the load. */
  open(url, listen) {
    const run = async () => {
      const before = new Set(webProcesses(this.browserPid));
      const { handle } = await this.wd.send('POST', '/window/new', { type: 'tab' });
      const tab = new WebKitTab(this, handle);
      listen?.(tab);
      await tab.goto(url);
      tab.lastUrl = url;
      tab.processes = webProcesses(this.browserPid).filter((pid) => !before.has(pid));
      this.tabs.push(tab);
      return tab;
    };
    const opened = this.opening.then(run, run);
    this.opening = opened.catch(() => {});
    return opened;
  }

  /** The tab's own web process, as found when it opened. */
  processOf(tab) {
    if (tab.processes.length !== 1) {
      throw new Error(`cannot tell which WebKitWebProcess hosts the tab: it started ${JSON.stringify(tab.processes)}`);
    }
    return tab.processes[0];
  }

  /** Kills the tab's web process (SIGKILL) and resolves once it has exited. */
  async crash(tab) {
    const pid = this.processOf(tab);
    await killAndWait(pid);
    tab.closed = true;
    return { pid };
  }

  webProcesses() { return webProcesses(this.browserPid); }

  async close() { await this.wd.delete().catch(() => {}); }
}

export async function launchWebKit() {
  if (!process.env.DISPLAY) {
    throw new Error('WebKit needs an X server: run the browser tests under `xvfb-run -a` (scripts/test.sh does)');
  }
  const driver = await startDriver('/usr/bin/WebKitWebDriver');
  return {
    name: 'webkit',
    async newSession() {
      const before = new Set(descendants(driver.pid).map((p) => p.pid));
      const wd = await WebDriverSession.create(driver.url, {
        'webkitgtk:browserOptions': { binary: MINIBROWSER, args: ['--automation'] },
      });
      const browser = descendants(driver.pid).find((p) => !before.has(p.pid) && p.argv[0] === MINIBROWSER);
      if (!browser) throw new Error('the WebDriver session started no MiniBrowser that we can see under /proc');
      return new WebKitSession(wd, browser.pid, await wd.send('GET', '/window'));
    },
    close: () => driver.stop(),
  };
}
