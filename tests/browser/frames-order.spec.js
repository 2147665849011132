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

// Each frame used to post on its own port to the hub, and no engine delivers several ports'
// messages in the order they were posted (WebKitGTK 2.50 delivered each port's together): the
// cases below failed in every WebKit run, and now and then in Firefox and Chromium. Same-origin
// frames now speak through their embedder's connection (js/browser/frame-backend.js), each still a
// client of its own, and leave it when removed or navigated (the cases after the order ones).

// Each frame's first request comes in the middle of the others' (frame 2's is the 3rd), and
// every frame makes more than one, interleaved with the other frames'.
const ORDER = [[0, 'exclusive'], [1, 'shared'], [2, 'exclusive'], [1, 'exclusive'], [0, 'shared'], [2, 'shared'], [0, 'exclusive']];

test('query() lists the pending requests of several fresh frames in the order the frames made them, each once', async ({ openTab, servers, origin }) => {
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

/** Runs `body(frames)` in the embedder, where frames[i] is the i-th iframe's harness. */
function inFrames(top, body, arg) {
  return top.evaluate(([source, a]) => {
    const frames = [...document.querySelectorAll('iframe')].map((f) => f.contentWindow.harness);
    return (0, eval)(`(${source})`)(frames, a);
  }, [body.toString(), arg]);
}

test('a frame removed while it holds one lock and waits for another: its lock passes on, its request is gone, and the other frames keep theirs', async ({ openTab, servers, origin }) => {
  const top = await openTab();
  expect(await addFrames(top, 2, servers[origin])).toBe(true);
  const { removedId, keeperId } = await inFrames(top, async (frames) => {
    const a = frames[0].request('frame-left-a');
    const b = frames[1].request('frame-left-b');
    await Promise.all([frames[0].granted(a), frames[1].granted(b)]);
    frames[0].request('frame-left-b'); // waits behind frame 1
    return { removedId: frames[0].call([], 'connection').clientId, keeperId: frames[1].call([], 'connection').clientId };
  });
  expect(removedId).not.toBe(keeperId);
  await until(top, (s) => named(s.pending, 'frame-left-b').length === 1, 'frame 0 waits for frame-left-b');
  const waiter = await call(top, 'request', 'frame-left-a');
  await until(top, (s) => named(s.pending, 'frame-left-a').length === 1, 'the page waits for frame-left-a');
  await top.evaluate(() => document.querySelector('iframe').remove());
  await call(top, 'granted', waiter);
  const state = await until(top, (s) => named(s.pending, 'frame-left-b').length === 0, 'the removed frame\'s request is gone');
  expect(named(state.held, 'frame-left-a').map((i) => i.clientId)).not.toContain(removedId);
  expect(named(state.held, 'frame-left-b').map((i) => i.clientId)).toEqual([keeperId]);
  expect([...state.held, ...state.pending].map((i) => i.clientId)).not.toContain(removedId);
  await call(top, 'release', waiter);
});

test('a frame that navigates away releases its locks, and the page it navigated to has a client of its own', async ({ openTab, servers, origin }) => {
  const top = await openTab();
  expect(await addFrames(top, 1, servers[origin])).toBe(true);
  const before = await inFrames(top, async (frames) => {
    const id = frames[0].request('frame-nav');
    await frames[0].granted(id);
    return frames[0].call([], 'connection').clientId;
  });
  const waiter = await call(top, 'request', 'frame-nav');
  await until(top, (s) => named(s.pending, 'frame-nav').length === 1, 'the page waits for frame-nav');
  const base = servers[origin];
  await top.evaluate(async (url) => {
    const frame = document.querySelector('iframe');
    const loaded = new Promise((resolve) => frame.addEventListener('load', resolve, { once: true }));
    frame.src = url;
    await loaded;
  }, `${base}tests/browser/pages/plain.html?navigated`);
  await call(top, 'granted', waiter);
  const after = await inFrames(top, async (frames) => {
    const id = frames[0].request('frame-nav-2', { ifAvailable: true });
    await frames[0].granted(id);
    const state = await frames[0].query();
    frames[0].release(id);
    return { clientId: frames[0].call([], 'connection').clientId, held: state.held.filter((i) => i.name === 'frame-nav-2').map((i) => i.clientId) };
  });
  expect(after.clientId).not.toBe(before);
  expect(after.held).toEqual([after.clientId]);
  await call(top, 'release', waiter);
});

test('what a frame\'s LockManager returns belongs to the frame: promises, snapshot arrays and errors', async ({ openTab, servers, origin }) => {
  const top = await openTab();
  expect(await addFrames(top, 1, servers[origin])).toBe(true);
  const checks = await top.evaluate(async () => {
    const w = document.querySelector('iframe').contentWindow;
    const promise = w.navigator.locks.query();
    const state = await promise;
    let error = null;
    // A name longer than the hub takes: refused by the embedder's connection, in the frame's realm.
    try { await w.navigator.locks.request('n'.repeat(70000), () => {}); } catch (e) { error = e; }
    const granted = await w.navigator.locks.request('frame-realm', async (lock) => lock instanceof w.Lock);
    return {
      promise: promise instanceof w.Promise,
      held: Array.isArray(state.held) && state.held instanceof w.Array,
      pending: state.pending instanceof w.Array,
      error: error instanceof w.DOMException && error.name,
      lock: granted,
    };
  });
  expect(checks).toEqual({ promise: true, held: true, pending: true, error: 'NotSupportedError', lock: true });
});

test('a frame\'s dedicated worker shares the lock space, and its lock passes on once the frame is removed', async ({ openTab, servers, origin }) => {
  const top = await openTab();
  expect(await addFrames(top, 1, servers[origin])).toBe(true);
  const url = `${servers[origin]}tests/browser/pages/worker.js`;
  await inFrames(top, async (frames, workerUrl) => {
    const w = await frames[0].spawn(workerUrl);
    const id = await frames[0].call([w], 'request', 'frame-worker');
    await frames[0].call([w], 'granted', id);
    return true;
  }, url);
  const waiter = await call(top, 'request', 'frame-worker');
  await until(top, (s) => named(s.pending, 'frame-worker').length === 1 && named(s.held, 'frame-worker').length === 1, 'the worker holds, the page waits');
  await top.evaluate(() => document.querySelector('iframe').remove());
  await call(top, 'granted', waiter);
  await call(top, 'release', waiter);
});

test('a removed frame\'s navigator.locks rejects request() and query() with its own realm\'s InvalidStateError (spec: the document is not fully active)', async ({ openTab, servers, origin }) => {
  const top = await openTab();
  expect(await addFrames(top, 1, servers[origin])).toBe(true);
  const results = await top.evaluate(async () => {
    const frame = document.querySelector('iframe');
    const { navigator: nav, DOMException: FrameDOMException, Promise: FramePromise } = frame.contentWindow;
    frame.remove();
    const outcome = (promise) => Promise.race([promise.then(() => 'resolved', (e) => (e instanceof FrameDOMException ? e.name : `other: ${e}`)),
      new Promise((r) => setTimeout(() => r('no answer in 3 s'), 3000))]);
    // The control: a promise of the removed frame's realm that the polyfill never touched.
    const control = await outcome(FramePromise.reject(new FrameDOMException('control', 'InvalidStateError')));
    return { control, request: await outcome(nav.locks.request('frame-detached', () => {})), query: await outcome(nav.locks.query()) };
  });
  // Firefox ESR 153 runs no promise job of a removed frame's realm: a promise made there never
  // settles for anyone, the control included (measured), so what the polyfill answers cannot be seen.
  test.skip(results.control !== 'InvalidStateError', `this engine settles no promise of a removed frame's realm (control: ${results.control})`);
  expect(results).toEqual({ control: 'InvalidStateError', request: 'InvalidStateError', query: 'InvalidStateError' });
});
