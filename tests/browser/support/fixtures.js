// Fixtures for the hub specs, in every engine (the `engine` option: one Playwright project per
// engine, see playwright.config.js): the test origins, a session of the engine's browser per test
// (its own lock space), and helpers to open tabs and drive their harness (pages/harness.js).
//
// A tab is what the engine offers behind the subset of Playwright's Page the specs use:
// evaluate(fn, arg), waitForFunction(fn, arg, { timeout, polling }), goto, reload, close, url,
// on('console' | 'pageerror'). In Chromium it is the Page itself; in Firefox and WebKit an object
// from support/engines/. Playwright's own `browser`, `context` and `page` exist in Chromium only:
// a spec that needs them (CDP and the like) is Chromium-only and listed so in playwright.config.js.
import { test as base, expect } from '@playwright/test';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServers } from './server.mjs';
import { chromiumEngine } from './engines/chromium.js';

const pages = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../pages');
const removeNative = path.join(pages, 'remove-native.js');

/** Stands in for a Chromium-only fixture in another engine: any use fails and says what to do. */
function chromiumOnly(engine, fixture) {
  return new Proxy({}, {
    get(_, property) {
      if (property === 'then' || typeof property === 'symbol') return undefined;
      throw new Error(`this test uses Playwright's ${fixture}.${String(property)}, which exists in Chromium only (engine: ${engine}): `
        + 'write it against openTab/call/until and the session fixture, or list its file as Chromium-only in tests/browser/playwright.config.js');
    },
  });
}

async function launch(engine, browser, servers) {
  if (engine === 'chromium') return chromiumEngine(browser);
  if (engine === 'firefox') return (await import('./engines/firefox.js')).launchFirefox();
  if (engine === 'webkit') return (await import('./engines/webkit.js')).launchWebKit(servers);
  throw new Error(`unknown engine ${engine}: chromium, firefox or webkit`);
}

export const test = base.extend({
  engine: ['chromium', { option: true, scope: 'worker' }],

  servers: [async ({ engine }, use) => {
    const servers = await startServers({ engine });
    await use(servers);
    await servers.close();
  }, { scope: 'worker' }],

  origin: ['plain', { option: true }],

  // Playwright's Chromium, launched only in the Chromium project.
  browser: [async ({ engine, playwright, launchOptions }, use) => {
    if (engine !== 'chromium') { await use(chromiumOnly(engine, 'browser')); return; }
    const browser = await playwright.chromium.launch(launchOptions);
    await use(browser);
    await browser.close();
  }, { scope: 'worker' }],

  /** The engine's browser: newSession(initScript?) -> a session (tabs that share one lock space). */
  driver: [async ({ engine, browser, servers }, use) => {
    const driver = await launch(engine, browser, servers);
    await use(driver);
    await driver.close();
  }, { scope: 'worker', timeout: 60_000 }],

  /** This test's session, with the native Web Locks removed where the engine can do so before any script. */
  session: async ({ driver }, use) => {
    const session = await driver.newSession(removeNative);
    await use(session);
    await session.close();
  },

  context: async ({ engine, session }, use) => {
    await use(engine === 'chromium' ? session.context : chromiumOnly(engine, 'context'));
  },

  /** openTab(file = 'plain.html') -> a tab with the polyfill and the harness loaded. */
  openTab: async ({ session, servers, origin }, use) => {
    const logs = [];
    const listen = (page) => {
      page.on('console', (message) => logs.push(`[${page.url().split('/').pop()}] ${message.type()}: ${message.text()}`));
      page.on('pageerror', (error) => logs.push(`[page error] ${error.stack ?? error}`));
    };
    await use(async (file = 'plain.html', { into } = {}) => {
      const url = `${servers[origin]}tests/browser/pages/${file}`;
      let page = into;
      if (page) { listen(page); await page.goto(url); } else page = await session.open(url, listen);
      await page.waitForFunction(() => typeof window.harness === 'object');
      return page;
    });
    if (test.info().status !== test.info().expectedStatus && logs.length) {
      await test.info().attach('console', { body: logs.join('\n'), contentType: 'text/plain' });
      console.log(logs.slice(-60).join('\n'));
    }
  },

  /**
   * crashTab(tab): the tab's process dies at once (Chromium: Page.crash over CDP; Firefox and
   * WebKit: SIGKILL to the content / web process found for the tab under /proc). Resolves once
   * the crash is reported or the process has exited.
   */
  crashTab: async ({ session }, use) => {
    await use((tab) => session.crash(tab));
  },

  /**
   * killHubProcess(host): the process that runs the hub dies at once. `host` is the tab that
   * started the hub while it was the only tab of its origin (Chromium: its renderer is crashed,
   * Page.crash; Firefox, WebKit: the process with the hub's worker thread is found under /proc,
   * checked to be the host's, and SIGKILLed). Resolves once the process has gone.
   */
  killHubProcess: async ({ session }, use) => {
    await use((host) => session.killHub(host));
  },

  /**
   * endIdleHub(): a hub whose tabs have all gone has ended. Chromium keeps it running for a while
   * (the polyfill asks for extendedLifetime): ended over CDP. Firefox and WebKit end it with its
   * last tab.
   */
  endIdleHub: async ({ session }, use) => {
    await use(() => session.endIdleHub?.());
  },
});

/** Runs a harness method in a page (path [] = the page itself, [id] = its worker, ...). */
export function call(page, pathOrMethod, ...args) {
  const [pathIds, method, rest] = Array.isArray(pathOrMethod)
    ? [pathOrMethod, args[0], args.slice(1)] : [[], pathOrMethod, args];
  return page.evaluate(([p, m, a]) => window.harness.call(p, m, ...a), [pathIds, method, rest]);
}

/** Polls a page's query() until `test(state)` holds: the snapshot proves the state the next step needs. */
export async function until(page, test, label, pathIds = []) {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const state = await call(page, pathIds, 'query');
    if (test(state)) return state;
    if (Date.now() > deadline) throw new Error(`never reached: ${label}; last state ${JSON.stringify(state)}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

export function named(list, name) {
  return list.filter((info) => info.name === name);
}

/** Records a measured duration on the test (an annotation in the report) and in the output. */
export function report(label, ms) {
  const engine = test.info().project.name;
  test.info().annotations.push({ type: 'measured', description: `${label}: ${ms.toFixed(1)} ms` });
  console.log(`measured [${engine}]: ${label}: ${ms.toFixed(1)} ms`);
}

export { expect };
