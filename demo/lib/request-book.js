// The lock requests one context made through the demo's controls: request (exclusive or shared,
// ifAvailable, steal, timeout), abort a pending one, release a held one. Errors are kept exactly as
// thrown (name and message). Runs in tabs and in workers alike.
const KEEP_FINISHED = 6;

export class RequestBook {
  #locks;
  #onChange;
  #nextId = 1;
  #entries = []; // newest last

  #onEvent;

  /** onEvent({ kind: 'steal' | 'stolen' | 'aborted' | 'timeout', lock, text }) for the timeline */
  constructor(locks, onChange, onEvent = () => {}) {
    this.#locks = locks;
    this.#onChange = onChange;
    this.#onEvent = onEvent;
  }

  /** entries as plain data, for rendering and for announcing to other contexts */
  list() {
    return this.#entries.map(({ id, name, mode, options, state, since, error }) => ({ id, name, mode, options, state, since, error }));
  }

  /** options: { name, mode, ifAvailable, steal, timeoutMs } from the form */
  request({ name, mode, ifAvailable, steal, timeoutMs }) {
    const entry = {
      id: this.#nextId++, name, mode, state: 'requesting', since: Date.now(), error: null,
      options: { ifAvailable, steal, timeoutMs }, abortController: null, releaseLock: null,
    };
    const lockOptions = { mode, ifAvailable, steal };
    // A signal is passed whenever the request may wait (so "Abort" works) or a timeout is asked for.
    // The spec forbids a signal with steal or ifAvailable (NotSupportedError): asking for a timeout
    // together with them shows that error, as the browser throws it.
    if (timeoutMs > 0 || (!ifAvailable && !steal)) {
      entry.abortController = new AbortController();
      lockOptions.signal = timeoutMs > 0
        ? AbortSignal.any([entry.abortController.signal, AbortSignal.timeout(timeoutMs)])
        : entry.abortController.signal;
    }
    this.#entries.push(entry);
    let promise;
    try {
      promise = this.#locks.request(name, lockOptions, (lock) => this.#granted(entry, lock));
    } catch (error) { // a conforming implementation rejects instead of throwing; show either
      this.#finish(entry, 'failed', error);
      return entry.id;
    }
    if (entry.state === 'requesting') entry.state = 'pending';
    this.#changed();
    promise.then(
      () => { if (entry.state === 'held' || entry.state === 'releasing') this.#finish(entry, 'released'); },
      (error) => {
        // Rejected while held: the lock was stolen (its released promise rejects with AbortError).
        // Rejected after our signal fired: aborted (Abort button or timeout). Otherwise: refused.
        const state = entry.state === 'held' ? 'stolen' : lockOptions.signal?.aborted ? 'aborted' : 'failed';
        this.#finish(entry, state, error);
        entry.releaseLock?.();
      },
    );
    return entry.id;
  }

  #granted(entry, lock) {
    if (lock === null) { // ifAvailable and not available: the callback runs with null
      this.#finish(entry, 'not available');
      return undefined;
    }
    entry.state = 'held';
    entry.since = Date.now();
    if (entry.options.steal) this.#onEvent({ kind: 'steal', lock: entry.name, text: `stole ${entry.name} (${entry.mode})` });
    this.#changed();
    return new Promise((resolve) => { entry.releaseLock = resolve; });
  }

  abort(id) {
    this.#find(id)?.abortController?.abort();
  }

  release(id) {
    const entry = this.#find(id);
    if (entry?.state !== 'held') return;
    entry.state = 'releasing';
    entry.releaseLock();
  }

  /** the names this context holds or waits for (the lock view matches them to query() rows) */
  active() {
    return this.list().filter((entry) => entry.state === 'held' || entry.state === 'pending' || entry.state === 'releasing');
  }

  #find(id) {
    return this.#entries.find((entry) => entry.id === id);
  }

  #finish(entry, state, error = null) {
    entry.state = state;
    entry.since = Date.now();
    entry.error = error ? { name: error?.name ?? 'Error', message: String(error?.message ?? error) } : null;
    if (state === 'stolen') this.#onEvent({ kind: 'stolen', lock: entry.name, text: `its ${entry.name} was stolen (${entry.error.name})` });
    if (state === 'aborted') {
      const timeout = entry.error?.name === 'TimeoutError';
      this.#onEvent({ kind: timeout ? 'timeout' : 'aborted', lock: entry.name, text: `${timeout ? 'timed out' : 'aborted'} waiting for ${entry.name} (${entry.error?.name})` });
    }
    const finished = this.#entries.filter((e) => !['requesting', 'pending', 'held', 'releasing'].includes(e.state));
    for (const old of finished.slice(0, Math.max(0, finished.length - KEEP_FINISHED))) {
      this.#entries.splice(this.#entries.indexOf(old), 1);
    }
    this.#changed();
  }

  #changed() {
    this.#onChange();
  }
}
