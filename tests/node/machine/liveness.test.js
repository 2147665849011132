// What ends a process's hold in a machine lock space is its socket closing, nothing else: a process
// blocked in a long synchronous task keeps its locks (no heartbeat declares it dead, unlike a
// browser context), and a hub with no client left exits by itself, leaving nothing behind.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createMachineLockManager } from '../../../js/machine/locks.js';
import { freshSpace, forkJoined, exitOf, hubPid } from './support.js';
import { LIVENESS } from '../../../js/hub/protocol.js';
import { until } from '../api/until.js';

const busyHolder = new URL('./fixtures/busy-holder.mjs', import.meta.url);
const join = new URL('./fixtures/join.mjs', import.meta.url);

test('a process blocked in a synchronous task for twice the browser hub\'s dead-after time keeps its lock until it releases it', async (t) => {
  const space = freshSpace(t);
  const locks = createMachineLockManager({ folder: space.folder, space: space.space });
  const child = forkJoined(busyHolder, [String(LIVENESS.DEAD_AFTER * 2)], space.env);
  const events = [];
  child.on('message', (message) => events.push(message));
  await until(() => events.includes('held'), 'the child holds x');
  await locks.request('x', () => { events.push('waiter granted'); });
  assert.deepEqual(events, ['held', 'releasing', 'waiter granted']);
  assert.equal(await exitOf(child), 0);
});

test('a hub with no client left exits by itself and removes its socket and pid files; the next process starts a fresh one', async (t) => {
  const space = freshSpace(t); // its hubs exit 1.5 s after their last client (WEBLOCKS_MACHINE_IDLE_MS)
  const child = forkJoined(join, [], space.env);
  await new Promise((resolve) => child.once('message', resolve));
  const pid = hubPid(space.files);
  assert.notEqual(pid, null);
  child.send('go');
  assert.equal(await exitOf(child), 0);
  await until(() => hubPid(space.files) === null && !fs.existsSync(space.files.socket), 'the idle hub is gone', 20_000);
  assert.equal(fs.existsSync(space.files.pid), false, 'no pid file: the next hub is not told a hub died');
  const locks = createMachineLockManager({ folder: space.folder, space: space.space });
  assert.equal(await locks.request('y', (lock) => lock.name), 'y');
  assert.notEqual(hubPid(space.files), pid);
  assert.doesNotMatch(fs.readFileSync(space.files.log, 'utf8'), /a previous hub was lost/);
  assert.match(fs.readFileSync(space.files.log, 'utf8'), /stopping: no process connected for 1500 ms/);
});
