// The demo, driven as a person would: three tabs of one origin (plus a tab opened by the page's own
// button and a dedicated worker), the per-context controls, and both scenarios. Every assertion is
// about what a tab shows; each waits for the event that proves it (a row, a state, a count), never
// for a fixed time. Runs once on native navigator.locks and once on this project's polyfill.
// Screenshots: test-results/demo/<implementation>-*.png (or $DEMO_SCREENSHOT_DIR)
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test, expect } from '@playwright/test';
import { startDemoServer } from '../../scripts/serve.mjs';

const SCREENSHOTS = process.env.DEMO_SCREENSHOT_DIR ?? path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../test-results/demo');
// The polyfill notices a crashed tab by a missed heartbeat, not at once as the browser does.
const CRASH_DETECTION_TIMEOUT = 20_000;

// Playwright's waits crawl in a background tab (animation frames are throttled there), so a tab is
// brought to the front before it is driven or looked at, as a person would. The demo's own work in
// background tabs (locks, broadcasts) is not affected by this.
async function front(tab) {
  await tab.page.bringToFront();
  return tab.page;
}

/** One context's controls panel (a tab's, or a worker's shown in its tab), with its request ids. */
class Controls {
  constructor(page, panel) {
    this.page = page;
    this.panel = panel;
    this.lastId = 0; // ids count up from 1 in each context, one per Request click
  }

  async request({ name = 'resource', mode = 'exclusive', ifAvailable = false, steal = false, timeoutMs = 0 } = {}) {
    await this.page.bringToFront();
    const form = this.panel;
    await form.getByTestId('lock-name').fill(name);
    await form.getByTestId('lock-mode').selectOption(mode);
    await form.getByTestId('if-available').setChecked(ifAvailable);
    await form.getByTestId('steal').setChecked(steal);
    await form.getByTestId('timeout').fill(timeoutMs ? String(timeoutMs) : '');
    await form.getByTestId('request').click();
    this.lastId += 1;
    return this.entry(this.lastId);
  }

  entry(id) {
    return this.panel.locator(`[data-testid="request-entry"][data-request-id="${id}"]`);
  }
}

const lockRows = (page, filter = {}) => page.locator(['[data-testid="lock-row"]',
  ...Object.entries(filter).map(([key, value]) => `[data-${key}="${value}"]`)].join(''));

