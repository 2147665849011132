// A tab's live view of every held and pending lock of the origin. On the polyfill it is fed by
// observeLocks (the lock space pushes every change: no re-reading at all); on native locks, which
// have no such thing, query() is re-read when told something changed (an announcement, its own
// change, a context's death), never on a timer. The contexts' announcements add who they are and
// since when each lock was held or waited for. A context's death is seen through the lock space itself: for every
// other context's name lock, this tab keeps one pending shared request, granted only when that
// context is gone (closed, crashed or terminated); it then lets go at once and re-reads.
import { NAME_LOCK_PREFIX, contextNameOfLock } from './context-name.js';

export const BOOKKEEPING_PREFIX = 'demo:';

export class LockView {
  #locks;
  #selfName;
  #onChange;
  #snapshot = { held: [], pending: [] };
  #announced = new Map(); // context name -> its latest announcement
  #watched = new Set(); // context names whose death this tab waits for
  #inFlight = false;
  #again = false;

  #onGone;
  #observing = false;

  /**
   * observeLocks: the polyfill's (or null: re-read query()); onDeadlock(change): a deadlock the
   * lock space reported (observeLocks only).
   */
  constructor({ locks, selfName, onChange, onGone = () => {}, observeLocks = null, onDeadlock = () => {} }) {
    this.#onGone = onGone;
    this.#locks = locks;
    this.#selfName = selfName;
    this.#onChange = onChange;
    if (observeLocks !== null) {
      this.#observing = true;
      observeLocks((snapshot, changes) => {
        this.setSnapshot(snapshot);
        for (const change of changes) if (change.type === 'deadlock') onDeadlock(change);
      });
    }
  }

  /** whether the view is pushed by observeLocks */
  get observing() {
    return this.#observing;
  }

  handle(message) {
    if (message.type === 'state') {
      this.#announced.set(message.name, message);
      this.refresh();
    } else if (message.type === 'bye') {
      this.#announced.delete(message.name);
      this.refresh();
    }
  }

  /** a snapshot read by someone else (a context's own query()): only used while not observing */
  offerSnapshot(snapshot) {
    if (!this.#observing) this.setSnapshot(snapshot);
    else this.#onChange();
  }

  /** re-read the lock state (coalesced: one query in flight, one more after it if asked again) */
  async refresh() {
    if (this.#observing) { this.#onChange(); return; } // (observeLocks keeps the state: only the announcements changed)
    if (this.#inFlight) { this.#again = true; return; }
    this.#inFlight = true;
    try {
      do {
        this.#again = false;
        this.setSnapshot(await this.#locks.query());
      } while (this.#again);
    } finally {
      this.#inFlight = false;
    }
  }

  setSnapshot(snapshot) {
    this.#snapshot = snapshot;
    this.#watchContexts();
    this.#onChange();
  }

  #watchContexts() {
    for (const { name } of this.#claims()) {
      const contextName = contextNameOfLock(name);
      if (!contextName || contextName === this.#selfName || this.#watched.has(contextName)) continue;
      this.#watched.add(contextName);
      this.#locks.request(NAME_LOCK_PREFIX + contextName, { mode: 'shared' }, () => {
        // Granted: the context that held its name is gone. Returning releases this at once.
        this.#watched.delete(contextName);
        this.#announced.delete(contextName);
        this.#onGone(contextName);
        queueMicrotask(() => this.refresh());
      }).catch(() => this.#watched.delete(contextName));
    }
  }

  /** held name claims: exclusive (the watchers hold the same names shared, for an instant) */
  #claims() {
    return this.#snapshot.held.filter((lock) => lock.mode === 'exclusive' && contextNameOfLock(lock.name));
  }

  /** the contexts in this lock space (by their name locks), plus any heard of that are not in it */
  contexts() {
    const inSpace = this.#claims()
      .map((lock) => ({ name: contextNameOfLock(lock.name), clientId: lock.clientId }))
      .filter((context) => context.name)
      .map((context) => {
        const announcement = this.#announced.get(context.name);
        return { ...context, implementation: announcement?.implementation ?? null, parent: announcement?.parent ?? null, inLockSpace: true };
      });
    const elsewhere = [...this.#announced.values()]
      .filter((announcement) => !inSpace.some((context) => context.name === announcement.name))
      .map((announcement) => ({ name: announcement.name, clientId: null, implementation: announcement.implementation, parent: announcement.parent ?? null, inLockSpace: false }));
    return [...inSpace, ...elsewhere].sort((a, b) => a.name.localeCompare(b.name, 'en', { numeric: true }));
  }

  /** the context name of a clientId (from its name lock), or null */
  contextNameOf(clientId) {
    const claim = this.#claims().find((lock) => lock.clientId === clientId);
    return claim === undefined ? null : contextNameOfLock(claim.name);
  }

  /** rows for the table: every held then every pending lock, with context name and start time */
  rows() {
    const nameOfClient = new Map();
    for (const lock of this.#claims()) {
      const contextName = contextNameOfLock(lock.name);
      if (contextName) nameOfClient.set(lock.clientId, contextName);
    }
    const seen = new Map(); // "context|name|mode|status" -> how many rows so far
    const toRow = (lock, status) => {
      const contextName = nameOfClient.get(lock.clientId) ?? null;
      const key = `${contextName}|${lock.name}|${lock.mode}|${status}`;
      const index = seen.get(key) ?? 0;
      seen.set(key, index + 1);
      const announced = (this.#announced.get(contextName)?.requests ?? [])
        .filter((r) => r.name === lock.name && r.mode === lock.mode && normalState(r.state) === status)
        .sort((a, b) => a.since - b.since);
      return {
        name: lock.name, mode: lock.mode, status, clientId: lock.clientId, contextName,
        since: announced[index]?.since ?? null, bookkeeping: lock.name.startsWith(BOOKKEEPING_PREFIX),
      };
    };
    return [
      ...this.#snapshot.held.map((lock) => toRow(lock, 'held')),
      ...this.#snapshot.pending.map((lock) => toRow(lock, 'pending')),
    ];
  }
}

function normalState(state) {
  return state === 'releasing' ? 'held' : state;
}
