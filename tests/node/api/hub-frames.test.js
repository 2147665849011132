// Same-origin frames that speak through their embedder's connection (protocol 11: js/browser/
// frame-backend.js, js/hub/frame-connection.js), driven in one Node thread over MessageChannels:
// the order of every client's calls kept on one port, each frame a client of its own at the hub,
// a frame that leaves (or is found gone) losing what it had at once, a hub loss that keeps the
// frames' locks with the frames, and a port that lies about frames touching nothing of anyone else.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MessageChannel } from 'node:worker_threads';
import { FrameBackend } from '../../../js/browser/frame-backend.js';
import { createLockManager } from '../../../js/api/index.js';
import { PROTOCOL_VERSION, LIMITS } from '../../../js/hub/protocol.js';
import { requestHandle } from '../suite/handle.js';
import { lockSpace } from './hub-context.js';
import { until, eventually } from './until.js';

/** A frame of `embedder` (a lockSpace client): its own LockManager over the embedder's backend. */
function frameOf(embedder) {
  const scope = { document: { defaultView: {} } };
  const backend = new FrameBackend(embedder.backend, scope);
  return { backend, scope, locks: createLockManager(backend), clientId: backend.clientId };
}

/** A raw connection to the hub: says hello as `clientId`, records what the hub says. */
function rawClient(space, clientId) {
  const { port1, port2 } = new MessageChannel();
  space.ports.push(port1, port2);
  space.hubPorts.push(port2);
  space.hub.connect(port2);
  const heard = [];
  port1.onmessage = (event) => {
    for (const m of event.data.t === 'batch' ? event.data.m : [event.data]) heard.push(m);
  };
  port1.postMessage({ t: 'hello', v: PROTOCOL_VERSION, clientId, key: `${clientId}-key`, lostHub: null, reclaim: [] });
  return { heard, send: (m) => port1.postMessage(m), said: (test) => heard.find(test) };
}

test('requests of an embedder and its frames are queued in the order they were made, each under its own clientId', async (t) => {
  const space = await lockSpace(t);
  const page = space.client('page');
  const [f1, f2] = [frameOf(page), frameOf(page)];
  const holder = requestHandle(page.locks, 'order');
  await holder.granted;
  const order = [f2, page, f1, f2, f1];
  const handles = order.map((who, i) => requestHandle(who.locks, 'order', { mode: i % 2 ? 'shared' : 'exclusive' }));
  let state;
  await eventually(async () => (state = await f1.locks.query()).pending.length === order.length, 'every request is pending');
  assert.deepEqual(state.pending.map((l) => [l.clientId, l.mode]),
    order.map((who, i) => [who === page ? 'page' : who.clientId, i % 2 ? 'shared' : 'exclusive']));
  assert.equal(new Set([page.backend.clientId, f1.clientId, f2.clientId]).size, 3);
  holder.release();
  for (const h of handles) { await h.granted; h.release(); }
  for (const h of [holder, ...handles]) assert.equal((await h.settled).ok, true);
});

test('a frame that leaves loses its lock and its waiting request at once; its embedder and the other frames keep theirs', async (t) => {
  const space = await lockSpace(t);
  const page = space.client('page');
  const other = space.client('other');
  const [leaving, staying] = [frameOf(page), frameOf(page)];
  const held = requestHandle(leaving.locks, 'a');
  const kept = requestHandle(staying.locks, 'b');
  const own = requestHandle(page.locks, 'c');
  await Promise.all([held.granted, kept.granted, own.granted]);
  requestHandle(leaving.locks, 'b'); // waits behind the staying frame
  const waiter = requestHandle(other.locks, 'a');
  await eventually(async () => (await other.locks.query()).pending.length === 2, 'both wait');
  leaving.backend.pageHidden(false);
  await waiter.granted;
  const state = await other.locks.query();
  assert.deepEqual(state.held.map((l) => [l.name, l.clientId]).sort(), [['a', 'other'], ['b', staying.clientId], ['c', 'page']]);
  assert.deepEqual(state.pending, []);
  waiter.release();
  kept.release();
  own.release();
});

test('a frame found without a window (removed without a pagehide) loses what it had at its embedder\'s next check', async (t) => {
  const space = await lockSpace(t, { CLIENT_CHECK_EVERY: 20 });
  const page = space.client('page', { CLIENT_CHECK_EVERY: 20 });
  const other = space.client('other');
  const frame = frameOf(page);
  const held = requestHandle(frame.locks, 'gone');
  await held.granted;
  const waiter = requestHandle(other.locks, 'gone');
  await eventually(async () => (await other.locks.query()).pending.length === 1, 'other waits');
  frame.scope.document.defaultView = null;
  await waiter.granted;
  assert.equal(page.backend.frames.size, 0);
  waiter.release();
});

test('after a hub loss, a frame\'s lock and waiting request are re-registered as the frame\'s, in their queue order', async (t) => {
  const space = await lockSpace(t);
  const page = space.client('page');
  const other = space.client('other');
  const frame = frameOf(page);
  const held = requestHandle(frame.locks, 'kept');
  await held.granted;
  const first = requestHandle(other.locks, 'kept');
  await until(() => space.hub.orderTimer !== null, 'other is queued');
  const second = requestHandle(frame.locks, 'kept', { mode: 'shared' });
  const seqOf = (backend, as) => [...backend.records.values()].find((r) => r.name === 'kept' && r.as === as && r.state === 0)?.seq;
  await until(() => seqOf(other.backend, undefined) != null && seqOf(page.backend, frame.clientId) != null, 'both know their place');

  await space.replaceHub({ hubId: 'second', liveness: { RECLAIM_WINDOW: 60_000 } });
  for (const client of [other, page]) {
    client.backend.hubLost();
    await until(() => client.backend.hubId === 'second', `${client.backend.clientId} is on the new hub`);
  }
  clearTimeout(space.hub.reclaimTimer);
  space.hub.closeReclaimWindow();
  const state = await frame.locks.query();
  assert.deepEqual(state.held.map((l) => [l.name, l.clientId]), [['kept', frame.clientId]]);
  assert.deepEqual(state.pending.map((l) => [l.clientId, l.mode]), [['other', 'exclusive'], [frame.clientId, 'shared']]);
  held.release();
  await first.granted;
  first.release();
  await second.granted;
  second.release();
  for (const h of [held, first, second]) assert.equal((await h.settled).ok, true);
});

