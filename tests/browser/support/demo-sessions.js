// Browser sessions for the demo specs, one shape in every engine: open(url) -> a tab with
// evaluate(fn, arg), front(), screenshot(file), crash() (its process dies at once: no pagehide,
// no goodbye) and close() (as a person closes a tab: pagehide runs). A session is one browser
// profile: one storage partition, one SharedWorker hub, one lock space.
//   chromium  Debian's Chromium through Playwright; a crash is CDP's Page.crash
//   firefox   Debian's Firefox ESR through puppeteer-core over WebDriver BiDi; a crash is SIGKILL
//             to the tab's content process (with Fission each tab of an origin gets its own,
//             found as the content process that appeared when the tab opened)
// Browsers are never downloaded.
import { mkdirSync, readFileSync, readdirSync } from 'node:fs';
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
  throw new Error(`the demo specs run in chromium and firefox here (asked: ${engine})`);
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
