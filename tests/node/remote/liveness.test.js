// Liveness through the lock server: a client whose socket closes (its process killed) releases at
// once; a connection that stalls keeps its locks for `grace` and resumes them, and past `grace`
// loses them (the holder is told with an AbortError, fence() refuses its token with 409); a page that
// said it is being frozen keeps its session for grace when its socket closes (Chromium, at the thaw).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createLockManager, lockHeaders } from '../../../js/remote/node.js';
import { startServer, until, hold, named } from './support.js';
import { startStallProxy } from './stall-proxy.js';
import WebSocket from 'ws';

const HOURS = 3_600_000;

test('a Node client process SIGKILLed while holding a lock: its socket closes and the next waiter gets the lock (no grace, no ping involved)', async (t) => {
  // Pings and grace far longer than the test: only the closed socket can release the lock.
  const { manager, url } = await startServer(t, { pingInterval: HOURS, grace: HOURS });
  const child = spawn(process.execPath, [new URL('./fixtures/holder.mjs', import.meta.url).pathname, url('s1'), 'killed'], { stdio: ['ignore', 'pipe', 'inherit'] });
  t.after(() => child.kill('SIGKILL'));
  const [line] = await once(child.stdout, 'data');
  assert.match(String(line), /^held \d+/);
  const waiter = manager();
  const next = hold(waiter, 'killed');
  await until(async () => named((await waiter.query()).pending, 'killed').length === 1, 'queued behind the child');
  child.kill('SIGKILL');
  await once(child, 'exit');
  const lock = await next.granted;
  assert.ok(lock.fencingToken > Number(String(line).split(' ')[1]));
  next.release();
  assert.equal((await next.done).ok, true);
});

test('a stall shorter than grace: the server loses the connection (no pong), the client resumes its session and still holds its lock and its queue place', async (t) => {
  const { lockServer, port, manager } = await startServer(t, { pingInterval: 50, grace: HOURS });
  const proxy = await startStallProxy(t, port);
  const stalled = createLockManager({ url: `ws://127.0.0.1:${proxy.port}/locks?space=s1` });
  t.after(() => stalled.close());
  const other = manager();
  const held = hold(stalled, 'kept');
  await held.granted;
  const blocker = hold(other, 'queued');
  await blocker.granted;
  const waiting = hold(stalled, 'queued');
  await until(async () => named((await other.query()).pending, 'queued').length === 1);
  const contender = hold(other, 'kept');
  await until(async () => named((await other.query()).pending, 'kept').length === 1);
  proxy.stall();
  await until(() => lockServer.stats().detached === 1, 'the server lost the connection');
  proxy.flow();
  await until(() => lockServer.stats().detached === 0 && lockServer.stats().connections === 2, 'the client resumed');
  const state = await other.query();
  assert.equal(named(state.held, 'kept').length, 1);
  assert.notEqual(named(state.held, 'kept')[0].clientId, named(state.pending, 'kept')[0].clientId, 'still the stalled client\'s');
  // Its queue place too: granted once the blocker releases.
  blocker.release();
  await waiting.granted;
  waiting.release();
  held.release('done');
  assert.deepEqual(await held.done, { ok: true, value: 'done' });
  await contender.granted;
  contender.release();
  assert.equal((await waiting.done).ok, true);
});

test('a stall longer than grace: the lock passes on, the former holder\'s request rejects with an AbortError saying why, fence() refuses its token with 409', async (t) => {
  const { lockServer, port, manager } = await startServer(t, { pingInterval: 100, grace: 1000 }); // room for the unstalled client's pongs on a loaded machine
  const proxy = await startStallProxy(t, port);
  const stalled = createLockManager({ url: `ws://127.0.0.1:${proxy.port}/locks?space=s1` });
  t.after(() => stalled.close());
  const held = hold(stalled, 'lost');
  const oldLock = await held.granted;
  const headers = lockHeaders(oldLock);
  const fenceReq = { url: '/write?space=s1', headers };
  (await lockServer.fence(fenceReq)).done(); // current now
  const next = hold(manager(), 'lost');
  await until(async () => named((await lockServer.query('s1')).pending, 'lost').length === 1);
  proxy.stall();
  const lock = await next.granted; // after the grace ran out
  assert.ok(lock.fencingToken > oldLock.fencingToken);
  await assert.rejects(lockServer.fence(fenceReq), (error) => error.status === 409);
  proxy.flow();
  const outcome = await held.done;
  assert.equal(outcome.ok, false);
  assert.equal(outcome.name, 'AbortError');
  assert.match(outcome.message, /grace/);
  next.release();
  assert.equal((await next.done).ok, true);
});