for (const implementation of ['native', 'polyfill']) {
  test.describe(`the demo on ${implementation} locks`, () => {
    test.describe.configure({ mode: 'serial' });

    let server;
    let context;
    let tabs; // [{ page, controls }]
    const shot = async (tab, name) => (await front(tab)).screenshot({ path: path.join(SCREENSHOTS, `${implementation}-${name}.png`), fullPage: true });
    const url = () => `${server.plainUrl}?impl=${implementation}`;

    async function openTab(page) {
      const errors = [];
      const consoleLines = [];
      page.on('pageerror', (error) => errors.push(error));
      page.on('console', (message) => consoleLines.push(`${message.type()}: ${message.text()}`));
      await page.goto(url());
      try {
        await expect(page.locator('body')).toHaveAttribute('data-ready', 'true');
      } catch (error) {
        const shown = await page.locator('#app').innerText().catch(() => '(unreadable)');
        throw new Error(`the tab did not start.\nIt shows: ${shown}\nIts console:\n${consoleLines.join('\n')}\nPage errors: ${errors.join('\n')}`, { cause: error });
      }
      return { page, errors, controls: new Controls(page, page.getByTestId('tab-controls')) };
    }

    test.beforeAll(async ({ browser }) => {
      server = await startDemoServer({ port: 0, host: 'loopback' });
      context = await browser.newContext({ viewport: { width: 1280, height: 1000 } });
      tabs = [];
      for (let i = 0; i < 3; i += 1) tabs.push(await openTab(await context.newPage()));
    });

    test.afterAll(async () => {
      await context?.close();
      await server?.close();
    });

    test.afterEach(async () => {
      for (const tab of tabs) {
        expect(tab.errors.map(String)).toEqual([]);
        // A tab whose locks were broken while alive (the polyfill's hub declared it dead: on a
        // starved machine it may) says so on the page; the run records it rather than hiding it.
        const notice = tab.page.getByTestId('lost-notice');
        if (!tab.page.isClosed() && await notice.isVisible()) {
          test.info().annotations.push({ type: 'locks broken while alive', description: await notice.innerText() });
          console.log(`[demo] ${await tab.page.getByTestId('self-name').innerText()}: ${await notice.innerText()}`);
        }
      }
    });

    test('three tabs each claim their own short name and say which implementation runs', async () => {
      const names = [];
      for (const tab of tabs) {
        await front(tab);
        await expect(tab.page.getByTestId('implementation')).toHaveAttribute('data-kind', implementation);
        await expect(tab.page.getByTestId('implementation')).toContainText('page is not cross-origin isolated');
        if (implementation === 'polyfill') await expect(tab.page.getByTestId('implementation')).toHaveAttribute('data-hub', 'connected');
        names.push(await tab.page.getByTestId('self-name').innerText());
      }
      expect(names, 'each tab claims the lowest free name with ifAvailable: another name means an ifAvailable request on a free lock was refused').toEqual(['Tab 1', 'Tab 2', 'Tab 3']);
      for (const tab of tabs) {
        await front(tab);
        await expect(tab.page.locator('[data-testid="context"][data-in-lock-space="true"]')).toHaveText([/^Tab 1/, /^Tab 2/, /^Tab 3/]);
      }
    });

    test('the switch links reload the tab on native locks, on the forced polyfill, or on the automatic choice', async () => {
      const page = await front(tabs[0]);
      await expect(page.getByTestId('switch-polyfill')).toHaveAttribute('href', /[?&]impl=polyfill$/);
      await expect(page.getByTestId('switch-native')).toHaveAttribute('href', /[?&]impl=native$/);
      await expect(page.getByTestId('switch-auto')).not.toHaveAttribute('href', /impl=/);
    });

    test('a held lock and a waiting request show in every tab, with their context and mode', async () => {
      const [tab1, tab2] = tabs;
      await expect(await tab1.controls.request()).toHaveAttribute('data-state', 'held');
      await expect(await tab2.controls.request()).toHaveAttribute('data-state', 'pending');
      for (const tab of tabs) {
        await front(tab);
        await expect(lockRows(tab.page, { lock: 'resource' })).toHaveCount(2);
        await expect(lockRows(tab.page, { lock: 'resource', status: 'held', context: 'Tab 1', mode: 'exclusive' })).toHaveCount(1);
        await expect(lockRows(tab.page, { lock: 'resource', status: 'pending', context: 'Tab 2', mode: 'exclusive' })).toHaveCount(1);
        await expect(lockRows(tab.page, { lock: 'resource', status: 'held' }).locator('.elapsed')).toHaveText(/^\d+\.\d s$/);
      }
      await shot(tabs[2], '1-held-and-pending');
    });

    test('ifAvailable on a held lock runs the callback with null and queues nothing', async () => {
      const entry = await tabs[2].controls.request({ ifAvailable: true });
      await expect(entry).toHaveAttribute('data-state', 'not available');
      await front(tabs[0]);
      await tabs[0].page.getByTestId('show-bookkeeping').uncheck();
      await expect(lockRows(tabs[0].page, { lock: 'resource' })).toHaveCount(2);
    });

    test('steal and ifAvailable together, or steal with a timeout signal, are refused with NotSupportedError', async () => {
      const both = await tabs[2].controls.request({ ifAvailable: true, steal: true });
      await expect(both).toHaveAttribute('data-state', 'failed');
      await expect(both.getByTestId('error')).toHaveText(/^NotSupportedError: /);
      const withSignal = await tabs[2].controls.request({ steal: true, timeoutMs: 1000 });
      await expect(withSignal).toHaveAttribute('data-state', 'failed');
      await expect(withSignal.getByTestId('error')).toHaveText(/^NotSupportedError: /);
      const dashName = await tabs[2].controls.request({ name: '-reserved' });
      await expect(dashName.getByTestId('error')).toHaveText(/^NotSupportedError: /);
    });

    test('steal takes the lock from Tab 1, whose request rejects with AbortError, and Tab 2 keeps waiting', async () => {
      const [tab1, , tab3] = tabs;
      const stolenEntry = tab1.controls.entry(1);
      const stealing = await tab3.controls.request({ steal: true });
      await expect(stealing).toHaveAttribute('data-state', 'held');
      await front(tab1);
      await expect(stolenEntry).toHaveAttribute('data-state', 'stolen');
      await expect(stolenEntry.getByTestId('error')).toHaveText(/^AbortError: /);
      for (const tab of tabs) {
        await front(tab);
        await expect(lockRows(tab.page, { lock: 'resource', status: 'held', context: 'Tab 3' })).toHaveCount(1);
        await expect(lockRows(tab.page, { lock: 'resource', status: 'pending', context: 'Tab 2' })).toHaveCount(1);
        await expect(lockRows(tab.page, { lock: 'resource' })).toHaveCount(2);
      }
      await shot(tab1, '2-stolen');
    });

    test('aborting a waiting request rejects it with AbortError and removes it from every tab', async () => {
      const tab2 = tabs[1];
      const waiting = tab2.controls.entry(1);
      await front(tab2);
      await waiting.getByTestId('abort').click();
      await expect(waiting).toHaveAttribute('data-state', 'aborted');
      await expect(waiting.getByTestId('error')).toHaveText(/^AbortError: /);
      for (const tab of tabs) await expect(lockRows(await front(tab), { lock: 'resource', status: 'pending' })).toHaveCount(0);
    });

    test('a request with a timeout that expires while waiting rejects with the signal\'s TimeoutError', async () => {
      const timedOut = await tabs[1].controls.request({ timeoutMs: 300 });
      await expect(timedOut).toHaveAttribute('data-state', 'aborted');
      await expect(timedOut.getByTestId('error')).toHaveText(/^TimeoutError: /);
      for (const tab of tabs) await expect(lockRows(await front(tab), { lock: 'resource', status: 'pending' })).toHaveCount(0);
    });

    test('releasing a held lock frees it in every tab', async () => {
      const tab3 = tabs[2];
      await front(tab3);
      const held = tab3.page.locator('[data-testid="tab-controls"] [data-testid="request-entry"][data-state="held"]');
      await held.getByTestId('release').click();
      await expect(held).toHaveCount(0);
      for (const tab of tabs) await expect(lockRows(await front(tab), { lock: 'resource' })).toHaveCount(0);
    });

    test('shared requests are held together, and an exclusive one waits until both are released', async () => {
      const [tab1, tab2, tab3] = tabs;
      const reader1 = await tab1.controls.request({ name: 'doc', mode: 'shared' });
      const reader2 = await tab2.controls.request({ name: 'doc', mode: 'shared' });
      await expect(reader1).toHaveAttribute('data-state', 'held');
      await expect(reader2).toHaveAttribute('data-state', 'held');
      const writer = await tab3.controls.request({ name: 'doc', mode: 'exclusive' });
      await expect(writer).toHaveAttribute('data-state', 'pending');
      for (const tab of tabs) {
        await front(tab);
        await expect(lockRows(tab.page, { lock: 'doc', status: 'held', mode: 'shared' })).toHaveCount(2);
        await expect(lockRows(tab.page, { lock: 'doc', status: 'pending', mode: 'exclusive', context: 'Tab 3' })).toHaveCount(1);
      }
      await shot(tab2, '3-shared');
      await front(tab1);
      await reader1.getByTestId('release').click();
      await front(tab3);
      await expect(lockRows(tab3.page, { lock: 'doc', status: 'held' })).toHaveCount(1);
      await expect(writer).toHaveAttribute('data-state', 'pending');
      await front(tab2);
      await reader2.getByTestId('release').click();
      await front(tab3);
      await expect(writer).toHaveAttribute('data-state', 'held');
      await writer.getByTestId('release').click();
      for (const tab of tabs) await expect(lockRows(await front(tab), { lock: 'doc' })).toHaveCount(0);
    });

    test('a dedicated worker is a context of its own, and its lock goes to the next waiter when it is terminated', async () => {
      const [tab1, tab2, tab3] = tabs;
      await front(tab1);
      await tab1.page.getByTestId('start-worker').click();
      const panel = tab1.page.locator('[data-testid="worker-controls"][data-worker="Worker 1"]');
      await expect(panel).toBeVisible();
      await expect(panel.getByTestId('worker-implementation')).toHaveAttribute('data-kind', implementation);
      for (const tab of tabs) await expect((await front(tab)).locator('[data-testid="context"][data-name="Worker 1"]')).toHaveText(/a worker of Tab 1/);
      const worker = new Controls(tab1.page, panel);
      await expect(await worker.request({ name: 'job' })).toHaveAttribute('data-state', 'held');
      const next = await tab2.controls.request({ name: 'job' });
      await expect(next).toHaveAttribute('data-state', 'pending');
      await front(tab3);
      await expect(lockRows(tab3.page, { lock: 'job', status: 'held', context: 'Worker 1' })).toHaveCount(1);
      await shot(tab1, '4-worker');
      await panel.getByTestId('worker-terminate').click();
      await front(tab2);
      await expect(next).toHaveAttribute('data-state', 'held');
      for (const tab of tabs) {
        await front(tab);
        await expect(lockRows(tab.page, { lock: 'job', status: 'held', context: 'Tab 2' })).toHaveCount(1);
        await expect(tab.page.locator('[data-testid="context"][data-name="Worker 1"]')).toHaveCount(0);
      }
      await front(tab2);
      await next.getByTestId('release').click();
      for (const tab of tabs) await expect(lockRows(await front(tab), { lock: 'job' })).toHaveCount(0);
    });

    test('the "Open another tab" button opens a tab that joins as Tab 4, and closing it removes it everywhere', async () => {
      await front(tabs[0]);
      const [opened] = await Promise.all([context.waitForEvent('page'), tabs[0].page.getByTestId('open-tab').click()]);
      await expect(opened.locator('body')).toHaveAttribute('data-ready', 'true');
      await expect(opened.getByTestId('implementation')).toHaveAttribute('data-kind', implementation);
      await expect(opened.getByTestId('self-name')).toHaveText('Tab 4');
      for (const tab of tabs) await expect((await front(tab)).locator('[data-testid="context"][data-name="Tab 4"]')).toHaveCount(1);
      await opened.close();
      for (const tab of tabs) await expect((await front(tab)).locator('[data-testid="context"][data-name="Tab 4"]')).toHaveCount(0);
    });

    test('the cross-origin isolated variant says so, and a tab and its worker share one lock space there', async ({ browser }) => {
      const isolatedContext = await browser.newContext();
      try {
        const page = await isolatedContext.newPage();
        const errors = [];
        page.on('pageerror', (error) => errors.push(String(error)));
        await page.goto(`${server.isolatedUrl}?impl=${implementation}`);
        await expect(page.locator('body')).toHaveAttribute('data-ready', 'true');
        expect(await page.evaluate(() => crossOriginIsolated)).toBe(true);
        await expect(page.getByTestId('implementation')).toHaveAttribute('data-kind', implementation);
        await expect(page.getByTestId('implementation')).toContainText('page is cross-origin isolated');
        const tab = { page, controls: new Controls(page, page.getByTestId('tab-controls')) };
        await page.getByTestId('start-worker').click();
        const panel = page.locator('[data-testid="worker-controls"][data-worker="Worker 1"]');
        const worker = new Controls(page, panel);
        await expect(await worker.request({ name: 'isolated-job' })).toHaveAttribute('data-state', 'held');
        const next = await tab.controls.request({ name: 'isolated-job' });
        await expect(next).toHaveAttribute('data-state', 'pending');
        await expect(lockRows(page, { lock: 'isolated-job', status: 'held', context: 'Worker 1' })).toHaveCount(1);
        await shot(tab, '4b-isolated-worker');
        await panel.getByTestId('worker-terminate').click();
        await expect(next).toHaveAttribute('data-state', 'held');
        expect(errors).toEqual([]);
      } finally {
        await isolatedContext.close();
      }
    });

    /**
     * Waits until exactly one of `candidates` is primary and the others wait, and every one of
     * them names that tab as the primary; returns it.
     */
    async function settledPrimary(candidates, status) {
      const states = () => Promise.all(candidates.map((tab) => status(tab).getAttribute('data-state')));
      await expect.poll(async () => {
        const now = await states();
        return now.filter((state) => state === 'primary').length === 1 && now.filter((state) => state === 'waiting').length === candidates.length - 1;
      }, { timeout: CRASH_DETECTION_TIMEOUT, message: 'one primary, the others waiting' }).toBe(true);
      const primary = candidates[(await states()).indexOf('primary')];
      const name = await primary.page.getByTestId('self-name').innerText();
      for (const tab of candidates) {
        await expect((await front(tab)).getByTestId('election-primary')).toHaveAttribute('data-primary', name, { timeout: CRASH_DETECTION_TIMEOUT });
      }
      return primary;
    }

    async function locksBrokenWhileAlive(candidates) {
      return (await Promise.all(candidates.map((tab) => tab.page.getByTestId('lost-notice').isVisible()))).some(Boolean);
    }

    async function runRace(useLock) {
      await front(tabs[0]);
      await tabs[0].page.getByTestId('race-use-lock').setChecked(useLock);
      await tabs[0].page.getByTestId('race-run').click();
      for (const tab of tabs) {
        await front(tab);
        const summary = tab.page.getByTestId('race-summary');
        await expect(summary).toHaveAttribute('data-use-lock', String(useLock));
        await expect(summary).toHaveAttribute('data-outcomes', '3');
      }
      // The summary's server numbers are fetched after each outcome; the last fetch follows all three.
      const summary = (await front(tabs[0])).getByTestId('race-summary');
      await expect(summary.getByTestId('race-outcome')).toHaveCount(3);
      return summary;
    }

    if (implementation === 'polyfill') {
      test('the deadlock scenario is named in every tab, by context and lock, and breaking it frees the lock', async () => {
        const tab1 = tabs[0];
        const selfName = await (await front(tab1)).getByTestId('self-name').innerText();
        await tab1.page.getByTestId('deadlock-start').click();
        for (const tab of tabs) {
          const report = (await front(tab)).getByTestId('deadlock-report').first();
          await expect(report).toContainText(`${selfName} holds 'deadlock:${selfName}' and, inside its callback, waits for 'deadlock:${selfName}'`);
          await expect(report).toHaveAttribute('data-certain', 'true');
        }
        await shot(tab1, '7-deadlock-named');
        await (await front(tab1)).getByTestId('deadlock-break').click();
        for (const tab of tabs) await expect(lockRows(await front(tab), { lock: `deadlock:${selfName}` })).toHaveCount(0);
      });
    }

    test('without the lock, every tab refreshes at once and the reused refresh token gets the session revoked', async () => {
      const summary = await runRace(false);
      await expect(summary).toHaveAttribute('data-revoked', 'true');
      expect(Number(await summary.getAttribute('data-refreshes-received'))).toBeGreaterThan(1);
      await expect(summary.locator('[data-testid="race-outcome"][data-refresh="rejected"]')).not.toHaveCount(0);
      await shot(tabs[0], '5-race-without-lock');
    });

    test('with the lock, exactly one refresh runs, the other tabs reuse it, and the session stays alive', async () => {
      const summary = await runRace(true);
      await expect(summary).toHaveAttribute('data-revoked', 'false');
      await expect(summary).toHaveAttribute('data-refreshes-received', '1');
      await expect(summary.locator('[data-testid="race-outcome"][data-refresh="refreshed"]')).toHaveCount(1);
      await expect(summary.locator('[data-testid="race-outcome"][data-refresh="reused"]')).toHaveCount(2);
      await shot(tabs[0], '6-race-with-lock-summary');
      for (const tab of tabs) await expect((await front(tab)).getByTestId('race-own')).toHaveAttribute('data-api-status', '200');
      await shot(tabs[1], '6-race-with-lock');
    });

    test('one tab is elected primary; when it closes the next one takes over, and when that one crashes the last one does', async () => {
      const [tab1, tab2, tab3] = tabs;
      const status = (tab) => tab.page.getByTestId('election-status');
      // Join one at a time, each once its request is queued (its pending row shows), so the queue
      // order is known: Tab 1, Tab 2, Tab 3.
      await (await front(tab1)).getByTestId('election-join').click();
      await expect(status(tab1)).toHaveAttribute('data-state', 'primary');
      for (const tab of [tab2, tab3]) {
        const name = await tab.page.getByTestId('self-name').innerText();
        await (await front(tab)).getByTestId('election-join').click();
        await expect(lockRows(tab.page, { lock: 'primary-tab', context: name })).toHaveCount(1);
      }
      const first = await settledPrimary([tab1, tab2, tab3], status);
      await shot(first, '7-election');
      // FIFO: Tab 1, then Tab 2. A different order is right only where the hub declared a live tab
      // dead meanwhile (a starved machine; that tab shows it): its lock was broken, it queued again.
      const orderKept = !(await locksBrokenWhileAlive(tabs));
      if (orderKept) expect(first).toBe(tab1);

      await first.page.close();
      const rest = tabs.filter((tab) => tab !== first);
      const successor = await settledPrimary(rest, status);
      if (orderKept && !(await locksBrokenWhileAlive(rest))) expect(successor).toBe(tab2);
      const [survivor] = rest.filter((tab) => tab !== successor);
      const firstName = first === tab1 ? 'Tab 1' : first === tab2 ? 'Tab 2' : 'Tab 3';
      await expect(survivor.page.locator(`[data-testid="context"][data-name="${firstName}"]`)).toHaveCount(0);

      // A renderer crash: no pagehide, no goodbye message.
      const devtools = await context.newCDPSession(successor.page);
      devtools.send('Page.crash').catch(() => {}); // never answers: the page is gone
      await settledPrimary([survivor], status);
      const survivorName = await survivor.page.getByTestId('self-name').innerText();
      await expect(survivor.page.locator('[data-testid="context"][data-in-lock-space="true"]')).toHaveText([new RegExp(`^${survivorName}`)]);
      await expect(lockRows(survivor.page, { lock: 'primary-tab', status: 'held', context: survivorName })).toHaveCount(1);
      await shot(survivor, '8-election-after-crash');
      tabs = [survivor]; // the two others are gone
    });
  });
}

