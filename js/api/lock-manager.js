// The LockManager interface: https://w3c.github.io/web-locks/#api-lock-manager
// Built on a host's backend (see docs/api.md, "The backend contract"); it never sees the engine.
// Script cannot construct it; hosts call createLockManager(backend).
import { Lock, newLock } from './lock.js';
import { captureAsyncContext, runInsideHeld, currentHeld } from './async-context.js';
import {
  toDOMString, toLockOptions, toCallback, domException, abortReason, shapeInterface,
} from './webidl.js';

const CONSTRUCT = Symbol('LockManager construct key');

// A request's life, as this context sees it.
const PENDING = 0;   // waiting for the backend's answer
const GRANTED = 1;   // the backend granted it; the callback is invoked (or about to be)
const STOLEN = 2;    // the lock was taken away while granted: the promise is already rejected
const ABORTED = 3;   // the signal fired while pending: the promise is already rejected
const DONE = 4;      // settled and released (or never granted)

/**
 * One call of request(): the backend's listener for its token, and the glue between the
 * backend's answers, the script's callback and the promise request() returned.
 */
class LockRequest {
  constructor(backend, name, mode, callback, signal, resolve, reject) {
    this.backend = backend;
    this.name = name;
    this.mode = mode;
    this.callback = callback;
    this.signal = signal;
    this.resolve = resolve;
    this.reject = reject;
    this.token = 0;
    this.state = PENDING;
    this.runInContext = captureAsyncContext();
    this.onAbort = null;
    this.grantAnswer = null;
    this.runInsideThis = (lock) => runInsideHeld(this, this.callback, lock);
    // The callback is invoked from a reaction registered here, inside request(), so engines that
    // carry async context through promise reactions (Node's AsyncLocalStorage) restore request()'s.
    new Promise((answer) => { this.grantAnswer = answer; }).then((lock) => this.invoke(lock));
  }

  // ---- the backend's listener (called asynchronously, never inside backend.request) ----

  /**
   * The lock is held by this context: spec 4.4 step 2.1.11, enqueue the callback. A distributed
   * backend also gives `{ fencingToken }` (js/etcd), which the Lock exposes.
   */
  granted(token, grant) {
    if (this.state === ABORTED) {
      // The signal won locally while the grant was in flight: release without calling back.
      this.state = DONE;
      this.backend.release(this.token);
      return;
    }
    if (this.state !== PENDING) return;
    this.state = GRANTED;
    this.stopWatchingSignal(); // "Once the lock has been granted, the signal is ignored."
    this.grantAnswer(newLock(this.name, this.mode, grant?.fencingToken));
  }

  /** ifAvailable and not grantable: spec 4.1 step 2.5.1, invoke the callback with null. */
  notAvailable() {
    if (this.state !== PENDING) return;
    this.state = DONE;
    this.grantAnswer(null);
  }

  /**
   * Spec 4.1 step 2.4.1.1.2: reject the lock's released promise with an AbortError. A backend
   * that lost the lock some other way than a steal (docs/browser.md, "When a live context loses
   * a lock") names the reason in `message`.
   */
  stolen(token, message) {
    if (this.state !== GRANTED) return;
    this.state = STOLEN;
    this.reject(domException(typeof message === 'string' ? message : 'The lock was stolen by another request.', 'AbortError'));
  }

  /** The host could not take or keep the request. */
  failed(token, error) {
    if (this.state === DONE) return;
    const wasWaiting = this.state === PENDING || this.state === ABORTED;
    this.state = wasWaiting ? DONE : STOLEN;
    this.stopWatchingSignal();
    this.reject(error instanceof Error || error instanceof DOMException
      ? error : domException(String(error), 'OperationError'));
  }

  // ---- script-facing steps ----