test('a server whose event loop is held up past its ping interval reads the pongs that came meanwhile before it judges: no live client is lost', async (t) => {
  // FAULTS.md, pauses of any party: the server's own (a long task of the app, a GC pause, a
  // stopped process). A pong that reached the server while its thread was busy waits in the socket,
  // and the ping timer is due when the thread is free again: judged before that socket was read, a
  // live client's connection counted as lost (Firefox's stopped page in a clean-clone run, 1 s pings).
  const { lockServer, url } = await startServer(t, { pingInterval: 100, grace: HOURS });
  const child = spawn(process.execPath, [new URL('./fixtures/holder.mjs', import.meta.url).pathname, url('s1'), 'busy-server'], { stdio: ['ignore', 'pipe', 'inherit'] });
  t.after(() => child.kill('SIGKILL'));
  const [line] = await once(child.stdout, 'data');
  assert.match(String(line), /^held \d+/);
  // Each time: right after a ping goes to the client, this thread is busy for 3.5 ping intervals
  // (the client's pong arrives meanwhile), as an app's request handler may be.
  const ping = WebSocket.prototype.ping;
  let stalls = 0;
  WebSocket.prototype.ping = function (...args) {
    ping.apply(this, args);
    if (stalls >= 5) return;
    stalls++;
    setImmediate(() => { const end = Date.now() + 350; while (Date.now() < end) { /* busy */ } });
  };
  t.after(() => { WebSocket.prototype.ping = ping; });
  await until(() => stalls === 5, 'five stalls');
  await new Promise((resolve) => setTimeout(resolve, 300)); // two more pings, answered
  assert.equal(lockServer.stats().lost, 0, 'no connection lost to a ping judged before its pong was read');
  assert.equal(named((await lockServer.query('s1')).held, 'busy-server').length, 1);
});

test('a Node client process stays alive while its request waits, and ends by itself once idle (no close())', async (t) => {
  const { manager, url } = await startServer(t);
  const holder = manager();
  const held = hold(holder, 'idle');
  await held.granted;
  const child = spawn(process.execPath, [new URL('./fixtures/waiter.mjs', import.meta.url).pathname, url('s1'), 'idle'], { stdio: ['ignore', 'pipe', 'inherit'] });
  t.after(() => child.kill('SIGKILL'));
  let output = '';
  child.stdout.on('data', (chunk) => { output += chunk; });
  const exited = once(child, 'exit');
  await until(async () => named((await holder.query()).pending, 'idle').length === 1, 'the child waits');
  held.release();
  const [code] = await exited;
  assert.equal(code, 0);
  assert.equal(output, 'granted\n');
});

test('a holder paused (SIGSTOP) past grace: the lock passes on; resumed (SIGCONT), it learns it lost it before its callback\'s result counts', async (t) => {
  const { manager, lockServer, url } = await startServer(t, { pingInterval: 100, grace: 1000 }); // room for the unstalled client's pongs on a loaded machine
  const child = spawn(process.execPath, [new URL('./fixtures/paused-holder.mjs', import.meta.url).pathname, url('s1'), 'paused'], { stdio: ['pipe', 'pipe', 'inherit'] });
  t.after(() => child.kill('SIGKILL'));
  let output = '';
  child.stdout.on('data', (chunk) => { output += chunk; });
  await until(() => output.startsWith('held '), 'the child holds');
  const oldToken = Number(output.split(' ')[1]);
  const waiter = manager();
  const next = hold(waiter, 'paused');
  await until(async () => named((await waiter.query()).pending, 'paused').length === 1);
  child.kill('SIGSTOP');
  const lock = await next.granted; // no pong, then the grace: the lock passes on
  assert.ok(lock.fencingToken > oldToken);
  await assert.rejects(lockServer.fence({ url: '/x?space=s1', headers: { 'weblocks-lock': 'paused', 'weblocks-fencing-token': String(oldToken) } }), { status: 409 });
  child.kill('SIGCONT');
  child.stdin.write('finish\n'); // its callback ends now: too late, and it is told so
  await until(() => output.includes('settled'), 'the child\'s request settled');
  assert.match(output, /settled AbortError: .*(grace|session)/);
  next.release();
  assert.equal((await next.done).ok, true);
});

