// Fixtures for the hub specs: the two test origins (plain and isolated), a browser context whose
// windows have the native Web Locks removed before any script runs, and helpers to open tabs
// and drive their harness (pages/harness.js).
import { test as base, expect } from '@playwright/test';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServers } from './server.mjs';

const pages = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../pages');

export const test = base.extend({
  servers: [async ({}, use) => {
    const servers = await startServers();
    await use(servers);
    await servers.close();
  }, { scope: 'worker' }],

  origin: ['plain', { option: true }],

  context: async ({ context }, use) => {
    await context.addInitScript({ path: path.join(pages, 'remove-native.js') });
    await use(context);
  },

  /** openTab(file = 'plain.html') -> a Page with the polyfill and the harness loaded. */
  openTab: async ({ context, servers, origin }, use) => {
    const logs = [];
    await use(async (file = 'plain.html', { into } = {}) => {
      const page = into ?? await context.newPage();
      page.on('console', (message) => logs.push(`[${page.url().split('/').pop()}] ${message.type()}: ${message.text()}`));
      page.on('pageerror', (error) => logs.push(`[page error] ${error.stack ?? error}`));
      await page.goto(`${servers[origin]}tests/browser/pages/${file}`);
      await page.waitForFunction(() => typeof window.harness === 'object');
      return page;
    });
    if (test.info().status !== test.info().expectedStatus && logs.length) {
      await test.info().attach('console', { body: logs.join('\n'), contentType: 'text/plain' });
      console.log(logs.slice(-60).join('\n'));
    }
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

export { expect };
