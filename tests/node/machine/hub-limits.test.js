// A hostile same-user client (FAULTS.md: hostile volume) cannot make the machine hub keep what it
// likes: unfinished frames are bounded across all connections (the largest goes first), the
// number of connections is bounded (one over the bound is refused with a QuotaExceededError that
// says why), and connections that never say hello are closed. Honest clients are served meanwhile.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import { createMachineLockManager } from '../../../js/machine/locks.js';
import { encodeFrame, MAX_FRAME_BYTES } from '../../../js/machine/frames.js';
import { HUB_LIMITS } from '../../../js/machine/hub-limits.js';
import { ownProcess } from '../../../js/machine/process-proof.js';
import { PROTOCOL_VERSION } from '../../../js/hub/protocol.js';
import { freshSpace, hubPid } from './support.js';

const MiB = 1 << 20;

/** The hub's resident memory, in bytes. */
function residentBytes(pid) {
  const line = fs.readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((entry) => entry.startsWith('VmRSS:'));
  return Number(line.split(/\s+/)[1]) * 1024;
}

function connect(socketPath) {
  return new Promise((resolve, reject) => {
    const socket = net.connect(socketPath);
    socket.resume(); // reading: a socket that does not read never sees the hub close it
    socket.once('connect', () => resolve(socket));
    socket.once('error', reject);
  });
}

function closedBy(socket) {
  return new Promise((resolve) => { if (socket.destroyed) resolve(); else socket.once('close', resolve); });
}

/** An honest handoff: a holds, b waits, a lets go, b gets it. */
async function handoff(a, b, name) {
  let letGo;
  const held = a.request(name, () => new Promise((resolve) => { letGo = resolve; }));
  while (letGo === undefined) await new Promise((resolve) => setTimeout(resolve, 2));
  const waited = b.request(name, (lock) => lock.name);
  letGo();
  await held;
  return waited;
}

/** Sets environment variables for the hub this test starts (it inherits them), until the test ends. */
function hubEnvironment(t, values) {
  const before = Object.fromEntries(Object.keys(values).map((key) => [key, process.env[key]]));
  Object.assign(process.env, values);
  t.after(() => { for (const [key, value] of Object.entries(before)) if (value === undefined) delete process.env[key]; else process.env[key] = value; });
}

test('eight connections each sending an unfinished 64 MiB frame: the hub keeps at most its bound for all of them, closing the largest, and honest handoffs go on', { timeout: 120_000 }, async (t) => {
  const space = freshSpace(t);
  const a = createMachineLockManager({ folder: space.folder, space: space.space });
  const b = createMachineLockManager({ folder: space.folder, space: space.space });
  assert.equal(await handoff(a, b, 'before'), 'before');
  const pid = hubPid(space.files);
  const before = residentBytes(pid);

  const body = Buffer.alloc(MiB, 0x7b);
  const sent = 60; // MiB of each frame's 64 sent, never the rest
  const sockets = await Promise.all(Array.from({ length: 8 }, () => connect(space.files.socket)));
  let peak = before;
  const flood = sockets.map(async (socket) => {
    socket.on('error', () => {});
    const header = Buffer.alloc(4);
    header.writeUInt32BE(MAX_FRAME_BYTES, 0);
    socket.write(header);
    for (let i = 0; i < sent && !socket.destroyed; i++) {
      if (!socket.write(body)) await Promise.race([new Promise((resolve) => socket.once('drain', resolve)), closedBy(socket)]);
      peak = Math.max(peak, residentBytes(pid));
    }
  });
  await Promise.all(flood);
  // Everything sent has been read by the hub (each socket is drained or closed): what it kept is all it will keep.
  peak = Math.max(peak, residentBytes(pid));
  const closed = sockets.filter((socket) => socket.destroyed || socket.readableEnded).length;
  assert.equal(await handoff(a, b, 'during'), 'during', 'an honest handoff during the flood');
  const grew = peak - before;
  t.diagnostic(`hub resident memory ${Math.round(before / MiB)} MiB before, at most ${Math.round(peak / MiB)} MiB during 8 x ${sent} MiB of unfinished frames `
    + `(bound ${HUB_LIMITS.unfinishedFrameBytes / MiB} MiB); ${closed} of 8 connections closed by the hub`);
  assert.ok(closed >= 8 - Math.floor(HUB_LIMITS.unfinishedFrameBytes / (sent * MiB)), `the hub closed connections past its bound (${closed} of 8)`);
  // (Slack above the bound: memory freed as connections are closed is not returned to the system at
  // once. Without the bound the hub keeps all 8 x 60 MiB.)
  assert.ok(grew < HUB_LIMITS.unfinishedFrameBytes + 128 * MiB, `the hub grew by ${Math.round(grew / MiB)} MiB: its bound is ${HUB_LIMITS.unfinishedFrameBytes / MiB} MiB`);
  for (const socket of sockets) socket.destroy();
  assert.match(fs.readFileSync(space.files.log, 'utf8'), /closed a connection: unfinished frames of all connections over/);
});