  /** Spec 4.4 step 2.1.11.1-2 (or 4.1 step 2.5.1.1-2 with null): invoke the callback. */
  invoke(lock) {
    let result;
    try {
      // Inside the callback, this request is the held lock requests are made under.
      result = this.runInContext(lock === null ? this.callback : this.runInsideThis, lock);
    } catch (error) {
      result = Promise.reject(error);
    }
    if (lock === null) {
      this.resolve(result); // ifAvailable: resolve the promise with r, no lock to release.
      return;
    }
    // 2.4 "When lock's waiting promise settles": release the lock, then resolve the released
    // promise with the waiting promise (a stolen lock's promise is already rejected).
    Promise.resolve(result).then(
      (value) => this.releaseHeld(() => this.resolve(value)),
      (error) => this.releaseHeld(() => this.reject(error)),
    );
  }

  releaseHeld(settle) {
    if (this.state !== GRANTED) { // stolen: nothing left to release
      settle();
      return;
    }
    // A backend that finds the lock already gone calls stolen() from inside release(). A remote
    // backend (js/etcd) learns it only from its answer: its release() returns a promise, and
    // calls stolen() before that promise resolves; the request's promise settles after it.
    const answer = this.backend.release(this.token);
    if (answer !== undefined && answer !== null && typeof answer.then === 'function') {
      const done = () => {
        if (this.state === GRANTED) this.state = DONE;
        settle();
      };
      answer.then(done, done);
      return;
    }
    if (this.state === GRANTED) this.state = DONE;
    settle();
  }

  /** Spec request() step 12: the abort steps of the signal. */
  watchSignal() {
    this.onAbort = () => {
      this.onAbort = null;
      if (this.state !== PENDING) return; // granted already: the signal is ignored
      this.state = ABORTED;
      // 12.2: reject at once with the signal's reason; 12.1: abort the request in the backend.
      this.reject(abortReason(this.signal));
      // If the backend answers false, the grant was already in flight: granted() releases it.
      this.backend.abort(this.token).then((removed) => {
        if (removed) this.state = DONE;
      }, () => {});
    };
    this.signal.addEventListener('abort', this.onAbort, { once: true });
  }

  stopWatchingSignal() {
    if (this.onAbort !== null) {
      this.signal.removeEventListener('abort', this.onAbort);
      this.onAbort = null;
    }
  }
}

// Each LockManager's internal slots (its backend, and whether its origin is opaque). A WeakMap,
// not private fields: see lock.js.
const slots = new WeakMap();

/** Backends of windows say whether their Document is fully active (backend.isFullyActive). */
function checkFullyActive(backend) {
  if (typeof backend.isFullyActive === 'function' && !backend.isFullyActive()) {
    throw domException('The document is not fully active.', 'InvalidStateError');
  }
}

export class LockManager {
  constructor(key, backend, opaqueOrigin) {
    if (key !== CONSTRUCT) throw new TypeError('Illegal constructor');
    slots.set(this, { backend, opaqueOrigin });
  }