test('a port that speaks for frames touches nothing of another client: a clientId in use is refused, releases and leaves of unknown frames do nothing', async (t) => {
  const space = await lockSpace(t);
  const victim = space.client('victim');
  const victimFrame = frameOf(victim);
  const lock = requestHandle(victim.locks, 'mine');
  const frameLock = requestHandle(victimFrame.locks, 'frame-mine');
  await Promise.all([lock.granted, frameLock.granted]);
  const hostile = rawClient(space, 'hostile');
  await until(() => hostile.said((m) => m.t === 'welcome'), 'hostile is welcomed');
  // A frame named as another live client, or as the victim's own frame: refused, not joined.
  hostile.send({ t: 'request', token: 1, name: 'mine', mode: 'exclusive', wait: 'preempt', as: 'victim' });
  hostile.send({ t: 'request', token: 2, name: 'frame-mine', mode: 'exclusive', wait: 'preempt', as: victimFrame.clientId });
  // Releases, aborts and leaves naming frames it does not have, with the victim's tokens.
  for (const as of ['victim', victimFrame.clientId, 'nobody']) {
    for (const token of [1, 2, 3]) {
      hostile.send({ t: 'release', token, as });
      hostile.send({ t: 'abort', token, as });
    }
    hostile.send({ t: 'left', as });
  }
  await until(() => hostile.heard.filter((m) => m.t === 'failed').length === 2, 'both requests refused');
  assert.deepEqual(hostile.heard.filter((m) => m.t === 'failed').map((m) => m.name), ['NotSupportedError', 'NotSupportedError']);
  const state = await victim.locks.query();
  assert.deepEqual(state.held.map((l) => [l.name, l.clientId]).sort(), [['frame-mine', victimFrame.clientId], ['mine', 'victim']]);
  lock.release();
  frameLock.release();
});

test(`a port speaks for ${LIMITS.framesPerConnection} frames at most; a frame beyond is refused with a NotSupportedError`, async (t) => {
  const space = await lockSpace(t);
  const many = rawClient(space, 'many');
  await until(() => many.said((m) => m.t === 'welcome'), 'welcomed');
  const count = LIMITS.framesPerConnection + 1;
  for (let i = 1; i <= count; i++) many.send({ t: 'request', token: i, name: `n${i}`, mode: 'exclusive', wait: 'wait', as: `frame-${i}` });
  await until(() => many.heard.filter((m) => m.t === 'granted' || m.t === 'failed').length === count, 'every request answered');
  const failed = many.heard.filter((m) => m.t === 'failed');
  assert.deepEqual(failed.map((m) => [m.token, m.name]), [[count, 'NotSupportedError']]);
});

test('an embedder that says bye takes its frames\' locks with it', async (t) => {
  const space = await lockSpace(t);
  const page = space.client('page');
  const other = space.client('other');
  const frame = frameOf(page);
  const held = requestHandle(frame.locks, 'bye');
  await held.granted;
  const waiter = requestHandle(other.locks, 'bye');
  await eventually(async () => (await other.locks.query()).pending.length === 1, 'other waits');
  page.backend.pageHidden(false);
  await waiter.granted;
  const state = await other.locks.query();
  assert.deepEqual(state.held.map((l) => l.clientId), ['other']);
  waiter.release();
});

test('an embedder that takes its connection over on a new port (resume) keeps its frames\' locks and requests, and drops what they no longer have', async (t) => {
  const space = await lockSpace(t);
  const page = space.client('page');
  const other = space.client('other');
  const frame = frameOf(page);
  const held = requestHandle(frame.locks, 'resumed');
  await held.granted;
  const blocker = requestHandle(other.locks, 'resumed-too');
  await blocker.granted;
  const waiting = requestHandle(frame.locks, 'resumed-too');
  const waiter = requestHandle(other.locks, 'resumed');
  await eventually(async () => (await other.locks.query()).pending.length === 2, 'the frame and other wait');
  const frameConnection = space.hub.clientIds.get(frame.clientId);
  page.backend.hubLost(); // the hub is alive: the hello on the new port resumes the connection
  await until(() => page.backend.stats.reconnects === 1 && page.backend.helloEntries === null, 'the page is back');
  const state = await other.locks.query();
  assert.deepEqual(state.held.map((l) => [l.name, l.clientId]).sort(), [['resumed', frame.clientId], ['resumed-too', 'other']]);
  assert.deepEqual(state.pending.map((l) => [l.name, l.clientId]).sort(), [['resumed', 'other'], ['resumed-too', frame.clientId]]);
  assert.equal(space.hub.clientIds.get(frame.clientId), frameConnection, 'the frame is the same client');
  assert.equal(frameConnection.parent, space.hub.clientIds.get('page'), 'its embedder is the connection on the new port');
  held.release();
  await waiter.granted;
  blocker.release();
  await waiting.granted;
  waiting.release();
  waiter.release();
  for (const h of [held, waiting, blocker, waiter]) assert.equal((await h.settled).ok, true);
});
