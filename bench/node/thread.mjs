// A worker thread of a Node scenario: loads the same contender as the main thread, then obeys
// commands: 'handoff' (acquire one exclusive lock `count` times, handing it to the other threads)
// and 'hold' (hold a lock until it is stolen).
import { parentPort, workerData, threadId } from 'node:worker_threads';
import { loadImpl } from './impls.mjs';

const { impl, shared } = workerData;
const { locks } = await loadImpl(impl);
// Shared words (bench/node/scenario.mjs resets them between rounds)
const word = new Int32Array(shared);
const HOLDER = 0;     // threadId of the last holder
const INSIDE = 1;     // callbacks running now (must never exceed 1)
const SWITCHES = 2;   // acquisitions by another thread than the previous one
const OVERLAPS = 3;   // callbacks that found another one running (mutual exclusion broken)
const ARRIVED = 4;    // start barrier
const QUEUED = 5;     // threads whose request is issued but not yet granted
const FINISHED = 6;   // threads done with their acquisitions

/** Blocks (allowed: this is a worker) until check() holds; every writer of the words notifies word 7. */
function blockUntil(check) {
  while (!check()) Atomics.wait(word, 7, Atomics.load(word, 7), 5);
}

/** The same without blocking the event loop (some contenders need it to take other threads' requests). */
async function waitUntil(check) {
  while (!check()) {
    const { async, value } = Atomics.waitAsync(word, 7, Atomics.load(word, 7), 5);
    if (async) await value;
  }
}
function bump(index, delta) {
  Atomics.add(word, index, delta);
  Atomics.add(word, 7, 1);
  Atomics.notify(word, 7);
}

/**
 * Strict handoff: the holder keeps the lock until every other unfinished thread has issued its next
 * request, so each release hands the lock to another thread (in a FIFO implementation), never back
 * to the releasing one. A holder-switch count close to the acquisition count proves it.
 */
async function critical(parties) {
  bump(QUEUED, -1);
  if (Atomics.add(word, INSIDE, 1) !== 0) Atomics.add(word, OVERLAPS, 1);
  if (Atomics.exchange(word, HOLDER, threadId) !== threadId) Atomics.add(word, SWITCHES, 1);
  // Usually true at once: the others issued their requests while an earlier holder held the lock.
  await waitUntil(() => Atomics.load(word, QUEUED) >= parties - 1 - Atomics.load(word, FINISHED));
  Atomics.sub(word, INSIDE, 1);
}

async function handoff(count, parties) {
  bump(ARRIVED, 1);
  blockUntil(() => Atomics.load(word, ARRIVED) >= parties);
  const callback = () => critical(parties);
  for (let i = 0; i < count; i++) {
    const done = locks.request('handoff', callback);
    bump(QUEUED, 1);   // request() has returned: the request is issued
    await done;
  }
  bump(FINISHED, 1);
}

parentPort.on('message', async (command) => {
  if (command.cmd === 'handoff') {
    await handoff(command.count, command.parties);
    parentPort.postMessage({ done: true });
  } else if (command.cmd === 'hold') {
    locks.request(command.name, () => {
      parentPort.postMessage({ held: true });
      return new Promise(() => {});           // held until stolen
    }).catch(() => {});                        // a stolen lock's promise rejects (AbortError)
  }
});
parentPort.postMessage({ ready: true });
