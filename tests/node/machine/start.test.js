// Starting and finding a machine lock space's hub: processes that start at once reach one hub;
// hubs that start at once leave exactly one serving; a dead hub's socket file is replaced, and its
// successor takes over from the journal what the living clients held and waited for, in order.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import { spawn, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { createMachineLockManager } from '../../../js/machine/locks.js';
import { freshSpace, forkJoined, exitOf, hubPid, killHub } from './support.js';
import { createProcessHost } from './process-host.js';
import { until } from '../api/until.js';

const HUB = fileURLToPath(new URL('../../../js/machine/hub-process.js', import.meta.url));
const join = new URL('./fixtures/join.mjs', import.meta.url);
const staleHub = new URL('./fixtures/stale-hub.mjs', import.meta.url);

const servingLines = (files) => fs.readFileSync(files.log, 'utf8').split('\n').filter((line) => line.includes(' info serving lock space'));
const managerOf = (space) => createMachineLockManager({ folder: space.folder, space: space.space });

function refused(socketPath) {
  return new Promise((resolve) => {
    const socket = net.connect(socketPath);
    socket.once('connect', () => { socket.destroy(); resolve(false); });
    socket.once('error', (error) => resolve(error.code === 'ECONNREFUSED'));
  });
}

/** A hub that listened and wrote its pid file, then was SIGKILLed: its socket file stays behind. */
async function leaveStaleSocket(space) {
  const dead = fork(staleHub, [space.files.socket, space.files.pid], { stdio: 'ignore' });
  await new Promise((resolve) => dead.once('message', resolve));
  dead.kill('SIGKILL');
  await exitOf(dead);
}

/** Starts `count` hub processes at once; resolves their exit codes once all but the serving one ended. */
async function startHubsAtOnce(space, count) {
  // The winner must not go idle while the losers are still exiting (1.5 s in these tests: under a
  // loaded CI that came first, and its pid file was gone when read): it stays up, and t.after kills it.
  const env = { ...space.env, WEBLOCKS_MACHINE_IDLE_MS: '120000' };
  const hubs = Array.from({ length: count }, () => spawn(process.execPath, [HUB], { env, stdio: 'ignore' }));
  const exits = hubs.map(exitOf);
  await until(() => hubs.filter((hub) => hub.exitCode !== null).length === count - 1, `${count - 1} of ${count} hubs ended`);
  const serving = hubs.filter((hub) => hub.exitCode === null);
  return { serving, codes: hubs.filter((hub) => hub.exitCode !== null).map((hub) => hub.exitCode), exits };
}

test('six processes that start at once in an empty lock space folder all reach one hub', async (t) => {
  const space = freshSpace(t);
  const children = Array.from({ length: 6 }, () => forkJoined(join, [], space.env));
  await Promise.all(children.map((child) => new Promise((resolve) => child.once('message', resolve))));
  const state = await managerOf(space).query();
  const holders = state.held.filter((lock) => lock.name === 'together');
  assert.equal(new Set(holders.map((lock) => lock.clientId)).size, 6, 'one lock space holds all six shared locks');
  assert.equal(servingLines(space.files).length, 1, 'one hub served');
  for (const child of children) child.send('go');
  await Promise.all(children.map(exitOf));
});

test('five hubs started at once: exactly one serves, the others exit', async (t) => {
  const space = freshSpace(t);
  fs.mkdirSync(space.folder, { recursive: true });
  const { serving, codes } = await startHubsAtOnce(space, 5);
  assert.equal(serving.length, 1);
  assert.deepEqual(codes, [0, 0, 0, 0]);
  assert.equal(servingLines(space.files).length, 1);
  assert.equal(hubPid(space.files), serving[0].pid);
  assert.equal(await managerOf(space).request('x', (lock) => lock.name), 'x');
});

test('the socket file of a SIGKILLed hub is replaced by exactly one of five racing hubs', async (t) => {
  const space = freshSpace(t);
  await leaveStaleSocket(space);
  assert.equal(await refused(space.files.socket), true, 'a stale socket file: it refuses connections');
  const { serving, codes } = await startHubsAtOnce(space, 5);
  assert.equal(serving.length, 1);
  assert.deepEqual(codes, [0, 0, 0, 0]);
  assert.equal(hubPid(space.files), serving[0].pid);
  assert.equal(await managerOf(space).request('x', (lock) => lock.name), 'x');
});

test('a process that finds only a stale socket file starts a new hub by itself', async (t) => {
  const space = freshSpace(t);
  await leaveStaleSocket(space);
  const child = forkJoined(join, [], space.env);
  await new Promise((resolve) => child.once('message', resolve));
  assert.equal((await managerOf(space).query()).held.length, 1);
  child.send('go');
  assert.equal(await exitOf(child), 0);
});

test('the hub SIGKILLed under a holder and two waiters of other processes: the holder keeps its lock, the waiters their order, a newcomer comes after them', async (t) => {
  const space = freshSpace(t);
  const host = createProcessHost(space);
  t.after(() => host.dispose());
  const [holder, first, second, newcomer] = await Promise.all([host.openContext(), host.openContext(), host.openContext(), host.openContext()]);
  const held = holder.request('x');
  await held.granted;
  const order = [];
  const w1 = first.request('x');
  w1.granted.then(() => order.push('first'));
  const locks = host.locks;
  await waitForPending(locks, 1);
  const w2 = second.request('x');
  w2.granted.then(() => order.push('second'));
  await waitForPending(locks, 2);
  const before = await locks.query();
  const oldHub = killHub(space.files);
  await until(() => hubPid(space.files) !== null && hubPid(space.files) !== oldHub, 'a new hub serves');
  const late = newcomer.request('x');
  late.granted.then(() => order.push('newcomer'));
  const after = await locks.query();
  assert.deepEqual(after.held, before.held, 'the holder took its lock back');
  assert.deepEqual(after.pending.slice(0, 2), before.pending, 'the waiters kept their order');
  assert.deepEqual(order, [], 'nothing was granted while the holder holds');
  held.release();
  await w1.granted; w1.release();
  await w2.granted; w2.release();
  await late.granted; late.release();
  assert.deepEqual(order, ['first', 'second', 'newcomer']);
  for (const handle of [held, w1, w2, late]) assert.equal((await handle.settled).ok, true);
});

test('a worker thread terminated inside a live process has its lock released, and threads are clients of their own', async (t) => {
  const space = freshSpace(t);
  const locks = managerOf(space);
  const worker = new Worker(`
    import { parentPort, workerData } from 'node:worker_threads';
    import { createMachineLockManager } from ${JSON.stringify(new URL('../../../js/machine/locks.js', import.meta.url).href)};
    createMachineLockManager(workerData).request('x', () => { parentPort.postMessage('held'); return new Promise(() => {}); });
    setInterval(() => {}, 1000); // alive until terminated (a held lock alone does not keep a thread alive)
  `, { eval: true, workerData: { folder: space.folder, space: space.space } });
  await new Promise((resolve) => worker.once('message', resolve));
  const waiter = locks.request('x', () => 'granted');
  const state = await locks.query();
  assert.equal(state.held.length, 1);
  assert.equal(state.pending.length, 1);
  assert.notEqual(state.held[0].clientId, state.pending[0].clientId);
  assert.ok(state.held[0].clientId.startsWith(`node-${process.pid}-${worker.threadId}-`), `the clientId names the process and the thread: ${state.held[0].clientId}, process ${process.pid}, thread ${worker.threadId}`);
  await worker.terminate();
  assert.equal(await waiter, 'granted');
});

async function waitForPending(locks, count) {
  for (;;) {
    if ((await locks.query()).pending.length === count) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
