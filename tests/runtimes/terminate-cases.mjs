// What a terminated worker leaves in the lock space, right after `await worker.terminate()` (spec
// 2.6, agent termination: its locks are released and its pending requests dropped), in the three
// states Deno's own tests put it in: holding a lock while idle, waiting for one, and holding one
// while busy in synchronous code. The busy holder counts in shared memory while it runs; once the
// waiter is granted, the count must not move again (its callback must not run after the handoff).
// Prints one JSON line: { got, idle, pending, busy } with what each case saw.
// Run by tests/runtimes/run.mjs (Bun, Deno) and tests/node/host/terminate-cases.test.js (Node).
import { Worker } from 'node:worker_threads';
import { once } from 'node:events';
import { setTimeout as delay } from 'node:timers/promises';
import { locks } from '../../js/node/index.js';

const AGENT = new URL('./terminate-cases-agent.mjs', import.meta.url);
const COUNT = 0;

async function start(role, name, counter) {
  const worker = new Worker(AGENT, { workerData: { role, name, counter } });
  const [said] = await once(worker, 'message');
  return { worker, said };
}

const mine = (snapshot, name, clientIds) => ({
  held: snapshot.held.filter((lock) => lock.name === name && clientIds.has(lock.clientId)).length,
  pending: snapshot.pending.filter((lock) => lock.name === name && clientIds.has(lock.clientId)).length,
});
const clientsOf = (snapshot, name) => new Set([...snapshot.held, ...snapshot.pending].filter((lock) => lock.name === name).map((lock) => lock.clientId));

// 1. An idle holder: its lock is gone once terminate() has resolved, and the waiter is granted.
async function idleHolder() {
  const { worker } = await start('hold', 'idle');
  const before = clientsOf(await locks.query(), 'idle');
  await worker.terminate();
  const after = mine(await locks.query(), 'idle', before);
  const granted = await locks.request('idle', { ifAvailable: true }, (lock) => lock !== null);
  return { heldAfterTerminate: after.held, grantedAfter: granted };
}

// 2. A waiter: its pending request is gone once terminate() has resolved; the holder is untouched.
async function pendingRequest() {
  let release;
  const holding = locks.request('pending', () => new Promise((resolve) => { release = resolve; }));
  const { worker } = await start('wait', 'pending');
  const before = new Set((await locks.query()).pending.filter((lock) => lock.name === 'pending').map((lock) => lock.clientId));
  await worker.terminate();
  const after = mine(await locks.query(), 'pending', before);
  const ownHeld = (await locks.query()).held.filter((lock) => lock.name === 'pending').length;
  release();
  await holding;
  return { pendingBefore: before.size, pendingAfterTerminate: after.pending, holderStillHeld: ownHeld };
}

// 3. A busy holder: the waiter's grant comes only once the holder can no longer run.
async function busyHolder() {
  const counter = new Int32Array(new SharedArrayBuffer(4));
  const { worker } = await start('busy', 'busy', counter.buffer);
  const waiter = locks.request('busy', () => Atomics.load(counter, COUNT));
  // Terminated while in its loop (on a loaded machine its thread may not have run yet).
  while (Atomics.load(counter, COUNT) === 0) await delay(1);
  await worker.terminate();
  const atGrant = await waiter;
  // Long enough for a loop that still ran to count many times over (it adds about a million a second).
  await delay(200);
  return { countedBeforeGrant: atGrant > 0, ranAfterGrant: Atomics.load(counter, COUNT) !== atGrant };
}

const idle = await idleHolder();
const pending = await pendingRequest();
const busy = await busyHolder();
console.log(JSON.stringify({ got: 'terminate-cases', idle, pending, busy }));