test('where the browser has no navigator.locks, the automatic choice is the polyfill, for the tab and its worker', async ({ browser }) => {
  const server = await startDemoServer({ port: 0, host: 'loopback' });
  const context = await browser.newContext();
  try {
    // As on a plain-http intranet page: no native Web Locks in the window (the worker is told to
    // use what its tab resolved to, so its native API does not matter).
    await context.addInitScript(() => {
      delete Navigator.prototype.locks;
      delete globalThis.LockManager;
      delete globalThis.Lock;
    });
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (error) => errors.push(String(error)));
    await page.goto(server.plainUrl);
    await expect(page.locator('body')).toHaveAttribute('data-ready', 'true');
    const status = page.getByTestId('implementation');
    await expect(status).toHaveAttribute('data-kind', 'polyfill');
    await expect(status).toHaveAttribute('data-hub', 'connected');
    await expect(status).toContainText('native locks absent here');
    await page.getByTestId('start-worker').click();
    const panel = page.locator('[data-testid="worker-controls"][data-worker]');
    await expect(panel.getByTestId('worker-implementation')).toHaveAttribute('data-kind', 'polyfill');
    await page.screenshot({ path: path.join(SCREENSHOTS, 'auto-without-native.png'), fullPage: true });
    expect(errors).toEqual([]);
  } finally {
    await context.close();
    await server.close();
  }
});
