// Backend 'machine': two lock server processes on this host share each space's locks through the
// machine lock space (one hub per space key): a client of one server excludes a client of the
// other, the lock passes between them in order with growing fencing tokens, spaces stay apart, and
// a server SIGKILLed while its client holds a lock releases it to a client of the other server.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createLockManager } from '../../../js/remote/node.js';
import { machineSpaceName } from '../../../js/server/machine-locks.js';
import { until, hold, named } from './support.js';
import { startStallProxy } from './stall-proxy.js';
import WebSocket from 'ws';
import { CLOSE } from '../../../js/remote/protocol.js';

const script = new URL('./fixtures/machine-server.mjs', import.meta.url).pathname;

/** `client(url)`: a remote LockManager, closed after test `t`. */
function clientsClosedAfter(t) {
  const clients = [];
  t.after(() => { for (const c of clients) c.close(); });
  return (url) => { const c = createLockManager({ url }); clients.push(c); return c; };
}

/** A fresh machine lock space folder, and the server processes on it; all removed after the test (servers first). */
function machineSetup(t) {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'wl-remote-'));
  const servers = [];
  t.after(async () => {
    // The servers first (a live one would start its hubs again), then the hubs they started.
    await Promise.all(servers.map(async (child) => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
        await once(child, 'exit');
      }
    }));
    for (const file of fs.readdirSync(folder).filter((f) => f.endsWith('.pid'))) {
      try { process.kill(Number(fs.readFileSync(path.join(folder, file), 'utf8')), 'SIGKILL'); } catch { /* gone */ }
    }
    fs.rmSync(folder, { recursive: true, force: true });
  });
  /** A server process; `port` (0: any), `grace` in ms (its sessions' locks outlive it that long). */
  const serverProcess = async ({ port = 0, grace = 3_600_000 } = {}) => {
    const env = { ...process.env, WEBLOCKS_MACHINE_DIR: folder, WEBLOCKS_MACHINE_IDLE_MS: '1500' };
    delete env.NODE_OPTIONS;
    const child = spawn(process.execPath, [script, String(port), String(grace)], { stdio: ['ignore', 'pipe', 'inherit'], env });
    servers.push(child);
    const [line] = await once(child.stdout, 'data');
    const listening = Number(String(line).trim());
    return { child, port: listening, url: (space) => `ws://127.0.0.1:${listening}/locks?space=${space}` };
  };
  return { folder, serverProcess };
}

test('two lock server processes (backend machine) share a space: exclusion, FIFO handoff with growing tokens, spaces apart, a SIGKILLed server\'s clients keep their locks for its grace, then they pass on', async (t) => {
  const { folder, serverProcess } = machineSetup(t);
  const [one, two] = await Promise.all([serverProcess(), serverProcess({ grace: 4000 })]);
  const client = clientsClosedAfter(t);
  const a = client(one.url('team'));
  const b = client(two.url('team'));
  const c = client(two.url('team'));
  const other = client(one.url('elsewhere'));

  const first = hold(a, 'doc');
  const firstLock = await first.granted;
  assert.ok(Number.isSafeInteger(firstLock.fencingToken));
  assert.equal(await b.request('doc', { ifAvailable: true }, (lock) => lock), null, 'held through the other server');
  assert.equal(await other.request('doc', { ifAvailable: true }, (lock) => lock?.name), 'doc', 'another space');
  const second = hold(b, 'doc');
  await until(async () => named((await c.query()).pending, 'doc').length === 1, 'b queued');
  const third = hold(c, 'doc');
  await until(async () => named((await a.query()).pending, 'doc').length === 2, 'c queued behind b');
  first.release();
  const secondLock = await second.granted;
  assert.ok(secondLock.fencingToken > firstLock.fencingToken);
  second.release();
  const thirdLock = await third.granted;
  assert.ok(thirdLock.fencingToken > secondLock.fencingToken);

  // c (on server two) holds; a waits on server one; server two dies: c's lock is kept for the
  // grace (c may resume on a server started in its place: restart.test.js), then goes to a.
  const fourth = hold(a, 'doc');
  await until(async () => named((await a.query()).pending, 'doc').length === 1, 'a queued');
  two.child.kill('SIGKILL');
  await once(two.child, 'exit');
  const stillHeld = named((await a.query()).held, 'doc');
  assert.equal(stillHeld.length, 1, 'kept for the grace');
  assert.notEqual(stillHeld[0].clientId, undefined);
  const fourthLock = await fourth.granted;
  assert.ok(fourthLock.fencingToken > thirdLock.fencingToken);
  // (c itself learns it only when it reaches a server again: its server's process is gone.)
  fourth.release();
  assert.equal((await fourth.done).ok, true);
  assert.ok(fs.existsSync(path.join(folder, `${machineSpaceName('team')}.sock`)), 'the space key is a machine lock space');
});

