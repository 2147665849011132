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

const script = new URL('./fixtures/machine-server.mjs', import.meta.url).pathname;

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
  const serverProcess = async () => {
    const env = { ...process.env, WEBLOCKS_MACHINE_DIR: folder, WEBLOCKS_MACHINE_IDLE_MS: '1500' };
    delete env.NODE_OPTIONS;
    const child = spawn(process.execPath, [script], { stdio: ['ignore', 'pipe', 'inherit'], env });
    servers.push(child);
    const [line] = await once(child.stdout, 'data');
    return { child, url: (space) => `ws://127.0.0.1:${Number(String(line).trim())}/locks?space=${space}` };
  };
  return { folder, serverProcess };
}

test('two lock server processes (backend machine) share a space: exclusion, FIFO handoff with growing tokens, spaces apart, a SIGKILLed server releases its clients\' locks', async (t) => {
  const { folder, serverProcess } = machineSetup(t);
  const [one, two] = await Promise.all([serverProcess(), serverProcess()]);
  const clients = [];
  t.after(() => { for (const c of clients) c.close(); });
  const client = (url) => { const c = createLockManager({ url }); clients.push(c); return c; };
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

  // c (on server two) holds; a waits on server one; server two dies: c's lock goes to a.
  const fourth = hold(a, 'doc');
  await until(async () => named((await a.query()).pending, 'doc').length === 1, 'a queued');
  two.child.kill('SIGKILL');
  await once(two.child, 'exit');
  const fourthLock = await fourth.granted;
  assert.ok(fourthLock.fencingToken > thirdLock.fencingToken);
  // (c itself learns it only when it reaches a server again: its server's process is gone.)
  fourth.release();
  assert.equal((await fourth.done).ok, true);
  assert.ok(fs.existsSync(path.join(folder, `${machineSpaceName('team')}.sock`)), 'the space key is a machine lock space');
});
