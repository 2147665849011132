// Agent termination of threads known to be gone (thread-watch.js): closes their clients and gives
// their stacks and scratch areas back to the region pool.
//
// A thread reported ended is closed only once it can no longer run: a runtime may report a
// Worker ended while it still runs (Deno's terminate() of a busy worker), and handing its lock on
// then would let two holders run at once. Until the kernel confirms it, or the runtime's own
// report is proof (records.stopped: Node reports a Worker ended once its thread is joined), its
// locks stay held, and after a while a warning says so, naming the setting that lets the app decide.
//
// One of them may have died inside an engine call, holding the engine mutex: closing its owner
// takes the mutex over and rolls that call back (wl_close_clients_of_owner). The closer never
// waits on the mutex: a holder that is not one of the gone threads may be a thread whose own
// 'exit' this thread has yet to see (two workers terminated together), and waiting here would
// keep that event from ever being seen. So each close is one attempt, and what is left is tried
// again on a later turn of the event loop.
// Node's own timers (a DOM test environment may replace the global ones).
import { setTimeout, clearTimeout } from 'node:timers';

const RETRY_MS = 5;
const WARN_AFTER_MS = 2000;
// The app's decision where no proof comes (docs/api.md): a thread reported ended is taken as stopped.
export const TRUST_REPORTED_END = 'WEBLOCKS_TRUST_REPORTED_END';
// How long after a thread's reported end a query() still waits for it to be closed (a stopped
// thread leaves the kernel's list 6-20 ms after its Worker's 'exit' here; 50 ms, counted from the
// query, was once too short in a clean-clone run, with two other lanes of tests beside it).
export const QUERY_WAITS_FOR_CLOSE_MS = 1000;

export class GoneThreadCloser {
  // records: { forget(threadId), hasRecordedChildren(threadId), stopped(threadId, reported) } of the thread table. A closed
  // thread's record goes only after those of the threads below it (leaves first), so that if
  // this thread dies half-way, the closer of its own subtree still reaches every one of them.
  constructor(engineReady, regions, records, onError) {
    this.engineReady = engineReady;
    this.regions = regions;
    this.records = records;
    this.toForget = new Set();
    this.onError = onError;
    this.pending = new Map(); // threadId -> { since: when it was found gone, reported: its own Worker said so }
    this.timer = null;
    this.warned = new Set();
    this.closed = 0;
    this.closedWaiters = []; // reportedEndsClosed()'s
  }

  /** `threadIds` are gone (none of them can run any more); `reported`: the one whose Worker said so. */
  add(threadIds, reported = null) {
    const now = performance.now();
    for (const id of threadIds) if (!this.pending.has(id)) this.pending.set(id, { since: now, reported: false });
    if (reported !== null) this.pending.get(reported).reported = true;
    this.engineReady.then((engine) => this.run(engine), () => {});
  }

  warnOnce(threadId, message) {
    if (performance.now() - this.pending.get(threadId).since <= WARN_AFTER_MS || this.warned.has(threadId)) return;
    this.warned.add(threadId);
    this.onError(threadId, new Error(message));
  }

  // The kernel's word, or the runtime's report where that is proof (records.stopped); else, for a
  // thread reported ended, the app's setting.
  hasStopped(threadId) {
    const { reported } = this.pending.get(threadId);
    if (this.records.stopped(threadId, reported)) return true;
    return reported && process.env[TRUST_REPORTED_END] === '1';
  }

  /** When the latest thread reported ended that still waits to be closed was reported; -Infinity: none waits. */
  latestReport() {
    let latest = -Infinity;
    for (const entry of this.pending.values()) if (entry.reported && entry.since > latest) latest = entry.since;
    return latest;
  }

  /**
   * Null when no thread reported ended in the last `capMs` waits to be closed; else resolves once
   * none does (each closed), or `capMs` after the latest such report: a query() right after `await
   * worker.terminate()` then no longer lists that worker's locks (Deno resolves terminate() a
   * little before the kernel drops the worker's thread: 6-20 ms here, longer on a loaded machine).
   * Counted from the report, so a thread that does not stop (a busy Deno 2.6 worker) holds up
   * only the queries of its first `capMs`.
   */
  reportedEndsClosed(capMs) {
    const left = this.latestReport() + capMs - performance.now();
    if (!(left > 0)) return null;
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(done, left);
      timer.unref?.();
      this.closedWaiters.push(done);
    });
  }

  run(engine) {
    if (this.timer !== null) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    // The holder first, when it is one of them: the others would only find the mutex taken.
    const holder = engine.mutexHolderTag();
    const order = this.pending.has(holder) ? [holder, ...this.pending.keys()] : [...this.pending.keys()];
    for (const threadId of order) {
      if (!this.pending.has(threadId)) continue;
      if (!this.hasStopped(threadId)) {
        this.warnOnce(threadId, `thread ${threadId} was reported ended but has not stopped for over ${WARN_AFTER_MS} ms `
          + '(the kernel still lists it): its locks stay held until it stops. '
          + `If this runtime's report of a worker's end can be trusted in this app (its workers are never busy when terminated), set ${TRUST_REPORTED_END}=1.`);
        continue;
      }
      let closed;
      try {
        closed = engine.tryCloseClientsOfOwner(threadId);
      } catch (error) {
        this.pending.delete(threadId);
        this.onError(threadId, error); // (BROKEN: the engine refuses every call; its records stay)
        continue;
      }
      if (closed === null) {
        this.warnOnce(threadId, `the engine mutex has been held by thread ${engine.mutexHolderTag()} for over ${WARN_AFTER_MS} ms; still trying`);
        continue;
      }
      this.pending.delete(threadId);
      this.warned.delete(threadId);
      this.closed += closed;
      this.regions.releaseOwner(threadId);
      this.toForget.add(threadId);
    }
    for (let progress = true; progress && this.toForget.size > 0;) {
      progress = false;
      for (const threadId of this.toForget) {
        if (this.records.hasRecordedChildren(threadId)) continue;
        this.records.forget(threadId);
        this.toForget.delete(threadId);
        progress = true;
      }
    }
    if (this.closedWaiters.length > 0 && this.latestReport() === -Infinity) {
      for (const done of this.closedWaiters.splice(0)) done();
    }
    if (this.pending.size > 0 || this.toForget.size > 0) {
      // (Also polls the kernel for threads reported ended that still run.)
      this.timer = setTimeout(() => this.run(engine), RETRY_MS);
      this.timer.unref?.();
    }
  }
}