  /**
   * https://w3c.github.io/web-locks/#dom-lockmanager-request
   * request(name, callback) and request(name, options, callback). WebIDL turns every exception
   * of a promise-returning operation (argument conversion included) into a rejected promise.
   */
  request(name, callback) {
    try {
      const own = slots.get(this);
      if (own === undefined) throw new TypeError("Illegal invocation: 'request' called on an object that is not a LockManager");
      const argc = arguments.length;
      if (argc < 2) {
        throw new TypeError(`Failed to execute 'request' on 'LockManager': 2 arguments required, but only ${argc} present.`);
      }
      // WebIDL overload resolution by argument count, then conversion in argument order.
      const lockName = toDOMString(name);
      let options;
      let grantedCallback;
      if (argc === 2) {
        // Step 1: options not passed, a LockOptions dictionary with default members.
        options = toLockOptions(undefined);
        grantedCallback = toCallback(callback);
      } else {
        options = toLockOptions(callback);
        grantedCallback = toCallback(arguments[2]);
      }
      // Steps 2-3: the environment and its origin. The current Editor's Draft adds, right after
      // the environment (step 3 there) and so before any check of the name: a Window whose
      // Document is not fully active rejects with an InvalidStateError (a removed iframe's
      // navigator.locks).
      checkFullyActive(own.backend);
      // Step 4: an opaque origin rejects with a SecurityError, before the name is looked at and
      // before the backend is asked anything, so no later layer (the hub's start under the page's
      // Trusted Types policy, say) can answer first with another error.
      if (own.opaqueOrigin) throw opaqueOriginError();
      // Step 5.
      if (lockName.charCodeAt(0) === 0x2d) {
        throw domException("Names starting with '-' are reserved.", 'NotSupportedError');
      }
      // Step 6.
      if (options.steal && options.ifAvailable) {
        throw domException("The 'steal' and 'ifAvailable' options cannot be used together.", 'NotSupportedError');
      }
      // Step 7.
      if (options.steal && options.mode !== 'exclusive') {
        throw domException("The 'steal' option may only be used with 'exclusive' locks.", 'NotSupportedError');
      }
      // Step 8.
      const signal = options.signal;
      if (signal !== undefined && (options.steal || options.ifAvailable)) {
        throw domException("The 'signal' option cannot be used with 'steal' or 'ifAvailable'.", 'NotSupportedError');
      }
      // Step 9.
      if (signal !== undefined && signal.aborted) throw abortReason(signal);
      // Steps 10-11: a new promise, and request a lock (the backend runs spec 4.1).
      let resolve;
      let reject;
      const promise = new Promise((res, rej) => { resolve = res; reject = rej; });
      const backend = own.backend;
      const request = new LockRequest(backend, lockName, options.mode, grantedCallback, signal, resolve, reject);
      const waitMode = options.steal ? 'preempt' : options.ifAvailable ? 'no-wait' : 'wait';
      // Made inside the callback of a lock this context holds (its async context says so)?
      const outer = currentHeld();
      const within = outer !== undefined && outer.backend === backend && outer.state === GRANTED ? { under: outer.token } : undefined;
      request.token = backend.request(lockName, options.mode, waitMode, request, within);
      // Step 12.
      if (signal !== undefined) request.watchSignal();
      // Step 13.
      return promise;
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** https://w3c.github.io/web-locks/#dom-lockmanager-query : spec 4.5, a fresh snapshot. */
  query() {
    const own = slots.get(this);
    if (own === undefined) {
      return Promise.reject(new TypeError("Illegal invocation: 'query' called on an object that is not a LockManager"));
    }
    // As request(): a Document that is not fully active rejects (the Editor's Draft's step 2);
    // steps 1-2: an opaque origin rejects with a SecurityError.
    try {
      checkFullyActive(own.backend);
      if (own.opaqueOrigin) throw opaqueOriginError();
    } catch (error) {
      return Promise.reject(error);
    }
    // Steps 3-5: the backend snapshots the lock state; copy it into new LockInfo dictionaries.
    return own.backend.query().then((state) => ({
      held: state.held.map(toLockInfo),
      pending: state.pending.map(toLockInfo),
    }));
  }
}
shapeInterface(LockManager, 'LockManager');

function toLockInfo(info) {
  return { name: info.name, mode: info.mode, clientId: info.clientId };
}

/** The SecurityError of a context whose origin is opaque (request() step 4, query() step 2). */
export function opaqueOriginError() {
  return domException('This origin is opaque (a sandboxed frame?): it has no locks.', 'SecurityError');
}

/**
 * For hosts: the LockManager of one context, served by its backend. opaqueOrigin: the context's
 * origin is opaque (decided once, by the host: an origin never changes), so request() and query()
 * reject with a SecurityError and never reach the backend.
 */
export function createLockManager(backend, { opaqueOrigin = false } = {}) {
  return new LockManager(CONSTRUCT, backend, opaqueOrigin === true);
}

export { Lock };
