// observeLocks on the etcd lock space: one watch of every name's keys (queue.js), from the
// revision of a read of them all. Each revision's events are applied together (a steal deletes the
// holders and puts its key in one transaction) and become changes: a key that appears is
// `requested`, one that becomes held `granted`, a held key deleted `released` (`stolen` when a
// preempting key of its name came in the same revision), a pending key deleted `aborted`.
// Deadlocks are not detected here (docs/api.md: no place sees every client's callbacks).
import { entryOf, orderQueue, heldCount, prefixEnd } from './queue.js';

/** observeLocks's source on the lock space of `backend` (an EtcdBackend), once its client is ready. */
export function etcdSource(backend) {
  return {
    observe(sink) {
      const watch = new LockSpaceWatch(backend, sink);
      backend.observers.add(watch);
      backend.enqueue(() => undefined).then(() => watch.start()).catch((error) => watch.fail(error));
      return () => watch.stop();
    },
  };
}

class LockSpaceWatch {
  constructor(backend, sink) {
    this.backend = backend;
    this.sink = sink;
    this.entries = new Map(); // key -> entry (queue.js entryOf) with `name`
    this.held = new Set();    // keys held now
    this.revision = 0;
    this.watcher = null;
    this.stopped = false;
    this.started = false;
  }

  async start() {
    if (this.stopped) return;
    const { client, layout } = this.backend;
    const prefix = layout.names;
    const answer = await client.kv.range({ key: Buffer.from(prefix), range_end: prefixEnd(prefix) });
    if (this.stopped) return;
    this.entries.clear();
    for (const kv of answer.kvs) this.put(kv);
    this.revision = Number(answer.header.revision);
    this.held = this.heldKeys();
    const snapshot = this.snapshot();
    if (!this.started) {
      this.started = true;
      this.sink.start(snapshot);
    } else {
      this.sink.changes([{ type: 'lost' }], snapshot); // a watch started over: the gap is in the snapshots
    }
    const watcher = client.watch().prefix(prefix).startRevision(String(this.revision + 1)).watcher();
    this.watcher = watcher;
    const resume = () => { watcher.request.start_revision = String(this.revision + 1); };
    watcher.on('connected', resume);
    watcher.on('disconnected', resume);
    watcher.on('data', (response) => {
      if (this.stopped || this.watcher !== watcher) return;
      this.apply(response.events ?? []);
      resume();
    });
    // A watch etcd cancels (compaction past our revision) cannot resume: read everything again.
    watcher.on('error', () => {
      if (this.stopped || this.watcher !== watcher) return;
      this.watcher = null;
      watcher.cancel().catch(() => {});
      this.start().catch((error) => this.fail(error));
    });
  }

  fail(error) {
    if (this.stopped) return;
    globalThis.process?.emitWarning?.(`weblocks-wasm: observeLocks: the etcd lock space cannot be observed: ${error?.message ?? error}`, { code: 'WEBLOCKS_ETCD_OBSERVE' });
  }

  put(kv) {
    const entry = entryOf(kv);
    entry.name = this.backend.layout.nameOfKey(entry.key);
    this.entries.set(entry.key, entry);
    return entry;
  }

  // Held keys: a prefix of each name's ordered queue (queue.js).
  heldKeys(names = null) {
    const byName = new Map();
    for (const entry of this.entries.values()) {
      if (names !== null && !names.has(entry.name)) continue;
      if (!byName.has(entry.name)) byName.set(entry.name, []);
      byName.get(entry.name).push(entry);
    }
    const held = new Set();
    for (const entries of byName.values()) {
      const ordered = orderQueue(entries);
      const count = heldCount(ordered);
      for (let i = 0; i < count; i++) held.add(ordered[i].key);
    }
    return held;
  }

  apply(events) {
    const records = [];
    let i = 0;
    while (i < events.length) {
      const revision = Number(events[i].kv.mod_revision);
      if (revision <= this.revision) { // replayed after a reconnect
        while (i < events.length && Number(events[i].kv.mod_revision) === revision) i++;
        continue;
      }
      const gone = [];
      const added = [];
      for (; i < events.length && Number(events[i].kv.mod_revision) === revision; i++) {
        const { type, kv } = events[i];
        const key = kv.key.toString();
        if (type === 'Put') {
          if (!this.entries.has(key)) added.push(this.put(kv));
        } else if (this.entries.has(key)) {
          gone.push(this.entries.get(key));
          this.entries.delete(key);
        }
      }
      this.revision = revision;
      const touched = new Set([...gone, ...added].map((entry) => entry.name));
      const heldBefore = this.held;
      const heldNow = new Set([...heldBefore].filter((key) => !touched.has(this.entries.get(key)?.name) && this.entries.has(key)));
      for (const key of this.heldKeys(touched)) heldNow.add(key);
      const stealing = new Set(added.filter((entry) => entry.preempt).map((entry) => entry.name));
      for (const entry of gone) {
        const wasHeld = heldBefore.has(entry.key);
        const type = !wasHeld ? 'aborted' : stealing.has(entry.name) ? 'stolen' : 'released';
        records.push(change(type, entry));
      }
      for (const entry of added) records.push(change('requested', entry));
      for (const key of heldNow) if (!heldBefore.has(key)) records.push(change('granted', this.entries.get(key)));
      this.held = heldNow;
    }
    if (records.length !== 0) this.sink.changes(records, this.snapshot());
  }

  snapshot() {
    const byName = new Map();
    for (const entry of this.entries.values()) {
      if (!byName.has(entry.name)) byName.set(entry.name, []);
      byName.get(entry.name).push(entry);
    }
    const held = [];
    const pending = [];
    for (const [name, entries] of byName) {
      for (const entry of orderQueue(entries)) {
        (this.held.has(entry.key) ? held : pending).push({ name, mode: entry.mode, clientId: entry.clientId });
      }
    }
    return { held, pending };
  }

  /** Resolves once etcd has cancelled the watch (or it never started). */
  stop() {
    this.stopped = true;
    this.backend.observers.delete(this);
    const watcher = this.watcher;
    this.watcher = null;
    return watcher?.cancel().catch(() => {}) ?? Promise.resolve();
  }
}

function change(type, entry) {
  return { type, name: entry.name, mode: entry.mode, clientId: entry.clientId };
}
