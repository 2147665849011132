// Tabs on an origin served with a Content-Security-Policy (server.mjs withPolicy), shared by the
// specs that need one: csp.spec.js, and the liveness and hub-loss cases of a context whose policy
// forbids its sentinel.

/** Lets the hub script start as a worker and nothing else: the sentinel may not (csp.spec.js). */
export const FORBIDS_SENTINEL = (origin) => `default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; worker-src ${origin}build/dist/weblocks-hub.js`;

/** Opens a test page of the origin at `base`, its harness up and its console kept in `tab.logs`. */
export async function openAt(session, base, file = 'plain.html') {
  const logs = [];
  const tab = await session.open(`${base}tests/browser/pages/${file}`, (page) => {
    page.on('console', (message) => logs.push(`${message.type()}: ${message.text()}`));
  });
  await tab.waitForFunction(() => typeof window.harness === 'object');
  tab.logs = logs;
  return tab;
}
