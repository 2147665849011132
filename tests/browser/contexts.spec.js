// Every kind of context shares the origin's lock space: iframes (same-origin; cross-site frames
// share the lock space of their partition, as native Web Locks does), dedicated workers (their
// creator hands them a port to the hub), and workers of workers.
import { test, expect, call, until, named } from './support/fixtures.js';

async function frameWithHarness(page, index = 0) {
  const deadline = Date.now() + 15_000;
  let frames = [];
  while ((frames = page.frames().filter((f) => f !== page.mainFrame())).length <= index) {
    if (Date.now() > deadline) throw new Error(`frame ${index} never attached`);
    await new Promise((r) => setTimeout(r, 20));
  }
  const frame = frames[index];
  await frame.waitForFunction(() => typeof window.harness === 'object');
  return frame;
}

test('a same-origin iframe contends with another tab for one lock, in FIFO order', async ({ openTab, context, servers }) => {
  const b = await openTab();
  const top = await context.newPage();
  await top.goto(`${servers.plain}tests/browser/pages/embed.html?frame=plain.html`);
  const frame = await frameWithHarness(top);
  const held = await call(b, 'request', 'framed');
  await call(b, 'granted', held);
  const fromFrame = await call(frame, 'request', 'framed');
  await until(b, (s) => named(s.pending, 'framed').length === 1, 'the frame waits');
  await call(b, 'release', held);
  await call(frame, 'granted', fromFrame);
  const state = await call(b, 'query');
  expect(named(state.held, 'framed')[0].clientId).toBe((await call(frame, 'connection')).clientId);
  await call(frame, 'release', fromFrame);
  expect(await call(frame, 'settled', fromFrame)).toMatchObject({ ok: true });
});

test('an iframe removed while holding a lock releases it', async ({ openTab, context, servers }) => {
  const b = await openTab();
  const top = await context.newPage();
  await top.goto(`${servers.plain}tests/browser/pages/embed.html?frame=plain.html`);
  const frame = await frameWithHarness(top);
  const held = await call(frame, 'request', 'frame-gone');
  await call(frame, 'granted', held);
  const waiting = await call(b, 'request', 'frame-gone');
  await until(b, (s) => named(s.pending, 'frame-gone').length === 1, 'b waits');
  await top.evaluate(() => document.querySelector('iframe').remove());
  await call(b, 'granted', waiting);
  await call(b, 'release', waiting);
});

test('a cross-site iframe where Chromium refuses the hub SharedWorker falls back to an in-context engine, says so, and its locks still work', async ({ context, servers }) => {
  // Chromium here does not start a SharedWorker in a third-party frame. The frame's locks then
  // serve that frame (and its workers) only: a second frame of the same origin is not excluded.
  const port = new URL(servers.plain).port;
  const frameUrl = encodeURIComponent(`http://127.0.0.1:${port}/tests/browser/pages/plain.html`);
  const top = await context.newPage();
  const warnings = [];
  top.on('console', (m) => { if (m.type() === 'warning') warnings.push(m.text()); });
  await top.goto(`http://localhost:${port}/tests/browser/pages/embed.html?frame=${frameUrl}&frame=${frameUrl}`);
  const f1 = await frameWithHarness(top, 0);
  const f2 = await frameWithHarness(top, 1);
  const held = await call(f1, 'request', 'third-party');
  expect(await call(f1, 'granted', held)).toMatchObject({ name: 'third-party' });
  const waiting = await call(f1, 'request', 'third-party');
  await until(f1, (s) => named(s.pending, 'third-party').length === 1, 'the frame\'s second request waits for its first');
  const other = await call(f2, 'request', 'third-party', { ifAvailable: true });
  expect(await call(f2, 'granted', other), 'the other frame has a lock space of its own').toMatchObject({ name: 'third-party' });
  await call(f2, 'release', other);
  await call(f1, 'release', held);
  await call(f1, 'granted', waiting);
  await call(f1, 'release', waiting);
  expect(warnings.some((w) => /refused to start the lock hub .* in this context/.test(w))).toBe(true);
});

test('a dedicated worker and a worker it created (nested) contend with a tab, in FIFO order', async ({ openTab }) => {
  const [a, b] = await Promise.all([openTab(), openTab()]);
  const w = await call(a, 'spawn', '/tests/browser/pages/worker.js');
  const nested = await call(a, [w], 'spawn', '/tests/browser/pages/worker.js');
  const inner = [w, nested];
  const held = await call(b, 'request', 'workers');
  await call(b, 'granted', held);
  const fromWorker = await call(a, [w], 'request', 'workers');
  await until(b, (s) => named(s.pending, 'workers').length === 1, 'the worker waits');
  const fromNested = await call(a, inner, 'request', 'workers');
  const state = await until(b, (s) => named(s.pending, 'workers').length === 2, 'the nested worker waits');
  const ids = [(await call(a, [w], 'connection')).clientId, (await call(a, inner, 'connection')).clientId];
  expect(named(state.pending, 'workers').map((l) => l.clientId)).toEqual(ids);
  await call(b, 'release', held);
  await call(a, [w], 'granted', fromWorker);
  expect(await call(a, inner, 'state', fromNested)).toBe('pending');
  await call(a, [w], 'release', fromWorker);
  await call(a, inner, 'granted', fromNested);
  await call(a, inner, 'release', fromNested);
  expect(await call(a, inner, 'settled', fromNested)).toMatchObject({ ok: true });
  // The port plumbing is invisible to app code on both sides.
  expect(await call(a, 'appMessages')).toEqual([]);
  expect(await call(a, [w], 'appMessages')).toEqual([]);
  expect(await call(a, inner, 'appMessages')).toEqual([]);
});

test('a worker that does not load the polyfill receives no message from it', async ({ openTab }) => {
  const a = await openTab();
  const received = await a.evaluate(() => new Promise((resolve) => {
    const worker = new Worker('/tests/browser/pages/bare-worker.js');
    worker.onmessage = (event) => resolve(event.data.received);
    worker.postMessage('app message');
    worker.postMessage('report');
  }));
  expect(received).toEqual(['"app message"']);
});

test('a dedicated worker on a cross-origin-isolated page shares the tabs\' lock space', async ({ openTab }) => {
  const [a, b] = await Promise.all([openTab('plain.html?coi'), openTab()]);
  expect((await call(a, 'info')).isolated).toBe(true);
  const w = await call(a, 'spawn', '/tests/browser/pages/worker.js?coi');
  const held = await call(a, [w], 'request', 'isolated-worker');
  await call(a, [w], 'granted', held);
  const waiting = await call(b, 'request', 'isolated-worker');
  await until(b, (s) => named(s.pending, 'isolated-worker').length === 1, 'the tab waits for the worker');
  await call(a, [w], 'release', held);
  await call(b, 'granted', waiting);
  await call(b, 'release', waiting);
});