test('connections that never say hello are closed: the oldest beyond the bound at once, the others after their time; an honest client is served meanwhile', { timeout: 60_000 }, async (t) => {
  hubEnvironment(t, { WEBLOCKS_MACHINE_UNREGISTERED_MS: '1000' });
  const space = freshSpace(t);
  const locks = createMachineLockManager({ folder: space.folder, space: space.space });
  await locks.request('start', () => {});
  const silent = [];
  for (let i = 0; i < HUB_LIMITS.unregistered + 36; i++) silent.push(await connect(space.files.socket));
  for (const socket of silent) socket.on('error', () => {});
  assert.equal(await locks.request('meanwhile', (lock) => lock.name), 'meanwhile');
  await Promise.all(silent.map(closedBy));
  const log = fs.readFileSync(space.files.log, 'utf8');
  assert.match(log, /closed a connection that never said hello: more than 64 connections had not said hello/);
  assert.match(log, /closed a connection that never said hello: no hello within 1000 ms/);
  assert.equal(await locks.request('after', (lock) => lock.name), 'after');
});

test('a connection over the hub\'s bound is refused: its requests reject with a QuotaExceededError that says so, and the others are served', { timeout: 60_000 }, async (t) => {
  hubEnvironment(t, { WEBLOCKS_MACHINE_MAX_CONNECTIONS: '8' });
  const space = freshSpace(t);
  const locks = createMachineLockManager({ folder: space.folder, space: space.space });
  await locks.request('start', () => {});
  // Seven more clients that said hello: eight connections, the bound.
  const others = [];
  for (let i = 0; i < 7; i++) {
    const socket = await connect(space.files.socket);
    socket.write(encodeFrame({ t: 'hello', v: PROTOCOL_VERSION, clientId: `other-${i}`, key: `key-${i}`, lostHub: null, reclaim: [], proc: ownProcess() }));
    others.push(socket);
  }
  const refused = createMachineLockManager({ folder: space.folder, space: space.space });
  const error = await refused.request('x', () => 'granted').then(() => null, (failure) => failure);
  assert.equal(error?.name, 'QuotaExceededError');
  assert.match(error.message, /serves at most 8 connections at once/);
  assert.equal(await locks.request('x', (lock) => lock.name), 'x', 'the clients it serves are served');
  for (const socket of others) socket.destroy();
  await Promise.all(others.map(closedBy));
  // The hub frees a connection's place when it handles its close, a moment after ours: a client
  // refused in that moment fails for good, so each attempt is a new one.
  let answer;
  for (let attempt = 0; attempt < 100 && answer !== 'y'; attempt++) {
    const fresh = createMachineLockManager({ folder: space.folder, space: space.space });
    answer = await fresh.request('y', (lock) => lock.name).catch((failure) => failure.name);
    if (answer !== 'y') await new Promise((resolve) => setTimeout(resolve, 20));
  }
  assert.equal(answer, 'y', 'a client is served once connections are free again');
});
