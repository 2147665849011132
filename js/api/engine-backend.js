// A backend (docs/api.md, "The backend contract") for one context that calls a lock engine
// (js/engine) directly: one engine client per context. Used by the in-context engine
// (local-backend.js) and by the Node host, whose threads share one engine in shared memory.
// Hosts that can wait on the client's doorbell (Atomics.waitAsync) do so through `onActivity`;
// events this context causes itself are also picked up after each engine call.
import { MODE, WAIT, STATUS, EVENT, REQUEST_FLAGS } from '../engine/index.js';
import { randomUuid } from './random-id.js';
import { engineObservers, engineSource } from './engine-observer.js';
import { deadlockError, warnDeadlock } from './observe-shared.js';

const WAIT_MODES = { wait: WAIT.wait, 'no-wait': WAIT.noWait, preempt: WAIT.preempt };

// A microtask without queueMicrotask's cost: Node wraps each queueMicrotask callback in an
// AsyncResource (about a fifth of the CPU of an uncontended request, docs/bench.md). A reaction
// to one resolved promise lands in the same FIFO microtask queue, so the order is the same.
const RESOLVED = Promise.resolve();
const later = (task) => { RESOLVED.then(task); };

// The backends of this agent on each engine: a call by one context can put events in another's
// inbox (a release grants a waiter), and contexts of one agent look at each other's doorbells
// after every call instead of waiting on them.
const agentBackends = new WeakMap();

export class EngineBackend {
  /**
   * @param engine    an Engine (js/engine/index.js)
   * @param clientId  the spec's clientId of this context
   * @param ownerTag  uint32 the engine groups clients by (a Node threadId), 0 by default
   * @param {object} [options]   { deadlock: 'reject' | 'report' }: what a request that closes a certain
   *                  deadlock gets (default: the global WEBLOCKS_DEADLOCK, else 'report')
   */
  constructor(engine, clientId, ownerTag = 0, options = {}) {
    this.engine = engine;
    this.deadlock = options.deadlock;
    this.clientId = clientId;
    this.client = engine.openClient(clientId, ownerTag);
    this.bell = null;
    this.bellIndex = 0;
    this.seen = this.ringCount();
    this.listeners = new Map();   // engine id -> listener, for requests queued or held here
    this.waiting = 0;             // how many of them are still queued
    // Ids granted at once by request() whose `granted` is still in a microtask: a drain that runs
    // before it (scheduled earlier) may find their `stolen` event, which must wait its turn.
    this.grantsInFlight = new Set();
    this.drainScheduled = false;
    this.closed = false;
    // Tokens for requests the engine refused: never engine ids (positive) nor the provisional
    // tokens of a DeferredBackend in front of this one (small negative numbers).
    this.failedTokens = -(2 ** 52);
    /** Host hook, called when `waiting` or the number of listeners may have changed. */
    this.onActivity = null;
    /** Host hook, called before each engine request (the Deno host's running mark, js/node/running-mark.js). */
    this.beforeRequest = null;
    /** Host hook, called before each snapshot: null, or a promise to wait for first (threads reported ended, until closed). */
    this.beforeQuery = null;
    this.drainNow = () => {
      this.drainScheduled = false;
      try {
        this.drain();
      } catch (error) {
        if (error?.code !== 'STUCK') throw error;
        // (See release(): the events wait in the engine until the dead holder is closed.)
        this.drainScheduled = true;
        setTimeout(this.drainNow, 10);
      }
    };
    let peers = agentBackends.get(engine);
    if (peers === undefined) agentBackends.set(engine, peers = []);
    this.peers = peers;
    peers.push(this);
    this.observers = engineObservers(engine);
  }

  // ---- the backend contract ----

  /** `within`: { under } the token of this context's held lock inside whose callback it was made. */
  request(name, mode, waitMode, listener, within) {
    let answer;
    try {
      if (this.closed) throw new DOMException('This context no longer takes lock requests.', 'InvalidStateError');
      if (this.beforeRequest !== null) this.beforeRequest();
      const under = within?.under;
      if (under !== undefined && this.listeners.has(under)) {
        const flags = (this.deadlock ?? globalThis.WEBLOCKS_DEADLOCK) === 'reject' ? REQUEST_FLAGS.rejectDeadlock : 0;
        answer = this.engine.request(this.client, name, MODE[mode], WAIT_MODES[waitMode], under, flags);
      } else {
        answer = this.engine.request(this.client, name, MODE[mode], WAIT_MODES[waitMode]);
      }
    } catch (error) {
      const token = this.failedTokens--;
      later(() => listener.failed(token, asRequestError(error)));
      if (this.onActivity !== null) this.onActivity();
      return token;
    }
    const id = answer.id;
    const status = answer.status;
    if (status === STATUS.deadlock) {
      // Rejected instead of queued (the reject option): nothing changed in the lock space.
      const token = this.failedTokens--;
      const error = deadlockError(answer.cycle);
      later(() => listener.failed(token, error));
      this.afterCall();
      return token;
    }
    if (status === STATUS.granted) {
      this.listeners.set(id, listener);
      this.grantsInFlight.add(id);
      later(() => {
        this.grantsInFlight.delete(id);
        listener.granted(id);
      });
    } else if (status === STATUS.queued) {
      this.listeners.set(id, listener);
      this.waiting++;
    } else { // STATUS.notAvailable: the queue is untouched
      later(() => listener.notAvailable(id));
    }
    this.afterCall();
    return id;
  }

