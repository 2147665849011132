// Backend 'process' keeps locks in the server process: a server SIGKILLed and started again on the
// same port has none of them. Its clients are told (the resume is refused: close code 4004): the
// held request rejects with an AbortError, nothing is held twice, and the next request works on the
// new server. And a release sent while the connection was down is sent again on the resume, once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createLockManager } from '../../../js/remote/node.js';
import { startServer, until, hold, named } from './support.js';
import { startStallProxy } from './stall-proxy.js';

const serverScript = new URL('./fixtures/server.mjs', import.meta.url).pathname;

async function startServerProcess(t, port = 0) {
  const child = spawn(process.execPath, [serverScript, String(port)], { stdio: ['ignore', 'pipe', 'inherit'] });
  t.after(() => child.kill('SIGKILL'));
  const [line] = await once(child.stdout, 'data');
  return { child, port: Number(String(line).trim()) };
}

test('a server SIGKILLed and restarted (backend process): the holder is told its lock is gone (AbortError), then works on the new server', async (t) => {
  const first = await startServerProcess(t);
  const locks = createLockManager({ url: `ws://127.0.0.1:${first.port}/locks` });
  t.after(() => locks.close());
  const held = hold(locks, 'doc');
  const oldLock = await held.granted;
  first.child.kill('SIGKILL');
  await once(first.child, 'exit');
  await startServerProcess(t, first.port);
  const outcome = await held.done;
  assert.equal(outcome.ok, false);
  assert.equal(outcome.name, 'AbortError');
  assert.match(outcome.message, /grace|lost|closed/);
  const lock = await locks.request('doc', (l) => l);
  assert.ok(lock.fencingToken > oldLock.fencingToken, 'tokens grow across the restart (clock-based start)');
  assert.deepEqual(await locks.query(), { held: [], pending: [] });
});

test('a release made while the connection is stalled reaches the server once, on the resume: the waiter is granted, the holder\'s request resolves', async (t) => {
  const { lockServer, port, manager } = await startServer(t, { pingInterval: 50, grace: 3_600_000 });
  const proxy = await startStallProxy(t, port);
  const stalled = createLockManager({ url: `ws://127.0.0.1:${proxy.port}/locks?space=s1` });
  t.after(() => stalled.close());
  const held = hold(stalled, 'doc');
  await held.granted;
  const next = hold(manager(), 'doc');
  await until(async () => named((await lockServer.query('s1')).pending, 'doc').length === 1);
  proxy.stall();
  held.release('mine'); // its frame waits in the stalled path, and dies with the server's end of it
  await until(() => lockServer.stats().detached === 1, 'the server lost the connection');
  assert.equal(named((await lockServer.query('s1')).held, 'doc').length, 1, 'still held: the release has not arrived');
  proxy.flow();
  await next.granted;
  assert.deepEqual(await held.done, { ok: true, value: 'mine' });
  next.release();
  assert.equal((await next.done).ok, true);
  assert.equal(lockServer.stats().sessions, 2);
});
