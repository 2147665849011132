// The source of observeLocks (observe-locks.js) for an engine: the engine's journal of changes
// (src/journal.cpp), read after its word changes. In shared memory the word is waited on
// (Atomics.waitAsync: other threads' changes); changes this agent makes are picked up after each of
// its engine calls (EngineBackend.afterCall pokes the observers of its engine).
const RESOLVED = Promise.resolve();
// Reads wait for the current burst of work to end (a macrotask): a loop of requests and releases
// is read once, not once per change (changes are coalesced, never lost).
const afterThisTask = typeof globalThis.setImmediate === 'function'
  ? (task) => globalThis.setImmediate(task)
  : (task) => setTimeout(task, 0);

// Observers of each engine in this agent (EngineBackend.afterCall looks here).
const observersOf = new WeakMap();

/** The observers of `engine` in this agent: an array that stays the same object. */
export function engineObservers(engine) {
  let list = observersOf.get(engine);
  if (list === undefined) observersOf.set(engine, list = []);
  return list;
}

// Deno before 2.7.6 runs an Atomics.waitAsync callback only while its event loop has something
// else to do (js/node/keep-alive.js): an observer waiting on the journal keeps a short interval
// ticking there (unref'd: it keeps nothing alive).
const TICK_MS = waitAsyncNeedsTicks() ? 4 : null;

function waitAsyncNeedsTicks() {
  const deno = globalThis.process?.versions?.deno ?? globalThis.Deno?.version?.deno;
  if (deno === undefined) return false;
  const [major, minor, patch] = String(deno).split('.').map(Number);
  return !(major > 2 || (major === 2 && (minor > 7 || (minor === 7 && patch >= 6))));
}

// Snapshot and records agree when no record came between reading them; under a stream of
// changes, give up after this many tries (the next call catches up).
const CONSISTENT_TRIES = 4;

export class EngineObserver {
  constructor(engine, sink) {
    this.engine = engine;
    this.sink = sink;
    this.stopped = false;
    this.scheduled = false;
    const { position, index } = engine.observe(1);
    this.position = position;
    this.index = index;
    this.seen = Atomics.load(engine.journalView(index), index);
    this.list = engineObservers(engine);
    this.list.push(this);
    this.readNow = () => {
      this.scheduled = false;
      this.read();
    };
    // The first call: the state now, with the records that led to it skipped.
    RESOLVED.then(() => {
      if (this.stopped) return;
      const { snapshot } = this.readConsistently();
      this.sink.start(snapshot);
      this.arm();
    });
  }

  readConsistently() {
    let records = [];
    let snapshot;
    for (let tries = 0; ; tries++) {
      this.seen = Atomics.load(this.engine.journalView(this.index), this.index);
      const read = this.engine.readJournal(this.position);
      this.position = read.position;
      for (const record of read.records) records.push(record);
      snapshot = this.engine.snapshot();
      if (Atomics.load(this.engine.journalView(this.index), this.index) === this.seen || tries === CONSISTENT_TRIES) break;
    }
    return { records, snapshot };
  }

  read() {
    if (this.stopped) return;
    const now = Atomics.load(this.engine.journalView(this.index), this.index);
    if (now !== this.seen) {
      const { records, snapshot } = this.readConsistently();
      if (records.length !== 0) this.sink.changes(records, snapshot);
    }
    this.arm();
  }

  /** In shared memory, wait for the word to change (another thread's change). */
  arm() {
    if (this.stopped || !this.engine.shared || this.waiting) return;
    const int32 = this.engine.journalView(this.index);
    const wait = Atomics.waitAsync(int32, this.index, this.seen);
    if (!wait.async) {
      this.poke();
      return;
    }
    this.waiting = true;
    if (TICK_MS !== null && this.ticker === undefined) {
      this.ticker = setInterval(() => {}, TICK_MS);
      this.ticker.unref?.();
    }
    wait.value.then(() => {
      this.waiting = false;
      this.poke();
    });
  }

  /** After an engine call of this agent, or a change of the journal's word: read after this task. */
  poke() {
    if (this.scheduled || this.stopped) return;
    this.scheduled = true;
    afterThisTask(this.readNow);
  }

  stop() {
    if (this.stopped) return;
    this.stopped = true;
    this.list.splice(this.list.indexOf(this), 1);
    this.engine.observe(-1);
    if (this.ticker !== undefined) clearInterval(this.ticker);
    // Its pending waitAsync ends (the others of this word look, find nothing new, and wait again).
    if (this.waiting) {
      const int32 = this.engine.journalView(this.index);
      Atomics.add(int32, this.index, 1);
      Atomics.notify(int32, this.index);
    }
  }
}

/** observeLocks's source for one engine. */
export function engineSource(engine) {
  return {
    observe(sink) {
      let observer;
      try {
        observer = new EngineObserver(engine, sink);
      } catch (error) {
        // The journal's ring could not be had: the engine's capacity, as a request's would be.
        if (error?.code === 'NO_MEMORY') throw new DOMException('observeLocks: the lock manager is out of capacity (NO_MEMORY).', 'QuotaExceededError');
        throw error;
      }
      return () => observer.stop();
    },
  };
}