  release(token) {
    const listener = this.listeners.get(token);
    if (listener === undefined) return;
    let released;
    try {
      released = this.engine.release(this.client, token);
    } catch (error) {
      // STUCK: an agent died holding the engine mutex and its host has not closed it yet (that
      // host may be this very thread, whose event loop the wait kept from learning it): the lock
      // is still ours, so try again on a later turn rather than leave it held for good. The
      // request settles once it is released (spec 4.1 step 2.4: release, then settle): a promise.
      if (error?.code !== 'STUCK' || this.closed) throw error;
      return new Promise((resolve) => { setTimeout(() => resolve(this.release(token)), 10); });
    }
    this.listeners.delete(token);
    if (!released) {
      // Already gone: stolen (or this context was declared dead) before its event reached us.
      listener.stolen(token);
    }
    this.afterCall();
  }

  abort(token) {
    const listener = this.listeners.get(token);
    if (listener === undefined || this.closed) return Promise.resolve(false);
    const removed = this.engine.abort(this.client, token);
    if (removed) {
      this.listeners.delete(token);
      this.waiting--;
      this.afterCall();
    }
    return Promise.resolve(removed);
  }

  query() {
    const first = this.beforeQuery === null ? null : this.beforeQuery();
    if (first !== null) return first.then(() => this.engine.snapshot());
    try {
      return Promise.resolve(this.engine.snapshot());
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** observeLocks's source: this engine's lock space. */
  observeSource() {
    return engineSource(this.engine);
  }

  // ---- events ----

  /** The doorbell word's value. Views of ordinary memory detach when it grows: fetch a new one then. */
  ringCount() {
    if (this.bell === null || this.bell.length === 0) {
      const bell = this.engine.doorbell(this.client);
      this.bell = bell.int32;
      this.bellIndex = bell.index;
    }
    return Atomics.load(this.bell, this.bellIndex);
  }

  /** Takes this client's events from the engine and tells the listeners (call asynchronously). */
  drain() {
    if (this.closed) return;
    this.seen = this.ringCount();
    const events = this.engine.takeEvents(this.client);
    for (let i = 0; i < events.length; i++) {
      const { type, id } = events[i];
      const listener = this.listeners.get(id);
      if (listener === undefined) continue;
      if (type === EVENT.granted) {
        this.waiting--;
        listener.granted(id);
      } else if (type === EVENT.stolen) {
        this.listeners.delete(id);
        // `granted` comes before `stolen` (docs/api.md): a grant still in its microtask goes first.
        if (this.grantsInFlight.has(id)) later(() => listener.stolen(id));
        else listener.stolen(id);
      } else if (type === EVENT.deadlock) {
        // This context's request is in a certain deadlock: say so on its console.
        const cycle = this.engine.deadlockCycle(this.client, id);
        if (cycle !== null) warnDeadlock(cycle);
      }
    }
    if (events.length !== 0 && this.onActivity !== null) this.onActivity();
  }

  /** After an engine call: our own call may have queued events for us (a self-grant, a self-steal). */
  afterCall() {
    const peers = this.peers;
    for (let i = 0; i < peers.length; i++) peers[i].checkBell();
    const observers = this.observers;
    for (let i = 0; i < observers.length; i++) observers[i].poke();
    if (this.onActivity !== null) this.onActivity();
  }

  checkBell() {
    if (!this.drainScheduled && !this.closed && this.ringCount() !== this.seen) {
      this.drainScheduled = true;
      later(this.drainNow);
    }
  }

  /** Agent termination (spec 2.6) of this context: the engine aborts its requests and releases its locks. */
  close() {
    if (this.closed) return;
    this.closed = true;
    this.peers.splice(this.peers.indexOf(this), 1);
    this.engine.closeClient(this.client);
    for (let i = 0; i < this.peers.length; i++) this.peers[i].checkBell();
    this.listeners.clear();
    this.waiting = 0;
    if (this.onActivity !== null) this.onActivity();
  }
}

/** The engine's capacity errors are what the web platform calls QuotaExceededError. */
function asRequestError(error) {
  if (error?.code === 'NO_MEMORY' || error?.code === 'TOO_MANY') {
    return new DOMException(`The lock manager is out of capacity (${error.code}).`, 'QuotaExceededError');
  }
  return error;
}

/** A backend for one more context (clientId) on an engine this context already has. */
export function createEngineBackend(engine, clientId = randomUuid(), ownerTag = 0, options = {}) {
  return new EngineBackend(engine, clientId, ownerTag, options);
}

/** A clientId: a random UUID, as browsers use for a context's id. */
export { randomUuid as randomClientId };
