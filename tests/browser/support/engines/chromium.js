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
