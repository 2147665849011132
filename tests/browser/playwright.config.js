// Playwright Test runs the browser specs in three engines, one project each (the `engine` option,
// read by support/fixtures.js): Debian's Chromium through Playwright, Debian's Firefox ESR through
// puppeteer-core over WebDriver BiDi, WebKitGTK's MiniBrowser through WebKitWebDriver (under an X
// server: `xvfb-run -a`). Browsers are never downloaded. One worker (the specs share one origin's
// hub per test and the machine has 2 cores); the servers are started by the fixtures on free ports,
// so scripts/test.sh runs two of these at once (--project=chromium; firefox and webkit), each with
// an --output folder of its own.
import { defineConfig } from '@playwright/test';
import { CHROMIUM_RESOLVER_ARG } from '../support/insecure-origin.mjs';

// Specs run in the chromium project only, because they use Playwright's own browser, context or
// Page beyond the engine-neutral tab (support/fixtures.js): chaos and protocol-fuzz (many
// contexts and raw hub ports; long runs), demo (the demo app's walk-through), frozen (CDP page
// freezing, the back/forward cache), contexts (iframes through Playwright's context, Chromium's
// SharedWorker partitioning). Every other spec runs in all three engines.
// busy-terminated: it reads a SharedArrayBuffer (a cross-origin-isolated page, which the insecure
// origin of the Firefox and WebKit runs cannot be). hub-load: its flood's honest tabs hold the lock
// over a 1 ms timer, which Firefox clamps to 1 s in a background tab (3-6 handoffs in 4 s there);
// its cases passed in Firefox and WebKit too. Its byte-quota case runs in the three (hub-quota).
// remote-engines: it launches Firefox and WebKit itself beside the project's Chromium (one lock server, three engines at once).
const CHROMIUM_ONLY = ['chaos.spec.js', 'protocol-fuzz.spec.js', 'demo.spec.js', 'frozen.spec.js', 'contexts.spec.js', 'busy-terminated.spec.js', 'hub-load.spec.js', 'remote-engines.spec.js'];

export default defineConfig({
  testDir: '.',
  testMatch: '**/*.spec.js',
  workers: 1,
  fullyParallel: false,
  // In CI (CI=true) a failed test runs once more: an intermittent hang (a chaos agent's request
  // that never settled, once in a full run under load, never in 100+ runs alone or under CPU
  // load) is not explained yet (docs/browser.md, "Tests"). A test that passes on its retry is
  // reported as "flaky" in the output, never as a plain pass; locally there is no retry.
  retries: process.env.CI ? 1 : 0,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: [['list']],
  globalSetup: './support/global-setup.mjs',
  use: { trace: 'off' },
  projects: [
    {
      name: 'chromium',
      use: {
        engine: 'chromium',
        browserName: 'chromium',
        launchOptions: {
          executablePath: '/usr/bin/chromium',
          args: [
            '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
            '--disable-background-networking', '--disable-component-update', '--disable-sync',
            CHROMIUM_RESOLVER_ARG, // the insecure origin's name to 127.0.0.1, no other name resolves
          ],
        },
      },
    },
    { name: 'firefox', use: { engine: 'firefox' }, testIgnore: CHROMIUM_ONLY },
    { name: 'webkit', use: { engine: 'webkit' }, testIgnore: CHROMIUM_ONLY },
  ],
});