test('a server SIGKILLed and started again on its port (backend machine): its clients resume their sessions there, holders keep their locks and tokens, waiters their places, no one else is granted meanwhile', async (t) => {
  const { serverProcess } = machineSetup(t);
  const one = await serverProcess();
  const other = await serverProcess(); // a second server of the space, alive throughout
  const client = clientsClosedAfter(t);
  const a = client(one.url('team'));
  const b = client(one.url('team'));
  const w = client(other.url('team'));

  const held = hold(a, 'doc');
  const heldLock = await held.granted;
  const shared = hold(a, 'config', { mode: 'shared' });
  const sharedLock = await shared.granted;
  const waiting = hold(b, 'doc');
  await until(async () => named((await w.query()).pending, 'doc').length === 1, 'b queued');
  const before = await w.query();

  one.child.kill('SIGKILL');
  await once(one.child, 'exit');
  // Through the other server, meanwhile: the locks are kept for the grace (an hour here), no one
  // is granted them, and b's request keeps its place ahead of a later one.
  assert.equal(await w.request('doc', { ifAvailable: true }, (lock) => lock), null, 'doc still held');
  assert.equal(await w.request('config', { ifAvailable: true }, (lock) => lock), null, 'config still held (exclusive asked)');
  const late = hold(w, 'doc');
  await until(async () => named((await w.query()).pending, 'doc').length === 2, 'w queued behind b');

  await serverProcess({ port: one.port });
  // a and b reconnect by themselves; a's query answers only once its session is back.
  const after = await a.query();
  assert.deepEqual(named(after.held, 'doc'), named(before.held, 'doc'), 'a still holds doc, as the same client');
  assert.deepEqual(named(after.held, 'config'), named(before.held, 'config'));
  assert.deepEqual(named(after.pending, 'doc').map((info) => info.clientId), [...named(before.pending, 'doc'), ...named((await w.query()).pending, 'doc').slice(1)].map((info) => info.clientId), 'b first, then w');

  held.release('a-done');
  const waitingLock = await waiting.granted;
  assert.ok(waitingLock.fencingToken > heldLock.fencingToken, 'tokens grow across the restart');
  assert.deepEqual(await held.done, { ok: true, value: 'a-done' }, 'a\'s request resolves with its callback\'s result');
  waiting.release();
  const lateLock = await late.granted;
  assert.ok(lateLock.fencingToken > waitingLock.fencingToken);
  late.release();
  shared.release();
  assert.equal((await shared.done).ok, true);
  assert.equal((await waiting.done).ok, true);
  assert.ok(Number.isSafeInteger(sharedLock.fencingToken));
});

test('a server SIGKILLed and started again only after its grace (backend machine): the locks went to the next waiter, and the holder is told it lost its lock (AbortError)', async (t) => {
  const { serverProcess } = machineSetup(t);
  const one = await serverProcess({ grace: 1000 });
  const other = await serverProcess();
  const client = clientsClosedAfter(t);
  const a = client(one.url('team'));
  const w = client(other.url('team'));
  const held = hold(a, 'doc');
  const heldLock = await held.granted;
  const next = hold(w, 'doc');
  await until(async () => named((await w.query()).pending, 'doc').length === 1, 'w queued');
  one.child.kill('SIGKILL');
  await once(one.child, 'exit');
  const nextLock = await next.granted; // once the grace ran out
  assert.ok(nextLock.fencingToken > heldLock.fencingToken);
  await serverProcess({ port: one.port });
  const outcome = await held.done;
  assert.equal(outcome.ok, false);
  assert.equal(outcome.name, 'AbortError');
  assert.match(outcome.message, /grace|server/);
  next.release();
  assert.equal((await next.done).ok, true);
});

