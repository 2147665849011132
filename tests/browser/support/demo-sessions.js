// Browser sessions for the demo specs, one shape in every engine: open(url) -> a tab with
// evaluate(fn, arg), front(), screenshot(file), crash() (its process dies at once: no pagehide,
// no goodbye) and close() (as a person closes a tab: pagehide runs). A session is one browser
// profile: one storage partition, one SharedWorker hub, one lock space.
//   chromium  Debian's Chromium through Playwright; a crash is CDP's Page.crash
//   firefox   Debian's Firefox ESR through puppeteer-core over WebDriver BiDi; a crash is SIGKILL
//             to the tab's content process (with Fission each tab of an origin gets its own,
//             found as the content process that appeared when the tab opened)
//   webkit    WebKitGTK's MiniBrowser through WebKitWebDriver (classic WebDriver over fetch; needs an X
//             server: run under `xvfb-run -a`); each tab a window of its own, with its own web process
// Browsers are never downloaded.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';

const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const FIREFOX_PREFS = {
  'dom.ipc.processPrelaunch.enabled': false, // a new tab never adopts a process started earlier
  'dom.ipc.processCount.webIsolated': 16,
  'dom.ipc.keepProcessesAlive.webIsolated.perOrigin': 0,
};

/** engine name -> { newSession({ width, height }), close() } */
export async function launchEngine(engine) {
  if (engine === 'chromium') return launchChromium();
  if (engine === 'firefox') return launchFirefox();
  if (engine === 'webkit') return launchWebKit();
  throw new Error(`the demo specs run in chromium, firefox and webkit (asked: ${engine})`);
}

async function launchChromium() {
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
  return {
    async newSession(viewport) {
      const context = await browser.newContext({ viewport });
      return {
        async open(url) {
          const page = await context.newPage();
          const tab = remember(page);
          await page.goto(url);
          return Object.assign(tab, {
            close: () => page.close({ runBeforeUnload: false }),
            async crash() {
              const crashed = new Promise((resolve) => page.once('crash', resolve));
              (await context.newCDPSession(page)).send('Page.crash').catch(() => {}); // never answers
              await crashed;
            },
          });
        },
        close: () => context.close(),
      };
    },
    close: () => browser.close(),
  };
}

async function launchFirefox() {
  const { default: puppeteer } = await import('puppeteer-core');
  const browser = await puppeteer.launch({
    browser: 'firefox', executablePath: '/usr/bin/firefox-esr', headless: true, extraPrefsFirefox: FIREFOX_PREFS,
  });
  const browserPid = browser.process().pid;
  let opening = Promise.resolve();
  return {
    async newSession(viewport) {
      const context = await browser.createBrowserContext();
      return {
        open(url) {
          // One at a time, so the content process that appears is this tab's.
          const run = async () => {
            const before = new Set(contentProcesses(browserPid));
            const page = await context.newPage();
            await page.setViewport(viewport);
            const tab = remember(page);
            await page.goto(url);
            const started = contentProcesses(browserPid).filter((pid) => !before.has(pid));
            return Object.assign(tab, {
              close: () => page.close({ runBeforeUnload: false }),
              async crash() {
                if (started.length !== 1) throw new Error(`cannot tell which content process hosts the tab: it started ${JSON.stringify(started)}`);
                process.kill(started[0], 'SIGKILL');
                while (isAlive(started[0])) await new Promise((r) => setTimeout(r, 20));
              },
            });
          };
          const opened = opening.then(run, run);
          opening = opened.catch(() => {});
          return opened;
        },
        close: () => context.close().catch(() => {}),
      };
    },
    close: () => browser.close(),
  };
}

const MINIBROWSER = '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser';

function freePort() {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => { const { port } = probe.address(); probe.close(() => resolve(port)); });
  });
}

