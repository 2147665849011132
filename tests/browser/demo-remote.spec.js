// The demo's ?impl=remote mode: its tabs share one lock space through the demo server's lock server
// (weblocks-wasm/server on /demo/locks), with any browser and with Node clients. The page is on the
// insecure test name (http://weblocks.test:PORT, mapped to loopback); a Node client claims a demo
// name ("Node 1") and holds a lock, and the tab's table shows who holds it; the tab names itself
// after its browser. Each step waits for what the page shows.
import { test, expect } from './support/fixtures.js';
import { startDemoServer } from '../../scripts/serve.mjs';
import { insecureUrlOf } from '../support/insecure-origin.mjs';
import { createLockManager } from '../../js/remote/node.js';

const BROWSER = { chromium: 'Chromium', firefox: 'Firefox', webkit: 'WebKit' };

async function until(tab, fn, arg, label) {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const value = await tab.evaluate(fn, arg);
    if (value) return value;
    if (Date.now() > deadline) {
      const shown = await tab.evaluate(() => document.body.innerText.slice(0, 3000)).catch(() => '(unreadable)');
      throw new Error(`never reached: ${label}\nThe tab shows:\n${shown}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

test('?impl=remote: a tab and a Node client share the demo server\'s lock space; the table shows which client holds what', async ({ session, servers, engine }) => {
  const server = await startDemoServer({ port: 0, host: 'loopback', remote: servers.remote });
  const node = createLockManager({ url: `${server.loopbackUrl.replace('http:', 'ws:')}locks` });
  let tab = null;
  try {
    const url = new URL(insecureUrlOf(server.loopbackUrl));
    url.pathname += 'index.html';
    url.searchParams.set('impl', 'remote');
    const errors = [];
    tab = await session.open(url.href, (t) => t.on('pageerror', (error) => errors.push(String(error))));
    await until(tab, () => document.body.dataset.ready === 'true', null, 'the page is ready')
    const name = await tab.evaluate(() => document.querySelector('[data-testid="self-name"]').textContent);
    expect(name).toMatch(new RegExp(`^${BROWSER[engine]} \\d+$`));
    expect(await tab.evaluate(() => document.querySelector('[data-testid="implementation"]').dataset.kind)).toBe('remote');
    // The Node client takes a demo name and a lock, as a tab would.
    node.request('demo:name:Node 1', () => new Promise(() => {})).catch(() => {}); // rejected by close(), at the end
    let release;
    await new Promise((granted) => node.request('shared-doc', () => { granted(); return new Promise((resolve) => { release = resolve; }); }));
    await until(tab, () => document.querySelector('[data-testid="lock-row"][data-lock="shared-doc"][data-status="held"][data-context="Node 1"]') !== null, null, 'the table shows Node 1 holding shared-doc');
    // And the tab's own name lock is in the server's space, held by the tab's client.
    const held = (await server.lockServer.query('demo')).held.map((l) => l.name);
    expect(held).toContain(`demo:name:${name}`);
    release();
    await until(tab, () => document.querySelector('[data-testid="lock-row"][data-lock="shared-doc"]') === null, null, 'the release shows');
    expect(errors).toEqual([]);
  } finally {
    // (WebKit's tab keeps a remote-control socket to this server open: the server closes once it has gone.)
    await tab?.close();
    node.close();
    await server.close();
  }
});
