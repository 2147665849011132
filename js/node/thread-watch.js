// Thread death (spec 2.6, agent termination) in the Node host.
//
// A thread's clients are closed only once the thread can no longer run JavaScript, and that is
// learned from the runtime, never guessed:
// - Every thread that loads the package listens to process.on('worker'), which Node emits in the
//   creating thread for every Worker it creates, whatever class made it (a wrapped one, one
//   captured before the package loaded, a subclass). On that Worker's 'exit' (emitted after the
//   thread has been joined) the thread is gone. Deno (2.4 on) and Bun do the same; Bun also for
//   its Web Workers, whose 'close' event says the same.
// - A thread that dies takes its workers with it: Node stops and joins every worker of a thread
//   before that thread ends, so when a thread's 'exit' is seen, all its descendants are gone too.
//   Their own 'exit' listeners lived in threads that are gone, so every thread records itself
//   and its nearest ancestor that loaded the package in a shared table, and the closer closes
//   the whole recorded subtree.
// - A dying thread's own process 'exit' listeners run while its workers still run: it closes
//   its own client there, and never theirs.
// A thread may die inside an engine call, holding the engine mutex: closing its owner takes the
// mutex over and rolls the half-done call back (docs/engine.md), so nothing waits for it. Its
// closer may itself be blocked in an engine call, waiting for that mutex, unable to see the
// 'exit': so each record also holds the thread's kernel id, and a waiter that finds the holder's
// thread gone from the kernel's list frees the mutex itself (recordedThreadIsGone).
import workerThreads from 'node:worker_threads';
import { currentOsThreadId, osThreadIsGone, osThreadsVisible } from './os-thread.js';

const ANCESTOR_KEY = 'weblocks-wasm/ancestor-thread@1';

// The thread table: THREAD_SLOTS records of 3 int32 (a SharedArrayBuffer of THREAD_TABLE_BYTES):
const THREAD = 0;    // threadId; 0 = free slot; -threadId while being written
const ANCESTOR = 1;  // nearest ancestor thread that had loaded the package when it was created (-1: none)
const OS_THREAD = 2; // the kernel's id of the thread (os-thread.js), 0 if unknown
const WORDS = 3;
export const THREAD_SLOTS = 8192;
// After the records: a ring of the threadIds of the latest Workers created by threads that watch
// them (a cursor word, then WATCHED_SLOTS ids), read by each new thread to learn whether anyone
// will see its end (threadIsWatched).
const WATCHED_SLOTS = 4096;
const WATCHED_CURSOR = THREAD_SLOTS * WORDS;
// Then one word: the period of the latest look at the kernel's thread list (claimSweep).
const SWEPT = WATCHED_CURSOR + 1 + WATCHED_SLOTS;
export const THREAD_TABLE_BYTES = (SWEPT + 1) * 4;

/** Records this thread and its nearest package-loading ancestor; false when the table is full. */
export function registerThisThread(tableBuffer) {
  const table = new Int32Array(tableBuffer);
  const threadId = workerThreads.threadId;
  const ancestor = workerThreads.getEnvironmentData(ANCESTOR_KEY);
  // Workers created by this thread from now on inherit this thread as their ancestor.
  workerThreads.setEnvironmentData(ANCESTOR_KEY, threadId);
  if (threadId === 0) return true; // the main thread: its end is the process's
  for (let slot = 0; slot < THREAD_SLOTS; slot++) {
    const at = slot * WORDS;
    if (Atomics.load(table, at + THREAD) !== 0) continue;
    // Claimed with -threadId, so that a thread that dies half-way leaves a record its closer finds.
    if (Atomics.compareExchange(table, at + THREAD, 0, -threadId) !== 0) continue;
    Atomics.store(table, at + ANCESTOR, typeof ancestor === 'number' ? ancestor : -1);
    Atomics.store(table, at + OS_THREAD, currentOsThreadId());
    Atomics.store(table, at + THREAD, threadId);
    return true;
  }
  return false;
}

