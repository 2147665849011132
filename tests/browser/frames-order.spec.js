// Requests made from several same-origin frames (and a page's own requests) are queued in the
// lock space in the order they were made, first requests included: spec 3.2.2 (request a lock)
// appends the request to the lock's queue when request() runs, and query() (spec 4.5, snapshot
// the lock state) lists the pending requests in queue order. The frames share their embedder's
// event loop, so the order of one task's calls is the order they were made. The cases follow
// WPT's query-ordering and mode-exclusive ("Requests for distinct resources can be granted"),
// which WebKit failed with the polyfill (issue 46). Waits on events only: query() until every
// request is listed, and grants in the order their callbacks ran.
import { test, expect, call, until, named } from './support/fixtures.js';

/** Adds `count` same-origin iframes of plain.html to `top` and waits until each one's harness is up. */
function addFrames(top, count, base) {
  return top.evaluate(async ([n, url]) => {
    const loads = [];
    for (let i = 0; i < n; i++) {
      const frame = document.createElement('iframe');
      loads.push(new Promise((resolve) => frame.addEventListener('load', resolve, { once: true })));
      frame.src = url;
      document.body.appendChild(frame);
    }
    await Promise.all(loads);
    return [...document.querySelectorAll('iframe')].every((f) => typeof f.contentWindow.harness === 'object');
  }, [count, `${base}tests/browser/pages/plain.html`]);
}

/** A tab with three fresh frames, the tab holding `name`; -> { top, held }. */
async function framesBehindAHolder(openTab, base, name) {
  const top = await openTab();
  expect(await addFrames(top, 3, base)).toBe(true);
  const held = await call(top, 'request', name);
  await call(top, 'granted', held);
  return { top, held };
}

/** Makes the requests [frame index, mode] in order, in one task of the embedder; returns the frames' clientIds and the handles. */
function requestInOrder(top, name, order) {
  return top.evaluate(([lockName, list]) => {
    const frames = [...document.querySelectorAll('iframe')].map((f) => f.contentWindow.harness);
    const ids = list.map(([index, mode]) => frames[index].request(lockName, { mode }));
    const clientIds = frames.map((h) => h.call([], 'connection').clientId);
    return { ids, clientIds };
  }, [name, order]);
}

// Not met yet in any engine (issue 46, left open): each frame posts on its own port to the hub,
// and no engine delivers the messages of several ports in the order they were posted. A bare
// SharedWorker hearing 3 same-origin frames post f0 f1 f2 f1 f0 f2 f0 in one task heard, in
// WebKitGTK 2.50, every port's messages together (f0 f0 f0 f2 f2 f1 f1); Chromium 156 f0 f1 f2 f0
// f0 f1 f2; Firefox 153 in order that time, yet the case below failed in 3 of 5 Firefox runs and
// 1 of 5 Chromium runs, and in every WebKit run (the hub heard each frame's requests grouped).
// Keeping the order needs one channel for the contexts of one event loop, or an order stamp
// the hub can wait on (docs/browser.md, "Order across frames").
const FRAMES_FIXME = 'the hub hears each frame\'s port in the order the browser delivers ports, not the order of the calls (issue 46, open)';

// Each frame's first request comes in the middle of the others' (frame 2's is the 3rd), and
// every frame makes more than one, interleaved with the other frames'.
const ORDER = [[0, 'exclusive'], [1, 'shared'], [2, 'exclusive'], [1, 'exclusive'], [0, 'shared'], [2, 'shared'], [0, 'exclusive']];

test('query() lists the pending requests of several fresh frames in the order the frames made them, each once', async ({ openTab, servers, origin }) => {
  test.fixme(true, FRAMES_FIXME);
  const { top, held } = await framesBehindAHolder(openTab, servers[origin], 'frame-order');
  const { clientIds } = await requestInOrder(top, 'frame-order', ORDER);
  expect(new Set(clientIds).size, 'three frames, three clients').toBe(3);
  const state = await until(top, (s) => named(s.pending, 'frame-order').length >= ORDER.length, 'every frame request is pending');
  const pending = named(state.pending, 'frame-order').map((info) => [clientIds.indexOf(info.clientId), info.mode]);
  expect(pending, `pending in the order made, nothing listed twice: ${JSON.stringify(pending)}`).toEqual(ORDER);
  expect(named(state.held, 'frame-order')).toHaveLength(1);
  await call(top, 'release', held);
});

test('after the first grant, the frames\' requests are granted in the order they were made', async ({ openTab, servers, origin }) => {
  test.fixme(true, FRAMES_FIXME);
  const { top, held } = await framesBehindAHolder(openTab, servers[origin], 'frame-grants');
  // Exclusive requests only: each grant waits for the previous holder's release.
  const order = [[2, 'exclusive'], [0, 'exclusive'], [1, 'exclusive'], [0, 'exclusive'], [2, 'exclusive']];
  const { ids } = await requestInOrder(top, 'frame-grants', order);
  await until(top, (s) => named(s.pending, 'frame-grants').length >= order.length, 'every frame request is pending');
  await call(top, 'release', held);
  const granted = [];
  for (let i = 0; i < order.length; i++) {
    // Whichever request holds the lock now is the next one granted; it must be the i-th made.
    const holder = await top.evaluate(async ([list, handles]) => {
      const frames = [...document.querySelectorAll('iframe')].map((f) => f.contentWindow.harness);
      const states = list.map(([index], k) => frames[index].state(handles[k]));
      return states.indexOf('held');
    }, [order, ids]);
    if (holder < 0) { i -= 1; await call(top, 'query'); continue; }
    granted.push(holder);
    const [index] = order[holder];
    await call(top, [], 'query');
    await top.evaluate(([f, id]) => document.querySelectorAll('iframe')[f].contentWindow.harness.release(id), [index, ids[holder]]);
    await top.evaluate(([f, id]) => document.querySelectorAll('iframe')[f].contentWindow.harness.settled(id), [index, ids[holder]]);
  }
  expect(granted).toEqual([0, 1, 2, 3, 4]);
});

test('a request for a free name made while a request for a held name waits is granted first (distinct resources, WPT mode-exclusive)', async ({ openTab }) => {
  // Run as the page's first requests, in a fresh tab each time: the case WebKit got wrong now and then.
  for (let round = 0; round < 4; round++) {
    const tab = await openTab();
    const granted = await tab.evaluate(async (r) => {
      const order = [];
      let inner;
      await navigator.locks.request(`distinct-a-${r}`, async () => {
        inner = Promise.all([
          navigator.locks.request(`distinct-a-${r}`, () => { order.push(1); }), // waits for the outer lock
          navigator.locks.request(`distinct-b-${r}`, () => { order.push(2); }), // grantable at once
        ]);
      });
      await inner;
      return order;
    }, round);
    expect(granted, `round ${round}`).toEqual([2, 1]);
    await tab.close();
  }
});