test('observeLocks across a resume: changes made while the connection was down are reported once it is back (as a difference), nothing twice', async (t) => {
  const { lockServer, port, manager } = await startServer(t, { pingInterval: 50, grace: 3_600_000 });
  const proxy = await startStallProxy(t, port);
  const watcher = createLockManager({ url: `ws://127.0.0.1:${proxy.port}/locks?space=s1` });
  t.after(() => watcher.close());
  const seen = [];
  const stop = watcher.observeLocks((snapshot, changes) => seen.push(...changes));
  const other = manager();
  const first = hold(other, 'before');
  await first.granted;
  await until(() => seen.some((c) => c.type === 'granted' && c.name === 'before'), 'saw the first grant');
  proxy.stall();
  await until(() => lockServer.stats().detached === 1, 'the server lost the watcher\'s connection');
  const second = hold(other, 'during');
  await second.granted;
  proxy.flow();
  await until(() => seen.some((c) => c.type === 'granted' && c.name === 'during'), 'saw the grant made while it was away');
  assert.equal(seen.filter((c) => c.type === 'granted' && c.name === 'before').length, 1, 'the lock held all along is not reported again');
  stop();
  first.release();
  second.release();
});

test('a page that said it is being frozen (frz) and whose socket then closes (Chromium closes it, 1001, as it thaws the page) keeps its lock for grace and resumes it; a frame after frz makes a close end the session at once again', async (t) => {
  const { manager, url, lockServer } = await startServer(t, { pingInterval: HOURS, grace: HOURS });
  const frames = (socket) => {
    const queue = [];
    const waiting = [];
    socket.on('message', (data) => { const frame = JSON.parse(String(data)); (waiting.shift() ?? ((f) => queue.push(f)))(frame); });
    return () => (queue.length ? Promise.resolve(queue.shift()) : new Promise((resolve) => waiting.push(resolve)));
  };
  const open = async () => {
    const socket = new WebSocket(url());
    socket.on('error', () => {});
    await once(socket, 'open');
    return { socket, next: frames(socket) };
  };
  const send = (socket, frame) => socket.send(JSON.stringify(frame));
  const request = { t: 'req', s: 1, a: 0, id: 1, mode: 'exclusive', wait: 'wait' };

  const first = await open();
  send(first.socket, { t: 'hello', v: 1 });
  const welcome = await first.next();
  send(first.socket, { ...request, name: 'frozen' });
  assert.equal((await first.next()).t, 'granted');
  const waiter = manager();
  const next = hold(waiter, 'frozen');
  let nextGranted = false;
  next.granted.then(() => { nextGranted = true; });
  await until(async () => named((await waiter.query()).pending, 'frozen').length === 1, 'the waiter queued');
  send(first.socket, { t: 'frz', a: 1 });
  first.socket.close(1001);
  await once(first.socket, 'close');
  await until(() => lockServer.stats().detached === 1, 'the session waits for its grace');
  assert.equal(named((await waiter.query()).held, 'frozen').length, 1, 'still held');
  assert.equal(nextGranted, false);

  const resumed = await open();
  send(resumed.socket, { t: 'hello', v: 1, resume: { session: welcome.session, secret: welcome.secret, received: 1 } });
  const again = await resumed.next();
  assert.deepEqual([again.t, again.resumed, again.clientId], ['welcome', true, welcome.clientId]);
  send(resumed.socket, { t: 'rel', s: 2, a: 1, id: 1 });
  await next.granted;
  next.release();
  assert.equal((await next.done).ok, true);
  resumed.socket.close();

  // frz, then any other frame (the page runs again): a close ends the session at once, as ever.
  const other = await open();
  send(other.socket, { t: 'hello', v: 1 });
  await other.next();
  send(other.socket, { ...request, name: 'thawed' });
  assert.equal((await other.next()).t, 'granted');
  const after = hold(waiter, 'thawed');
  await until(async () => named((await waiter.query()).pending, 'thawed').length === 1, 'the waiter queued');
  send(other.socket, { t: 'frz', a: 1 });
  send(other.socket, { t: 'ack', a: 1 });
  other.socket.close(1001);
  await after.granted;
  after.release();
  assert.equal((await after.done).ok, true);
});