/**
 * A thread is gone (its 'exit' was seen): returns it and every recorded thread it created,
 * directly or through threads that did not load the package. All of them are gone (Node joins a
 * thread's workers before the thread ends). Their records stay until forgetThread(), after their
 * clients are closed: a closer that dies before that leaves them to the closer of its own subtree.
 */
export function goneSubtree(tableBuffer, threadId) {
  const table = new Int32Array(tableBuffer);
  const gone = [threadId];
  for (let next = 0; next < gone.length; next++) {
    const parent = gone[next];
    for (let slot = 0; slot < THREAD_SLOTS; slot++) {
      const at = slot * WORDS;
      const id = Atomics.load(table, at + THREAD);
      if (id > 0 && Atomics.load(table, at + ANCESTOR) === parent && !gone.includes(id)) gone.push(id);
    }
  }
  return gone;
}

/** Whether a recorded thread has `threadId` as its ancestor. */
export function hasRecordedChildren(tableBuffer, threadId) {
  const table = new Int32Array(tableBuffer);
  for (let slot = 0; slot < THREAD_SLOTS; slot++) {
    const at = slot * WORDS;
    if (Atomics.load(table, at + THREAD) > 0 && Atomics.load(table, at + ANCESTOR) === threadId) return true;
  }
  return false;
}

/**
 * Frees the records of a thread whose clients are closed (the half-written one too). Only once
 * no recorded thread has it as its ancestor: its record is how a closer that takes over (after
 * this closer died) reaches the threads below it.
 */
export function forgetThread(tableBuffer, threadId) {
  const table = new Int32Array(tableBuffer);
  for (let slot = 0; slot < THREAD_SLOTS; slot++) {
    const at = slot * WORDS;
    const id = Atomics.load(table, at + THREAD);
    if (id === threadId || id === -threadId) Atomics.compareExchange(table, at + THREAD, id, 0);
  }
}

/**
 * Whether thread `threadId` has ended, from the kernel (os-thread.js): false when unknown (not
 * recorded, or no /proc). Readable by a thread blocked in a synchronous call, which cannot see any
 * Worker's 'exit' until it returns.
 */
export function recordedThreadIsGone(tableBuffer, threadId) {
  const table = new Int32Array(tableBuffer);
  for (let slot = 0; slot < THREAD_SLOTS; slot++) {
    const at = slot * WORDS;
    if (Atomics.load(table, at + THREAD) === threadId) return osThreadIsGone(Atomics.load(table, at + OS_THREAD));
  }
  return false;
}

/** Whether the kernel's thread list says when a recorded thread has stopped (Linux /proc). */
export function threadDeathsVisible() {
  return osThreadsVisible() && currentOsThreadId() !== 0;
}

/**
 * Whether this thread is the one to look at the kernel's thread list in the period `period` (a
 * small integer that grows with time): one thread of the process per period does, however many
 * wait.
 */
export function claimSweep(tableBuffer, period) {
  const table = new Int32Array(tableBuffer);
  const last = Atomics.load(table, SWEPT);
  return last !== period && Atomics.compareExchange(table, SWEPT, last, period) === last;
}

/**
 * Recorded threads (other than this one) that the kernel says have stopped, whoever created them
 * and whether or not anyone saw their end.
 */
export function goneRecordedThreads(tableBuffer) {
  const table = new Int32Array(tableBuffer);
  const gone = [];
  for (let slot = 0; slot < THREAD_SLOTS; slot++) {
    const at = slot * WORDS;
    const id = Atomics.load(table, at + THREAD);
    if (id > 0 && id !== workerThreads.threadId && osThreadIsGone(Atomics.load(table, at + OS_THREAD))) gone.push(id);
  }
  return gone;
}

