// A mirror of one name's queue, kept from etcd's watch: the state at one revision (a range read
// in the transaction that created one of our keys), then every change after it, in revision
// order. Events of one revision (a steal's transaction deletes the holders and puts its key) are
// applied together before anything is decided: in between, a waiter would look grantable.
//
// After each revision the mirror works out which requests are held (queue.js) and records, for
// each, the revision at which it became held: that revision is the request's fencing token
// (every client computes the same one from the same history, and it only grows from one holder
// of a name to the next, steals included).
import { entryOf, orderQueue, heldCount } from './queue.js';

export class NameMirror {
  /**
   * @param prefix     the name's key prefix
   * @param kvs        the name's keys as read at `revision`
   * @param revision   the revision of that read
   * @param onChange(mirror, changes)  after each revision: changes = { grants: [entry], deletes: [entry], demoted: [entry] }
   */
  constructor(prefix, kvs, revision, onChange) {
    this.prefix = prefix;
    this.entries = new Map();
    this.revision = revision;
    this.onChange = onChange;
    this.watcher = null;
    this.closed = false;
    this.reachWaiters = []; // [revision, resolve]
    this.changedAt = performance.now(); // when it last applied a change (EtcdBackend's audit)
    for (const kv of kvs) this.entries.set(kv.key.toString(), entryOf(kv));
    this.held = new Set();
    this.decide(revision);
  }

  /**
   * Starts watching from the revision after the read. The listeners are on the watcher before it
   * can emit anything (etcd3's create() resolves a turn after 'connected', and the events replayed
   * after it can arrive in the same turn: they would be lost).
   */
  watch(client) {
    const watcher = client.watch().prefix(this.prefix).startRevision(String(this.revision + 1)).watcher();
    this.watcher = watcher;
    // etcd3 resumes a broken watch from one past the last header revision it saw, which its
    // created answer sets to etcd's current revision before the events replayed after it have
    // arrived: a stream cut in between would skip them. The mirror knows what it has applied.
    const resumeAfterMirror = () => { watcher.request.start_revision = String(this.revision + 1); };
    watcher.on('connected', resumeAfterMirror);
    watcher.on('disconnected', resumeAfterMirror);
    watcher.on('data', (response) => {
      if (this.closed) return;
      this.apply(response);
      resumeAfterMirror();
    });
    // A watch that etcd cancels (compaction past our revision) cannot be resumed: say so loudly.
    watcher.on('error', (error) => { if (!this.closed) this.onChange(this, { error }); });
  }

  apply(response) {
    const events = response.events ?? [];
    const foreign = events.find((event) => !event.kv.key.toString().startsWith(this.prefix));
    if (foreign !== undefined) {
      // Never expected (load-client.js keeps a broken stream's answers out): this mirror can no
      // longer be trusted, and its name's requests are reported lost rather than decided on it.
      this.onChange(this, { error: new Error(`the watch of ${this.prefix} was given an event of ${foreign.kv.key}`) });
      return;
    }
    let i = 0;
    while (i < events.length) {
      const revision = Number(events[i].kv.mod_revision);
      const deletes = [];
      if (revision <= this.revision) { // replayed after a reconnect: already applied
        while (i < events.length && Number(events[i].kv.mod_revision) === revision) i++;
        continue;
      }
      for (; i < events.length && Number(events[i].kv.mod_revision) === revision; i++) {
        const { type, kv } = events[i];
        const key = kv.key.toString();
        if (type === 'Put') {
          this.entries.set(key, entryOf(kv));
        } else {
          const gone = this.entries.get(key);
          this.entries.delete(key);
          this.held.delete(key);
          if (gone !== undefined) deletes.push(gone);
        }
      }
      this.revision = revision;
      this.changedAt = performance.now();
      this.decide(revision, deletes);
    }
    // Progress notifications and empty responses also tell us how far the watch has come.
    const headerRevision = Number(response.header?.revision ?? 0);
    if (events.length === 0 && headerRevision > this.revision) this.revision = headerRevision;
    this.wakeReached();
  }

  decide(revision, deletes = []) {
    const ordered = orderQueue([...this.entries.values()]);
    const count = heldCount(ordered);
    const grants = [];
    const nowHeld = new Set();
    for (let i = 0; i < count; i++) {
      const entry = ordered[i];
      nowHeld.add(entry.key);
      if (entry.grantRevision === undefined) {
        entry.grantRevision = revision;
        grants.push(entry);
      }
    }
    // A held request that is no longer held while its key remains would be a holder that
    // believes it holds: queue.js's transactions never let it happen; reported if it ever does.
    const demoted = [];
    for (const key of this.held) if (!nowHeld.has(key)) demoted.push(this.entries.get(key));
    this.held = nowHeld;
    this.onChange(this, { grants, deletes, demoted });
  }

  /** Whether the mirror has exactly the keys of `kvs`, each with its create revision (EtcdBackend's audit). */
  matches(kvs) {
    if (kvs.length !== this.entries.size) return false;
    return kvs.every((kv) => this.entries.get(kv.key.toString())?.create === Number(kv.create_revision));
  }

  /**
   * Whether something waits (reached(): for a revision this view has not applied) for one that
   * etcd, now at `current`, has passed: the change it waits for is this name's own (an abort's
   * delete), so a quiet view that has not applied it missed it (EtcdBackend's audit).
   */
  behind(current) {
    return this.reachWaiters.some(([revision]) => revision <= current);
  }

  /** Resolves once the mirror has applied every change up to `revision`. */
  reached(revision) {
    if (this.revision >= revision || this.closed) return Promise.resolve();
    return new Promise((resolve) => this.reachWaiters.push([revision, resolve]));
  }

  wakeReached() {
    if (this.reachWaiters.length === 0) return;
    this.reachWaiters = this.reachWaiters.filter(([revision, resolve]) => {
      if (this.revision < revision) return true;
      resolve();
      return false;
    });
  }

  /** Stops watching; resolves once etcd has cancelled the watch (or it never started). */
  close() {
    this.closed = true;
    for (const [, resolve] of this.reachWaiters) resolve();
    this.reachWaiters = [];
    return this.watcher?.cancel().catch(() => {}) ?? Promise.resolve();
  }
}
