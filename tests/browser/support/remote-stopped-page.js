// A remote page (pages/remote-page.js) that the test can put out of the way and stop from running
// any script, as far as each engine's driver allows (remote.spec.js, "a hidden tab that runs no
// script"):
// - Chromium: hidden and frozen by the browser's own page freezing (Page.setWebLifecycleState
//   'frozen' over the DevTools protocol, in a Chromium of its own: engines/cdp-chromium.js says why
//   not Playwright's). Nothing of the page's runs; its freeze and resume events mark the time.
// - Firefox (puppeteer-core over WebDriver BiDi) and WebKit (WebKitWebDriver): neither protocol
//   can freeze a page, so another tab is opened in front (the driver's own new tab) and the
//   page's content / web process is stopped with SIGSTOP: no script of the page runs at all.
//   Measured: Firefox reports the page 'hidden' once the other tab is in front; in WebKit it is
//   'hidden' from the start (a tab WebKitWebDriver opens is not the one its window shows).
// window.__life (set up by watchLife) records the page's timer ticks and lifecycle events.
import fs from 'node:fs';
import { launchCdpChromium } from './engines/cdp-chromium.js';
import { until } from './remote-app.js';

/** In the page: a 50 ms ticker and its visibility, freeze and resume events, with their times. */
export function watchLife(tab) {
  return tab.evaluate(() => {
    const life = { ticks: [], events: [] };
    window.__life = life;
    setInterval(() => life.ticks.push(Date.now()), 50);
    for (const type of ['visibilitychange', 'freeze', 'resume']) {
      document.addEventListener(type, () => life.events.push({ type, visibility: document.visibilityState, at: Date.now() }));
    }
    return document.visibilityState;
  });
}

/** Connects the page's remote lock manager to /locks, counting the sockets it opens and how they close (window.__sockets). */
async function connectCounting(tab) {
  await tab.waitForFunction(() => typeof window.remote === 'object');
  await tab.evaluate(() => {
    const sockets = { opened: 0, closes: [] };
    window.__sockets = sockets;
    const Native = window.WebSocket;
    window.WebSocket = class extends Native {
      constructor(...args) {
        super(...args);
        sockets.opened++;
        this.addEventListener('close', (event) => sockets.closes.push(event.code));
      }
    };
    return window.remote.connect('/locks');
  });
}

function processState(pid) {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
}

async function chromiumPage(app) {
  const chromium = await launchCdpChromium();
  const tab = await chromium.open(app.page);
  await connectCounting(tab);
  return {
    tab,
    how: 'Chromium: hidden and frozen by Page.setWebLifecycleState { state: \'frozen\' } (DevTools protocol)',
    /** Resolves once the page is frozen (its freeze event has run: the DevTools protocol still evaluates in a frozen page). */
    async stop() {
      await tab.setLifecycle('frozen');
      await until(() => tab.evaluate(() => window.__life.events.some((e) => e.type === 'freeze')), 'the page\'s freeze event');
      return { hiddenAs: await tab.evaluate(() => document.visibilityState) };
    },
    resume: () => tab.setLifecycle('active'),
    close: () => chromium.close(),
  };
}

async function stoppedProcessPage(engine, session, app) {
  const tab = await session.open(app.page);
  await connectCounting(tab);
  let pid = null;
  const resume = () => { if (pid !== null) process.kill(pid, 'SIGCONT'); pid = null; };
  return {
    tab,
    how: `${engine === 'firefox' ? 'Firefox' : 'WebKit'}: another tab opened in front, then the page's process stopped (SIGSTOP); its driver has no way to freeze a page`,
    /** Resolves once the page's process is stopped (state T in /proc). */
    async stop() {
      const front = await session.open(app.page);
      if (engine === 'firefox') await front.page.bringToFront();
      const hiddenAs = await tab.evaluate(() => document.visibilityState);
      pid = session.processOf(tab);
      process.kill(pid, 'SIGSTOP');
      await until(() => processState(pid) === 'T', `process ${pid} stopped`);
      return { hiddenAs, pid };
    },
    resume,
    close: async () => resume(),
  };
}

/** Opens the app's remote page in `engine`, connected to /locks: { tab, how, stop(), resume(), close() }. */
export function openStoppablePage(engine, session, app) {
  return engine === 'chromium' ? chromiumPage(app) : stoppedProcessPage(engine, session, app);
}