// Where the kernel cannot be asked, the runtime's report is the only word there is. Deno reports a
// terminated Worker ended (terminate() resolves) while it still runs (measured: a busy worker ran
// its loop on for seconds); Node's and Bun's 'exit' came after the kernel thread had gone in every
// measurement (for Bun that is measured only, not known from its code: EXIT_AFTER_JOIN).
const REPORTED_END_IS_STOP = process.versions.deno === undefined;
// Node emits a Worker's 'exit' from Worker::JoinThread, after uv_thread_join has returned: the
// thread has finished. (Bun's 'exit', and the 'close' of its Web Workers, are not known to come
// only after a join: there the kernel decides.)
const EXIT_AFTER_JOIN = process.versions.deno === undefined && process.versions.bun === undefined;

/**
 * Whether thread `threadId`, reported ended, can no longer run anything: the kernel no longer
 * lists it (where its kernel id is recorded), else the runtime's report where that is proof. A
 * thread that never recorded itself has no clients to close. `reported`: its own Worker said it
 * ended ('exit'). Where that is proof (Node: the thread has been joined) it is taken at once, not
 * after the kernel too has stopped listing the thread: Linux wakes a join before it
 * removes the thread's task, and a release made in between would hand the thread's pending
 * request the lock. (Why a clean-clone run once found a request pending at terminate() holding
 * the lock after terminate() resolved is not known for sure: this gap was not caught here, 0 of
 * 200 'exit's found the thread still listed.)
 */
export function recordedThreadHasStopped(tableBuffer, threadId, reported = false) {
  if (reported && EXIT_AFTER_JOIN) return true;
  const table = new Int32Array(tableBuffer);
  for (let slot = 0; slot < THREAD_SLOTS; slot++) {
    const at = slot * WORDS;
    const id = Atomics.load(table, at + THREAD);
    if (id !== threadId && id !== -threadId) continue;
    const osThread = Atomics.load(table, at + OS_THREAD);
    if (osThread > 0 && osThreadsVisible()) return osThreadIsGone(osThread);
    return REPORTED_END_IS_STOP;
  }
  return true;
}

/** Threads recorded in the table (for tests and diagnostics). */
export function recordedThreads(tableBuffer) {
  const table = new Int32Array(tableBuffer);
  const ids = [];
  for (let slot = 0; slot < THREAD_SLOTS; slot++) {
    const id = Atomics.load(table, slot * WORDS + THREAD);
    if (id !== 0) ids.push(Math.abs(id));
  }
  return ids;
}

/**
 * Calls `onThreadGone(threadId)` in this thread after each Worker this thread creates from now
 * on has exited, however it ended and whatever Worker class created it; marks each such Worker
 * as watched in the table.
 */
export function watchWorkers(tableBuffer, onThreadGone) {
  const table = new Int32Array(tableBuffer);
  process.on('worker', (worker) => {
    const childId = worker.threadId;
    if (!(childId > 0)) return;
    const at = Atomics.add(table, WATCHED_CURSOR, 1) % WATCHED_SLOTS;
    Atomics.store(table, WATCHED_CURSOR + 1 + at, childId);
    whenGone(worker, () => onThreadGone(childId));
  });
}

// Node's (and Deno's, and Bun's node:worker_threads) Worker says 'exit' once the thread is joined;
// Bun also emits 'worker' for a Web Worker, which says 'close' once it has ended.
function whenGone(worker, gone) {
  if (typeof worker.once === 'function') worker.once('exit', gone);
  else worker.addEventListener('close', gone, { once: true });
}

/**
 * Whether the thread that created `threadId` watches it (watchWorkers marked it). Node emits
 * 'worker' in the creating thread on its next tick after the Worker's constructor, usually long
 * before the new thread has loaded anything, but a creator blocked right after `new Worker()` marks
 * it later: ask again before concluding.
 */
export function threadIsWatched(tableBuffer, threadId) {
  const table = new Int32Array(tableBuffer);
  for (let slot = 0; slot < WATCHED_SLOTS; slot++) {
    if (Atomics.load(table, WATCHED_CURSOR + 1 + slot) === threadId) return true;
  }
  return false;
}
