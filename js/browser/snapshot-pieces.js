// The context's side of query() in pieces (js/hub/snapshot-pieces.js): the pieces of one answer
// are put back together in order; a query settles on its last piece, or rejects when an answer
// cannot arrive: the hub refused it, a message could not be deserialized, or no piece came for
// LIMITS.queryTimeout (a lost answer must never leave query() pending forever).
import { LIMITS } from '../hub/protocol.js';
import { fromColumns } from '../hub/snapshot-pieces.js';

export class PendingQueries {
  constructor(now) {
    this.now = now;
    this.calls = new Map(); // call -> { resolve, reject, held, pending, lastProgress }
  }

  get size() { return this.calls.size; }

  keys() { return this.calls.keys(); }

  has(call) { return this.calls.has(call); }

  /** `made`: where the query() call stands among the context's calls (hub-link.js askAgain). */
  add(call, resolve, reject, made = 0) {
    this.calls.set(call, { resolve, reject, held: [], pending: [], lastProgress: this.now(), made });
  }

  madeAt(call) { return this.calls.get(call)?.made ?? 0; }

  /** Asked again (after a reconnection): what came of the earlier answer is dropped. */
  restart(call) {
    const query = this.calls.get(call);
    if (query === undefined) return;
    query.held = [];
    query.pending = [];
    query.lastProgress = this.now();
  }

  /** A piece of an answer; true when the query settled with it. */
  piece(m) {
    const query = this.calls.get(m.call);
    if (query === undefined) return false;
    // Columns (js/hub/snapshot-pieces.js) made into LockInfos here; a malformed piece adds nothing.
    const { held } = query;
    const length = held.length;
    if (!fromColumns(m.held, held) || !fromColumns(m.pending, query.pending)) return (held.length = length), false;
    query.lastProgress = this.now();
    if (m.more === true) return false;
    this.calls.delete(m.call);
    query.resolve({ held: query.held, pending: query.pending });
    return true;
  }

  /** Rejects one query (the hub refused it). */
  fail(call, error) {
    const query = this.calls.get(call);
    if (query === undefined) return false;
    this.calls.delete(call);
    query.reject(error);
    return true;
  }

  /** Rejects every query. */
  failAll(error) {
    const queries = [...this.calls.values()];
    this.calls.clear();
    for (const query of queries) query.reject(error);
  }

  /** Rejects the queries that made no progress for `timeout` ms; true if any did. */
  expire(timeout = LIMITS.queryTimeout) {
    const now = this.now();
    let any = false;
    for (const [call, query] of this.calls) {
      if (now - query.lastProgress < timeout) continue;
      this.calls.delete(call);
      any = true;
      query.reject(new DOMException(`The lock hub did not answer query() within ${Math.round(timeout / 1000)} s.`, 'TimeoutError'));
    }
    return any;
  }
}
