// Strict deployments: a Content-Security-Policy (and, in Chromium, Trusted Types) on every response
// of an insecure origin (the pages, the polyfill, the hub, the sentinel), two tabs and a dedicated
// worker, a busy holder and a waiter; Trusted Types wherever the engine has them. Each policy either works with no overlap (the external
// check of support/busy-holder.js: the waiter's grant stamped after the holder's section ended) or
// fails every request loudly with the directive named. Never a silent loss: a context whose
// sentinel a policy forbids keeps its locks while it is busy (js/hub/hub.js silenceProvesNothing).
import { test, expect, call } from './support/fixtures.js';
import { TASK_MS, busyHolderKeepsItsLock } from './support/busy-holder.js';
import { FORBIDS_SENTINEL, openAt } from './support/policy-tabs.js';

// The policy of docs/browser.md ("Content-Security-Policy and Trusted Types"): pages need nothing beyond
// 'self' (the sentinel is a same-origin script); only the hub compiles WebAssembly.
export const PAGE_POLICY = "default-src 'self'";
export const HUB_POLICY = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'";

/** Two tabs and a worker of the first on `base`: a busy tab, then a busy worker, keep their locks. */
async function busyHoldersKeepTheirLocks(session, base) {
  const host = await openAt(session, base);
  await call(host, 'query');
  const [a, b] = [await openAt(session, base), await openAt(session, base)];
  await busyHolderKeepsItsLock(a, [], b, 'csp-busy-window');
  const w = await call(a, 'spawn', '/tests/browser/pages/worker.js');
  await busyHolderKeepsItsLock(a, [w], b, 'csp-busy-worker');
  return { host, a, b };
}

test(`with the documented policy (pages default-src 'self', the hub also 'wasm-unsafe-eval'), a busy tab and a busy worker keep their locks for ${TASK_MS} ms`, async ({ session, servers }) => {
  const base = await servers.withPolicy(PAGE_POLICY, { hub: HUB_POLICY });
  const { a } = await busyHoldersKeepTheirLocks(session, base);
  const state = await call(a, 'backendState');
  expect(state.sentinel, 'the sentinel, a same-origin script, ran under worker-src \'self\'').toMatchObject({ started: true, answered: true, failed: false });
});

test(`with default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; worker-src 'self' on every response, a busy tab and a busy worker keep their locks for ${TASK_MS} ms`, async ({ session, servers }) => {
  const base = await servers.withPolicy("default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; worker-src 'self'");
  await busyHoldersKeepTheirLocks(session, base);
});

test('with default-src \'self\' on the hub too, every request fails at once with a NotSupportedError naming \'wasm-unsafe-eval\' and the hub script', async ({ session, servers }) => {
  const base = await servers.withPolicy(PAGE_POLICY);
  const tab = await openAt(session, base);
  const id = await call(tab, 'request', 'never');
  const outcome = await call(tab, 'settled', id);
  expect(outcome).toMatchObject({ ok: false, name: 'NotSupportedError' });
  expect(outcome.message).toContain("Add 'wasm-unsafe-eval' to the script-src of the policy served with the hub script");
  expect(outcome.message).toContain('weblocks-hub.js');
  // And the next one too: nothing half works.
  const again = await call(tab, 'settled', await call(tab, 'request', 'never'));
  expect(again).toMatchObject({ ok: false, name: 'NotSupportedError' });
});

test(`with a worker-src that allows the hub but not the sentinel, a busy tab keeps its lock for ${TASK_MS} ms and its console says why and what to fix`, async ({ session, servers, engine }) => {
  // Only the hub's own URL may start as a worker: the sentinel may not.
  const base = await servers.withPolicy(FORBIDS_SENTINEL);
  const host = await openAt(session, base);
  await call(host, 'query');
  const [a, b] = [await openAt(session, base), await openAt(session, base)];
  await busyHolderKeepsItsLock(a, [], b, 'csp-no-sentinel');
  const state = await call(a, 'backendState');
  expect(state.sentinel?.failed, `the policy kept the sentinel from starting (${engine})`).toBe(true);
  expect(a.logs.some((line) => line.includes('no sentinel worker') && line.includes("worker-src 'self'")), `the console said why: ${a.logs.join(' | ')}`).toBe(true);
});

/** Skips where the engine has no Trusted Types (measured in the page itself, not assumed). */
async function skipWithoutTrustedTypes(session, base, engine) {
  const probe = await openAt(session, base);
  const has = await probe.evaluate(() => typeof window.trustedTypes?.createPolicy === 'function');
  await probe.close();
  test.skip(!has, `no Trusted Types in this engine (${engine})`);
}

test(`with Trusted Types enforced and the polyfill's policy allowed (trusted-types weblocks), a busy tab keeps its lock for ${TASK_MS} ms`, async ({ session, servers, engine }) => {
  await skipWithoutTrustedTypes(session, servers.insecure, engine);
  const base = await servers.withPolicy(`${PAGE_POLICY}; require-trusted-types-for 'script'; trusted-types weblocks`, { hub: HUB_POLICY });
  // The harness and the polyfill run as they are: a page that enforces Trusted Types, no default policy.
  const host = await openAt(session, base);
  await call(host, 'query');
  const [a, b] = [await openAt(session, base), await openAt(session, base)];
  await busyHolderKeepsItsLock(a, [], b, 'trusted-types-busy');
  expect((await call(a, 'backendState')).sentinel).toMatchObject({ answered: true, failed: false });
});

test('with Trusted Types enforced and the polyfill\'s policy not allowed, every request fails with a NotSupportedError naming trusted-types weblocks', async ({ session, servers, engine }) => {
  await skipWithoutTrustedTypes(session, servers.insecure, engine);
  const base = await servers.withPolicy(`${PAGE_POLICY}; require-trusted-types-for 'script'; trusted-types app-only`, { hub: HUB_POLICY });
  const tab = await openAt(session, base);
  const outcome = await call(tab, 'settled', await call(tab, 'request', 'never'));
  expect(outcome).toMatchObject({ ok: false, name: 'NotSupportedError' });
  expect(outcome.message).toContain('trusted-types weblocks');
});
