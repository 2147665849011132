// A thread's backend that resetLockSpace() can move to another lock space while the thread's
// LockManager stays the same object (navigator.locks, the ponyfill's `locks`). Until the first
// move it passes everything through unchanged (no cost on the request path); requests made after
// a move get tokens of their own, from MOVED_TOKENS up (far above any engine or provisional
// token), routed to the backend that took them, so a lock of the old space released late reaches
// the old backend and never one of the new space with the same engine token.
const MOVED_TOKENS = 2 ** 48;

export class ResettableBackend {
  constructor(backend) {
    this.first = backend;   // takes every token below MOVED_TOKENS
    this.current = backend;
    this.routes = new Map(); // moved token -> [backend, its token]
    this.nextToken = MOVED_TOKENS;
  }

  get clientId() {
    return this.current.clientId;
  }

  /** Requests from now on go to `backend`; those made before stay with theirs. */
  moveTo(backend) {
    this.current = backend;
  }

  request(name, mode, waitMode, listener, within) {
    if (this.current === this.first) return this.first.request(name, mode, waitMode, listener, within);
    const token = this.nextToken++;
    const backend = this.current;
    const done = () => this.routes.delete(token);
    const inner = backend.request(name, mode, waitMode, {
      granted: (_, grant) => listener.granted(token, grant),
      notAvailable: () => { done(); listener.notAvailable(token); },
      stolen: (_, message) => { done(); listener.stolen(token, message); },
      failed: (_, error) => { done(); listener.failed(token, error); },
    }, this.routedWithin(within, backend));
    this.routes.set(token, [backend, inner]);
    return token;
  }

  release(token) {
    if (token < MOVED_TOKENS) return this.first.release(token);
    const route = this.routes.get(token);
    if (route === undefined) return undefined;
    this.routes.delete(token);
    return route[0].release(route[1]);
  }

  abort(token) {
    if (token < MOVED_TOKENS) return this.first.abort(token);
    const route = this.routes.get(token);
    if (route === undefined) return Promise.resolve(false);
    return route[0].abort(route[1]).then((removed) => {
      if (removed) this.routes.delete(token);
      return removed;
    });
  }

  // A held lock of the backend the request goes to, as that backend knows it.
  routedWithin(within, backend) {
    if (within === undefined) return undefined;
    const route = this.routes.get(within.under);
    return route !== undefined && route[0] === backend ? { under: route[1] } : undefined;
  }

  query() {
    return this.current.query();
  }

  /** observeLocks's source: the lock space this thread's requests go to now. */
  observeSource() {
    return this.current.observeSource();
  }
}
