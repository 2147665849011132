// Chromium (Debian's, through Playwright): tabs are Playwright Pages, one browser context per
// session. A tab's renderer is crashed through the DevTools protocol (Page.crash).
class ChromiumSession {
  constructor(context) { this.context = context; }

  async open(url, listen) {
    const page = await this.context.newPage();
    listen?.(page);
    await page.goto(url);
    return page;
  }

  /** Crashes the tab's renderer and resolves once Playwright reports the crash. */
  async crash(page) {
    const crashed = new Promise((resolve) => page.once('crash', resolve));
    (await this.context.newCDPSession(page)).send('Page.crash').catch(() => {});
    await crashed;
    return {};
  }

  /** The hub runs in a renderer of its site: the specs start it in `host` alone, and crash that. */
  killHub(host) { return this.crash(host); }

  /**
   * Ends a hub that outlived its last tab (the polyfill asks for extendedLifetime: Chromium keeps
   * such a SharedWorker running after its last page has gone), as the browser does once that time
   * is up. Resolves once no hub is left running.
   */
  async endIdleHub() {
    const cdp = await this.context.browser().newBrowserCDPSession();
    const hubs = async () => (await cdp.send('Target.getTargets')).targetInfos
      .filter((target) => target.type === 'shared_worker' && target.url.endsWith('/weblocks-hub.js'));
    for (const hub of await hubs()) await cdp.send('Target.closeTarget', { targetId: hub.targetId });
    while ((await hubs()).length > 0) await new Promise((resolve) => setTimeout(resolve, 20));
    await cdp.detach();
  }

  async close() { await this.context.close(); }
}

export function chromiumEngine(browser) {
  return {
    name: 'chromium',
    async newSession(initScript) {
      const context = await browser.newContext();
      if (initScript) await context.addInitScript({ path: initScript });
      return new ChromiumSession(context);
    },
    close: async () => {},
  };
}