async function launchWebKit() {
  if (!process.env.DISPLAY) throw new Error('WebKit needs an X server: run the tests under `xvfb-run -a`');
  const port = await freePort();
  const driver = spawn('/usr/bin/WebKitWebDriver', [`--port=${port}`], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  driver.stderr.on('data', (d) => { stderr = (stderr + d).slice(-4000); });
  const base = `http://127.0.0.1:${port}`;
  for (const deadline = Date.now() + 10_000; ;) {
    if (driver.exitCode !== null) throw new Error(`WebKitWebDriver exited (${driver.exitCode}): ${stderr}`);
    try { if ((await fetch(`${base}/status`)).ok) break; } catch { /* not listening yet */ }
    if (Date.now() > deadline) { driver.kill(); throw new Error(`WebKitWebDriver did not answer: ${stderr}`); }
    await new Promise((r) => setTimeout(r, 50));
  }
  const sessions = [];
  return {
    async newSession(viewport) {
      const before = new Set(descendants(driver.pid).map((p) => p.pid));
      const created = await webdriver(`${base}/session`, 'POST', { capabilities: { alwaysMatch: {
        'webkitgtk:browserOptions': { binary: MINIBROWSER, args: ['--automation'] },
      } } });
      const session = new WebKitSession(`${base}/session/${created.sessionId}`, viewport);
      session.browserPid = descendants(driver.pid).find((p) => !before.has(p.pid) && p.argv[0] === MINIBROWSER)?.pid;
      session.firstHandle = await session.send('GET', '/window');
      sessions.push(session);
      return session;
    },
    async close() {
      for (const session of sessions) await session.close();
      await new Promise((r) => { if (driver.exitCode !== null) r(); else { driver.once('exit', r); driver.kill(); } });
    },
  };
}

async function webdriver(url, method, body) {
  const response = await fetch(url, { method, headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  const value = (await response.json()).value;
  if (!response.ok) throw new Error(`WebDriver ${method} ${url}: ${value?.error}: ${value?.message}`);
  return value;
}

class WebKitSession {
  #queue = Promise.resolve();
  #current = null;
  #windows = 0;
  #open = new Set(); // handles of the windows not closed

  constructor(base, viewport) {
    this.base = base;
    this.viewport = viewport;
  }

  /** One command at a time, in the window `handle` (switched to first if another is current). */
  send(method, path, body, handle = null) {
    const run = async () => {
      if (handle && this.#current !== handle) {
        await webdriver(`${this.base}/window`, 'POST', { handle });
        this.#current = handle;
      }
      return webdriver(`${this.base}${path}`, method, body);
    };
    const result = this.#queue.then(run, run);
    this.#queue = result.catch(() => {});
    return result;
  }

  async open(url) {
    const before = new Set(webProcesses(this.browserPid));
    // A new window is asked for from one still open (the current one may have been closed).
    const handle = this.#windows++ === 0 ? this.firstHandle : (await this.send('POST', '/window/new', { type: 'window' }, [...this.#open][0])).handle;
    this.#open.add(handle);
    await this.send('POST', '/window/rect', { width: this.viewport.width, height: this.viewport.height }, handle);
    await this.send('POST', '/url', { url }, handle);
    const started = webProcesses(this.browserPid).filter((pid) => !before.has(pid));
    const errors = [];
    return {
      errors,
      evaluate: (fn, arg) => this.send('POST', '/execute/sync', { script: `return (${fn})(arguments[0]);`, args: [arg ?? null] }, handle),
      front: async () => { await this.send('GET', '/window', undefined, handle); },
      screenshot: async (file) => {
        mkdirSync(path.dirname(file), { recursive: true });
        writeFileSync(file, Buffer.from(await this.send('GET', '/screenshot', undefined, handle), 'base64'));
      },
      close: async () => {
        this.#open.delete(handle);
        await this.send('DELETE', '/window', undefined, handle);
      },
      crash: async () => {
        if (started.length !== 1) throw new Error(`cannot tell which WebKitWebProcess hosts the tab: it started ${JSON.stringify(started)}`);
        process.kill(started[0], 'SIGKILL');
        while (isAlive(started[0])) await new Promise((r) => setTimeout(r, 20));
      },
    };
  }

  async close() {
    await webdriver(this.base, 'DELETE').catch(() => {});
    if (this.browserPid && isAlive(this.browserPid)) process.kill(this.browserPid, 'SIGKILL');
  }
}

function webProcesses(browserPid) {
  return descendants(browserPid).filter((p) => /WebKitWebProcess$/.test(p.argv[0] ?? '')).map((p) => p.pid);
}

/** The common part of a tab: page errors kept, evaluate, front, a full-page screenshot. */
function remember(page) {
  const errors = [];
  page.on('pageerror', (error) => errors.push(String(error?.stack ?? error)));
  return {
    errors,
    evaluate: (fn, arg) => page.evaluate(fn, arg),
    front: () => page.bringToFront(),
    screenshot: (file) => {
      mkdirSync(path.dirname(file), { recursive: true });
      return page.screenshot({ path: file, fullPage: true });
    },
  };
}

function processes() {
  const list = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      // Forked content processes rewrite their command line as one string: split on NULs and spaces.
      const argv = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split(/[\0 ]/).filter(Boolean);
      list.push({ pid: Number(entry), ppid, argv });
    } catch { /* it ended meanwhile */ }
  }
  return list;
}

function descendants(root) {
  const all = processes();
  const found = [];
  const queue = [root];
  while (queue.length) {
    const parent = queue.shift();
    for (const p of all) if (p.ppid === parent) { found.push(p); queue.push(p.pid); }
  }
  return found;
}

function contentProcesses(browserPid) {
  return descendants(browserPid).filter((p) => p.argv.includes('-contentproc') && p.argv.at(-1) === 'tab').map((p) => p.pid);
}

function isAlive(pid) {
  try {
    return !readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z ');
  } catch {
    return false;
  }
}
