// The in-context engine: one engine on ordinary memory serving this context alone. The fallback
// everywhere (no SharedWorker, no shared memory, or asked for). The engine loads asynchronously;
// the backend takes requests at once and hands them to the engine, in order, once it is ready.
import { createLocalEngine } from '../engine/index.js';
import { EngineBackend, randomClientId } from './engine-backend.js';

/**
 * A backend backed by a backend that is still being created: `ready` is a Promise of it, or a
 * function that makes that Promise, called on the first request or query (the backend's code then
 * loads only when used: the machine lock space, js/node/thread-locks.js). Calls made before it is
 * ready are queued in order under provisional tokens (negative numbers, never engine ids).
 */
class DeferredBackend {
  /**
   * @param {string} clientId
   * @param {Promise<any> | (() => Promise<any>)} ready
   */
  constructor(clientId, ready) {
    this.clientId = clientId;
    this.target = null;
    this.error = null;
    this.queue = [];          // [provisional token, name, mode, waitMode, listener, within]
    this.realTokens = new Map(); // provisional token -> the target's token
    this.nextToken = -1;
    this.load = typeof ready === 'function' ? ready : () => ready;
    this.ready = null;
    if (typeof ready !== 'function') this.start();
  }

  start() {
    if (this.ready === null) {
      this.ready = Promise.resolve().then(this.load).then(
        (target) => { this.target = target; this.flush(); return target; },
        (error) => { this.error = error; this.flush(); throw error; });
      this.ready.catch(() => {});
    }
    return this.ready;
  }

  flush() {
    const queue = this.queue;
    this.queue = null;
    for (const [token, name, mode, waitMode, listener, within] of queue) {
      if (this.error !== null) {
        listener.failed(token, this.error);
        continue;
      }
      const real = this.target.request(name, mode, waitMode, tokenTranslator(listener, token), this.translateWithin(within));
      this.realTokens.set(token, real);
    }
  }

  // A held lock's token as the target knows it (provisional tokens are translated).
  translateWithin(within) {
    if (within === undefined || within.under >= 0) return within;
    const under = this.realTokens.get(within.under);
    return under === undefined ? undefined : { under };
  }

  request(name, mode, waitMode, listener, within) {
    if (this.target !== null) return this.target.request(name, mode, waitMode, listener, this.translateWithin(within));
    const token = this.nextToken--;
    if (this.error !== null) {
      queueMicrotask(() => listener.failed(token, this.error));
    } else {
      this.queue.push([token, name, mode, waitMode, listener, within]);
      this.start();
    }
    return token;
  }

  release(token) {
    if (token < 0) {
      const real = this.realTokens.get(token);
      this.realTokens.delete(token);
      // (a remote target's release answers with a promise: the LockManager waits for it)
      return real !== undefined ? this.target.release(real) : undefined;
    }
    return this.target.release(token);
  }

  abort(token) {
    if (token >= 0) return this.target.abort(token);
    if (this.queue !== null) {
      const at = this.queue.findIndex((entry) => entry[0] === token);
      if (at < 0) return Promise.resolve(false);
      this.queue.splice(at, 1);
      return Promise.resolve(true);
    }
    const real = this.realTokens.get(token);
    return real === undefined ? Promise.resolve(false) : this.target.abort(real);
  }

  query() {
    return this.target !== null ? this.target.query() : this.start().then((target) => target.query());
  }

  /** observeLocks's source: the target's, once it is ready (a failed target observes nothing). */
  observeSource() {
    return {
      observe: (sink) => {
        let stop = null;
        let stopped = false;
        this.start().then((target) => {
          if (!stopped) stop = target.observeSource().observe(sink);
        }, () => {});
        return () => {
          stopped = true;
          stop?.();
        };
      },
    };
  }
}

// Listeners are told the token the LockManager knows (the provisional one), with what the target
// said (a grant's fencing token, why a lock was lost).
function tokenTranslator(listener, token) {
  return {
    granted: (_, grant) => listener.granted(token, grant),
    notAvailable: () => listener.notAvailable(token),
    stolen: (_, message) => listener.stolen(token, message),
    failed: (_, error) => listener.failed(token, error),
  };
}

/**
 * A backend on an engine of its own (ordinary memory), for this context alone.
 * Returned at once; requests made before the engine has loaded wait for it.
 * @param {{ clientId?: string, deadlock?: 'reject' | 'report' }} [options]
 */
export function createLocalBackend({ clientId = randomClientId(), deadlock } = {}) {
  return new DeferredBackend(clientId, createLocalEngine().then((engine) => new EngineBackend(engine, clientId, 0, { deadlock })));
}

export { DeferredBackend };
