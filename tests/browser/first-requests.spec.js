// A context's first requests keep their place: a request is queued at the hub in the order it was
// made, whatever the context's start-up waits for (its port, its hub, its sentinel). Spec 3.2.2
// (request a lock) enqueues the request in the lock's queue when request() is called, so a request
// made after another, in any context, comes after it. Waits on events only: the first of the two
// grants says which request the hub queued first.
import { test, expect, call } from './support/fixtures.js';

/** Which of two requests, both waiting for the same lock, is granted first once it is free. */
async function firstGranted(contenders) {
  return Promise.race(contenders.map(async ([label, page, path, id]) => { await call(page, path, 'granted', id); return label; }));
}

test("a new dedicated worker's first request, made before another tab's request, is granted before it", async ({ openTab }) => {
  const a = await openTab();
  const b = await openTab();
  const held = await call(a, 'request', 'first-place');
  await call(a, 'granted', held);
  await call(b, 'granted', await call(b, 'request', 'warm-up')); // b is up: its next request is not a first one
  const w = await call(a, 'spawn', '/tests/browser/pages/worker.js');
  const fromWorker = await call(a, [w], 'request', 'first-place'); // the worker's first request
  const fromTab = await call(b, 'request', 'first-place');
  await call(a, 'release', held);
  expect(await firstGranted([['worker', a, [w], fromWorker], ['tab', b, [], fromTab]])).toBe('worker');
  await call(a, [w], 'release', fromWorker);
  await call(b, 'granted', fromTab);
});

test("a new tab's first request, made before another tab's request, is granted before it", async ({ openTab, engine }) => {
  test.skip(engine === 'webkit', "not met in WebKit (15 runs of 16 here; 4 of 8 before a window made its hub port as the polyfill installs): the other tab's later request still reaches the hub first now and then (issue 29)");
  const a = await openTab();
  const b = await openTab();
  const held = await call(a, 'request', 'first-place');
  await call(a, 'granted', held);
  await call(b, 'granted', await call(b, 'request', 'warm-up'));
  const c = await openTab();
  const fromNewTab = await call(c, 'request', 'first-place'); // c's first request
  const fromTab = await call(b, 'request', 'first-place');
  await call(a, 'release', held);
  expect(await firstGranted([['new tab', c, [], fromNewTab], ['tab', b, [], fromTab]])).toBe('new tab');
  await call(c, 'release', fromNewTab);
  await call(b, 'granted', fromTab);
});

test("a page that creates a worker but takes no lock is not connected to the hub for it, and the worker's first request still gets a port", async ({ openTab }) => {
  // A worker asks its creator for a port as it starts (js/browser/worker-ports.js askEarly); a
  // creator that is not connected answers no-port rather than start the hub for a worker that may
  // never take a lock. The ask reaches the page before the worker's harness says it is up.
  const a = await openTab();
  const w = await call(a, 'spawn', '/tests/browser/pages/worker.js');
  const state = await call(a, 'backendState');
  expect({ port: state.port, connecting: state.connecting }, 'the page did not connect to the hub for its worker').toEqual({ port: false, connecting: false });
  const id = await call(a, [w], 'request', 'no-early-port');
  await call(a, [w], 'granted', id);
  await call(a, [w], 'release', id);
  expect(await call(a, [w], 'settled', id)).toMatchObject({ ok: true });
});
