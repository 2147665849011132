// The hub's SharedWorker is asked for with `extendedLifetime` (js/browser/context.js startHub):
// Chromium (148+) keeps it running after its last page unloads, so a reload of the only tab finds
// it running; Firefox and WebKit ignore the option. A SharedWorker asked for with another setting
// than the running one's gets `error` in Chromium: a page that meets a hub started the other way
// (another version of this package) connects that way, never falls back to an engine of its own.
import { test, expect, call } from './support/fixtures.js';

test('a reload of the only tab is served again, by the same hub where the browser keeps it running (Chromium)', async ({ openTab, engine }) => {
  const tab = await openTab();
  const first = await call(tab, 'request', 'kept');
  await call(tab, 'granted', first);
  const before = await call(tab, 'connection');
  await tab.reload();
  await tab.waitForFunction(() => typeof window.harness === 'object');
  const again = await call(tab, 'request', 'kept');
  await call(tab, 'granted', again);
  const after = await call(tab, 'connection');
  test.info().annotations.push({ type: 'observed', description: `after the reload: ${after.hubId === before.hubId ? 'the same hub' : 'a new hub'}` });
  if (engine === 'chromium') expect(after.hubId, 'the hub outlived the reload').toBe(before.hubId);
  expect(after.hubId).not.toMatch(/^local-/);
});

for (const extendedLifetime of [false, true]) {
  test(`a page whose hub was started ${extendedLifetime ? 'with' : 'without'} extendedLifetime is served by that hub`, async ({ openTab, session, servers, origin, engine }) => {
    test.skip(engine !== 'chromium', 'only Chromium (148+) knows the option; elsewhere both ways reach the same hub');
    // A page without the polyfill starts the hub as a page of another version would.
    const other = await session.open(`${servers[origin]}tests/browser/pages/launcher.html`);
    const otherHub = await other.evaluate((extended) => new Promise((resolve) => {
      window.hub = new SharedWorker('/build/dist/weblocks-hub.js', { name: 'weblocks-wasm-hub', extendedLifetime: extended });
      window.hub.onerror = () => resolve('error');
      window.hub.port.onmessage = (event) => { if (event.data.t === 'hub') resolve(event.data.hubId); };
    }), extendedLifetime);
    expect(otherHub).not.toBe('error');
    const tab = await openTab();
    const id = await call(tab, 'request', 'x');
    await call(tab, 'granted', id);
    const connection = await call(tab, 'connection');
    expect(connection.hubId, 'the running hub, not a second one nor an engine in the page').toBe(otherHub);
    expect(connection.stats.hubLosses).toBe(0);
  });
}