test('a server SIGKILLed while its clients reach it through a proxy that then sends them to another server of the space (backend machine): the other server takes their sessions over, locks and places kept', async (t) => {
  const { serverProcess } = machineSetup(t);
  const [one, two] = await Promise.all([serverProcess(), serverProcess()]);
  const proxy = await startStallProxy(t, one.port);
  const client = clientsClosedAfter(t);
  const viaProxy = `ws://127.0.0.1:${proxy.port}/locks?space=team`;
  const a = client(viaProxy);
  const b = client(viaProxy);
  const watcher = client(two.url('team'));
  const held = hold(a, 'doc');
  const heldLock = await held.granted;
  const waiting = hold(b, 'doc');
  await until(async () => named((await watcher.query()).pending, 'doc').length === 1, 'b queued');
  const before = await watcher.query();
  proxy.retarget(two.port);
  one.child.kill('SIGKILL');
  await once(one.child, 'exit');
  const after = await a.query(); // answered once a's session is back, on server two
  assert.deepEqual(after, before, 'the same clients hold and wait');
  held.release('done');
  const waitingLock = await waiting.granted;
  assert.ok(waitingLock.fencingToken > heldLock.fencingToken);
  assert.deepEqual(await held.done, { ok: true, value: 'done' });
  waiting.release();
  assert.equal((await waiting.done).ok, true);
});

test('a release and an abort made while the server is down are done by the server started in its place (backend machine): the holder\'s request resolves, the aborted one rejects, the next waiter is granted', async (t) => {
  const { serverProcess } = machineSetup(t);
  const one = await serverProcess();
  const other = await serverProcess();
  const client = clientsClosedAfter(t);
  const a = client(one.url('team'));
  const b = client(one.url('team'));
  const w = client(other.url('team'));
  const held = hold(a, 'doc');
  const heldLock = await held.granted;
  const controller = new AbortController();
  const aborted = hold(b, 'doc', { signal: controller.signal });
  await until(async () => named((await w.query()).pending, 'doc').length === 1, 'b queued');
  const next = hold(w, 'doc');
  await until(async () => named((await w.query()).pending, 'doc').length === 2, 'w queued behind b');
  one.child.kill('SIGKILL');
  await once(one.child, 'exit');
  held.release('released while down');
  controller.abort();
  // (the abort rejects b's request at once, as the spec says; the server learns of it on the resume)
  assert.equal((await aborted.done).name, 'AbortError');
  assert.equal(await w.request('doc', { ifAvailable: true }, (lock) => lock), null, 'still held while the server is down');
  await serverProcess({ port: one.port });
  assert.deepEqual(await held.done, { ok: true, value: 'released while down' });
  const nextLock = await next.granted;
  assert.ok(nextLock.fencingToken > heldLock.fencingToken);
  next.release();
  assert.equal((await next.done).ok, true);
  assert.deepEqual(named((await b.query()).pending, 'doc'), []);
});

test('a forged adoption (backend machine): a resume with an account for a session of a dead server but the wrong secret, for a session never had, or with a malformed account, is refused and takes nothing', async (t) => {
  const { serverProcess } = machineSetup(t);
  const one = await serverProcess();
  const two = await serverProcess();
  const clients = [];
  t.after(() => { for (const c of clients) c.close(); });
  const a = createLockManager({ url: one.url('team') });
  const w = createLockManager({ url: two.url('team') });
  clients.push(a, w);
  const held = hold(a, 'doc');
  await held.granted;
  const [{ clientId }] = (await w.query()).held;
  one.child.kill('SIGKILL');
  await once(one.child, 'exit');
  const session = clientId.replace(/^remote-/, '');
  const account = { requests: [{ id: 1, name: 'doc', mode: 'exclusive', wait: 'wait', state: 'held' }], queries: [], observers: [] };
  const attempt = async (resume) => {
    const socket = new WebSocket(two.url('team'));
    socket.on('error', () => {});
    await once(socket, 'open');
    socket.send(JSON.stringify({ t: 'hello', v: 1, resume }));
    return (await once(socket, 'close'))[0];
  };
  assert.equal(await attempt({ session, secret: 'guessed', received: 0, sent: 1, state: account }), CLOSE.sessionGone, 'wrong secret');
  assert.equal(await attempt({ session: '00000000-0000-4000-8000-000000000000', secret: 'x', received: 0, sent: 1, state: account }), CLOSE.sessionGone, 'never had');
  assert.equal(await attempt({ session, secret: 'x', received: 0, sent: 1, state: { requests: [{ id: 'one' }], queries: [], observers: [] } }), CLOSE.malformed, 'malformed account');
  assert.equal(await attempt({ session, secret: 'x', received: 0, sent: 1, state: { requests: [], queries: [1, 1], observers: [] } }), CLOSE.malformed, 'an id twice');
  // The session's lock is still kept for its grace (an hour here), by its own client.
  assert.deepEqual((await w.query()).held, [{ name: 'doc', mode: 'exclusive', clientId }]);
  assert.equal(await w.request('doc', { ifAvailable: true }, (lock) => lock), null);
});
