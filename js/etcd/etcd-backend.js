// A backend (docs/api.md, "The backend contract") whose lock space is an etcd cluster: every
// client of every machine pointed at the same cluster and namespace shares it.
//
// A request is a key under its name's prefix, created with this client's lease (queue.js has the
// layout and the grant rule). Each operation is one etcd transaction, and the ones that depend
// on the queue's state compare on revisions, so nothing decides on a stale read:
// - wait: put the key and read the queue in the same transaction; the key's create revision is
//   its place.
// - ifAvailable: put only if no key (exclusive) / no exclusive key (shared) exists, in one compare.
// - steal: read the queue, then delete its holders and put a preempting key, only if no key of the
//   name changed since the read and the holders and the first waiter still exist (a waiter that a
//   deletion made grantable in between would otherwise keep believing it holds).
// - release: delete the key if it is there; abort: the same, then see whether it was granted before.
// Every write is done at most once however often it is sent (once(): an answer lost after etcd
// committed, then a retry), and a retry answers what the first answer would have said.
// Waking is a watch per name (name-mirror.js) while this client has requests there.
// This client's operations run one after another, in call order (so its requests keep their
// order, and query() sees its own earlier requests).
// Over 400 lines: the operations, the watch's news and the audits all change the same records
// and names' state, in one order; queue.js, name-mirror.js and lease-keeper.js hold what stands apart.
import { KeyLayout, entryOf, orderQueue, heldCount, prefixEnd } from './queue.js';
import { etcdSource } from './observer.js';
import { NameMirror } from './name-mirror.js';
import { LeaseKeeper } from './lease-keeper.js';

const RESOLVED = Promise.resolve();
const later = (task) => { RESOLVED.then(task); };
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const MIRROR_IDLE_MS = 1000;
// A name's view that has changed nothing for AUDIT_AFTER_MS while this client waits or holds
// there is compared with etcd (audit()); one that differs gets AUDIT_GRACE_MS to catch up.
const AUDIT_AFTER_MS = 2000;
const AUDIT_GRACE_MS = 1000;

/** once()'s answer when the lease is no longer in etcd (and nothing written with it is). */
const LEASE_GONE = Symbol('lease gone');

const SENDING = 'sending'; // its transaction is in flight
const PENDING = 'pending'; // queued in etcd
const HELD = 'held';
const DONE = 'done';       // settled, reported, or gone

function lostMessage(reason) {
  return `The lock was lost: this client's etcd lease expired (${reason}).`;
}

export class EtcdBackend {
  /**
   * @param clientReady  Promise<Etcd3> (etcd3's client; loaded lazily)
   * @param options      { clientId, namespace, leaseTtl (s), keepAliveInterval (ms),
   *                      endpointsReady?: Promise<[Etcd3]> (one client per endpoint, for keep-alives) }
   */
  constructor(clientReady, { clientId, namespace, leaseTtl, keepAliveInterval, endpointsReady }) {
    this.clientId = clientId;
    this.layout = new KeyLayout(namespace);
    this.client = null;
    this.keeper = null;
    this.seq = 0;
    this.records = new Map(); // token -> record
    this.byKey = new Map();   // key -> record
    this.names = new Map();   // name -> { mirror, records: number }
    this.closed = false;
    this.loadError = null;
    this.writeSeq = 0;
    this.writeVersions = new Map(); // leaseId -> how many writes of this client are committed with it
    this.endpoints = [];
    this.audits = null;    // the audit timer, while records wait or are held
    this.stats = { audits: 0, mirrorsRebuilt: 0, grantsChecked: 0, grantsRefused: 0 };
    this.observers = new Set(); // observeLocks watches (observer.js), stopped by close()
    this.chain = Promise.all([clientReady, endpointsReady ?? []]).then(([client, endpoints]) => {
      this.client = client;
      this.endpoints = endpoints;
      const keepAliveClients = endpoints.length > 0 ? endpoints.map((endpoint) => endpoint.leaseClient) : [client.leaseClient];
      this.keeper = new LeaseKeeper(client.leaseClient, keepAliveClients, leaseTtl, keepAliveInterval,
        (leaseId, reason) => this.leaseLost(leaseId, reason));
    }, (error) => { this.loadError = error; });
  }

  // ---- the backend contract ----

  request(name, mode, waitMode, listener) {
    const token = ++this.seq;
    if (this.closed) {
      later(() => listener.failed(token, new DOMException('This lock manager is closed.', 'InvalidStateError')));
      return token;
    }
    const record = {
      token, name, mode, waitMode, listener, state: SENDING, deleting: false,
      key: this.layout.requestKey(name, mode, this.clientId, token),
      leaseId: null, fence: 0, goneEarly: null, attempt: 0,
    };
    this.records.set(token, record);
    this.byKey.set(record.key, record);
    this.nameState(name).records++;
    this.startAudits();
    this.enqueue(() => this.send(record)).catch((error) => this.fail(record, error));
    return token;
  }

  release(token) {
    const record = this.records.get(token);
    if (record === undefined || record.state !== HELD || record.deleting) return RESOLVED;
    record.deleting = true;
    // The LockManager settles the request's promise once this resolves: a key already gone
    // (stolen, or the lease expired, before the news came) is reported stolen first.
    return this.enqueue(async () => {
      const result = await this.deleteOnce(record);
      // (Closed meanwhile: the revoked lease took the key, which is a release too.)
      if (result !== null && (result === LEASE_GONE || !result.written) && record.state === HELD && !this.closed) {
        this.finish(record);
        record.listener.stolen(token, result === LEASE_GONE || this.isLeaseLost(record) ? lostMessage('found at release') : undefined);
        return;
      }
      this.finish(record);
    }).catch(() => this.finish(record));
  }

  abort(token) {
    const record = this.records.get(token);
    if (record === undefined || record.state === HELD || record.state === DONE || record.deleting) {
      return Promise.resolve(false);
    }
    record.deleting = true;
    const deleted = this.enqueue(async () => {
      // (No lease yet: queued again and not sent, nothing of it is in etcd.)
      if (record.state === DONE || record.leaseId === null) return null;
      return this.deleteOnce(record);
    });
    // Granted before our delete? Only the watch knows: wait (outside the operation chain, so a
    // slow watch holds back nothing else) until it has seen the delete, an event of this name at
    // that revision (a key found already gone made no event to wait for).
    return deleted.then(async (result) => {
      const mirror = this.names.get(record.name)?.mirror;
      if (result !== null && result !== LEASE_GONE && result.written && mirror) await mirror.reached(result.revision);
      const granted = record.state === HELD; // the grant won: the LockManager releases it when `granted` arrives
      this.finish(record);
      return !granted;
    }, () => {
      this.finish(record);
      return true;
    });
  }

  query() {
    return this.enqueue(async () => {
      const prefix = this.layout.names;
      const answer = await this.call(() => this.client.kv.range({ key: Buffer.from(prefix), range_end: prefixEnd(prefix) }));
      const byName = new Map();
      for (const kv of answer.kvs) {
        const entry = entryOf(kv);
        const name = this.layout.nameOfKey(entry.key);
        if (!byName.has(name)) byName.set(name, []);
        byName.get(name).push(entry);
      }
      const held = [];
      const pending = [];
      for (const [name, entries] of byName) {
        const ordered = orderQueue(entries);
        const count = heldCount(ordered);
        ordered.forEach((entry, i) => {
          (i < count ? held : pending).push({ name, mode: entry.mode, clientId: entry.clientId });
        });
      }
      return { held, pending };
    });
  }

  /** observeLocks's source: every name of this lock space, from one etcd watch. */
  observeSource() {
    return etcdSource(this);
  }

  /** Agent termination of this client: its lease is revoked, so every key of it goes at once. */
  async close() {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.audits);
    this.audits = null;
    const cancels = [...this.observers].map((watch) => watch.stop());
    for (const state of this.names.values()) {
      clearTimeout(state.idle);
      if (state.mirror) cancels.push(state.mirror.close());
    }
    this.names.clear();
    // Watches are cancelled before the client closes: etcd3 keeps a watch whose cancel was cut
    // short by close() and retries its stream for ever on backoff timers, so the process never
    // exits (seen in 1 of 5 runs of the suite). At most a second: etcd may be unreachable.
    let bound = null;
    await Promise.race([Promise.all(cancels), new Promise((resolve) => { bound = setTimeout(resolve, 1000); })]);
    clearTimeout(bound);
    await this.chain.catch(() => {});
    if (this.keeper !== null) await this.keeper.revoke().catch(() => {});
    // What this client still held is released and what it waited for dropped (the lease is
    // revoked); a process that goes on is told so rather than left with promises that never settle.
    for (const record of this.records.values()) {
      const { listener, token } = record;
      if (record.deleting) continue; // its release or abort, still running, settles it
      if (record.state === HELD) {
        later(() => listener.stolen(token, 'The lock was released: its lock manager was closed.'));
      } else if (record.state !== DONE) {
        later(() => listener.failed(token, new DOMException('The request was dropped: its lock manager was closed.', 'AbortError')));
      }
      record.state = DONE;
    }
    this.records.clear();
    this.byKey.clear();
    this.client?.close();
    for (const endpoint of this.endpoints) endpoint.close();
  }

  // ---- operations ----

  enqueue(op) {
    const run = this.chain.then(() => {
      if (this.loadError !== null) throw this.loadError;
      return op();
    });
    this.chain = run.catch(() => {});
    return run;
  }

  /** One call, retried while etcd cannot answer (a member down, an election). */
  async call(fn, shouldStop = () => this.closed) {
    for (let attempt = 0; ; attempt++) {
      try {
        return await fn();
      } catch (error) {
        if (shouldStop() || !isRetryable(error)) throw error;
        await sleep(Math.min(1000, 25 * 2 ** Math.min(attempt, 6)));
      }
    }
  }

  /** As call(), for a record's operation: null when the record ended (lease lost) meanwhile. */
  async retrying(record, fn) {
    try {
      return await this.call(fn, () => this.closed || (record.state === DONE && !record.deleting));
    } catch (error) {
      if (this.closed || record.state === DONE) return null;
      throw error;
    }
  }

  async send(record) {
    for (;;) {
      if (record.state === DONE) return;
      let leaseId;
      try {
        leaseId = await this.call(() => this.keeper.leaseId());
      } catch (error) {
        if (this.closed) return;
        throw error;
      }
      if (record.state === DONE) return;
      record.leaseId = leaseId;
      const outcome = record.waitMode === 'preempt' ? await this.steal(record) : await this.put(record);
      if (outcome === LEASE_GONE) {
        // The lease ended in etcd between taking it and using it: take a new one.
        if (this.closed) return;
        this.keeper.expired(leaseId);
        continue;
      }
      if (outcome === null || record.state === DONE) return;
      this.sent(record, outcome);
      return;
    }
  }

  /**
   * A write of this client, done at most once however often it is sent (etcd3 retries a call
   * whose answer did not come, and so does call()). The transaction runs `success` (if `compare`
   * holds) only while this client's write log on the lease (queue.js) is at the version that
   * counts its writes so far, and bumps the log, with this write's id, in the same branch. So a
   * retry finds either the log as it was (nothing of it was written: it runs now) or one version
   * on with its own id (it was written, at the log's mod revision), and a late copy of an
   * attempt can never apply after a later write. A branch that writes nothing leaves the log.
   * @returns { written, revision, responses } (responses null when learned from the log),
   *   LEASE_GONE when the lease is no longer in etcd, or null when the record ended meanwhile.
   */
  async once(record, leaseId, { compare = [], success }) {
    const log = Buffer.from(this.layout.writeLogKey(this.clientId, leaseId));
    const id = Buffer.from(String(++this.writeSeq));
    const bump = { request_put: { key: log, value: id, lease: leaseId } };
    for (;;) {
      const version = this.writeVersions.get(leaseId) ?? 0;
      let answer;
      try {
        answer = await this.retrying(record, () => this.client.kv.txn({
          compare: [{ key: log, target: 'Version', result: 'Equal', version }],
          success: [{ request_txn: { compare, success: [...success, bump], failure: [] } }],
          failure: [{ request_range: { key: log } }],
        }));
      } catch (error) {
        if (isLeaseNotFound(error)) return LEASE_GONE;
        throw error;
      }
      if (answer === null) return null;
      if (answer.succeeded) {
        const inner = answer.responses[0].response_txn;
        if (inner.succeeded) this.writeVersions.set(leaseId, version + 1);
        return { written: inner.succeeded, revision: Number(answer.header.revision), responses: inner.succeeded ? inner.responses : [] };
      }
      const [kv] = answer.responses[0].response_range.kvs;
      if (kv === undefined) return LEASE_GONE; // expired or revoked, with every key written with it
      const at = Number(kv.version);
      if (kv.value.equals(id)) {
        this.writeVersions.set(leaseId, at);
        return { written: true, revision: Number(kv.mod_revision), responses: null };
      }
      if (at <= version) {
        throw new Error(`weblocks-wasm: this client's etcd write log ${log} is at version ${at}, below the ${version} it wrote: does another client use clientId ${this.clientId}?`);
      }
      // An earlier write whose answer never came (given up when its record ended) was committed
      // after all: count it, and send this one again.
      this.writeVersions.set(leaseId, at);
    }
  }

  /** Release and abort: delete the record's key if it is still there (written: false if not). */
  deleteOnce(record) {
    const key = Buffer.from(record.key);
    return this.once(record, record.leaseId, {
      compare: [{ key, target: 'Create', result: 'NotEqual', create_revision: 0 }],
      success: [{ request_delete_range: { key } }],
    });
  }

  /** wait and no-wait: one transaction that puts the key and reads the queue. */
  async put(record) {
    const prefix = this.layout.namePrefix(record.name);
    const readQueue = { request_range: this.layout.nameRange(record.name) };
    const putKey = { request_put: { key: Buffer.from(record.key), value: this.valueOf(record, false), lease: record.leaseId } };
    const compare = [];
    if (record.waitMode === 'no-wait') {
      // Spec 4.1 step 2.5 (ifAvailable): grantable at once, or not at all.
      const blocking = record.mode === 'exclusive' ? prefix : this.layout.exclusivePrefix(record.name);
      compare.push({ key: Buffer.from(blocking), range_end: prefixEnd(blocking), target: 'Create', result: 'Equal', create_revision: 0 });
    }
    const result = await this.once(record, record.leaseId, { compare, success: [putKey, readQueue] });
    if (result === null || result === LEASE_GONE) return result;
    if (!result.written) {
      this.finish(record);
      later(() => record.listener.notAvailable(record.token));
      return null;
    }
    return this.queueAt(record, result, 1);
  }

  /**
   * The name's queue as the write at `result.revision` read it: from its answer, or (the answer
   * was lost) read again at that revision, which gives the same.
   */
  async queueAt(record, result, index) {
    if (result.responses !== null) {
      return { revision: result.revision, kvs: result.responses[index].response_range.kvs };
    }
    const range = this.layout.nameRange(record.name);
    try {
      const read = await this.retrying(record, () => this.client.kv.range({ ...range, revision: result.revision }));
      return read === null ? null : { revision: result.revision, kvs: read.kvs };
    } catch (error) {
      if (!/compacted/i.test(String(error?.message))) throw error;
      // That history is compacted: the queue now (sent() queues the request again if its key is gone).
      const read = await this.retrying(record, () => this.client.kv.range(range));
      return read === null ? null : { revision: Number(read.header.revision), kvs: read.kvs };
    }
  }

  /**
   * Spec 4.1 step 2.4 (steal): the holders' keys go and this request stands at the head, in one
   * transaction that holds only if the queue is as read.
   */
  async steal(record) {
    const range = this.layout.nameRange(record.name);
    for (;;) {
      const read = await this.retrying(record, () => this.client.kv.range(range));
      if (read === null) return null;
      const readRevision = Number(read.header.revision);
      const ordered = orderQueue(read.kvs.map(entryOf));
      const count = heldCount(ordered);
      const holders = ordered.slice(0, count);
      const guarded = ordered.slice(0, count + 1); // the holders and the first waiter
      const compare = [
        // No key of the name created (or changed) since the read.
        { key: range.key, range_end: range.range_end, target: 'Mod', result: 'Less', mod_revision: readRevision + 1 },
        ...guarded.map((entry) => ({ key: Buffer.from(entry.key), target: 'Create', result: 'Equal', create_revision: entry.create })),
      ];
      const result = await this.once(record, record.leaseId, {
        compare,
        success: [
          ...holders.map((entry) => ({ request_delete_range: { key: Buffer.from(entry.key) } })),
          { request_put: { key: Buffer.from(record.key), value: this.valueOf(record, true), lease: record.leaseId } },
          { request_range: range },
        ],
      });
      if (result === null || result === LEASE_GONE) return result;
      if (result.written) return this.queueAt(record, result, holders.length + 1);
      // The queue changed under us: read it again.
    }
  }

  valueOf(record, preempt) {
    const value = { c: this.clientId, m: record.mode };
    if (preempt) value.p = 1;
    return Buffer.from(JSON.stringify(value));
  }

  /** The key is in etcd at `revision`, with the queue as read in the same transaction. */
  sent(record, { revision, kvs }) {
    record.state = PENDING;
    if (!this.keeper.isValid(record.leaseId)) {
      this.requeue(record); // its lease was lost while the transaction was in flight
      return;
    }
    if (!kvs.some((kv) => kv.key.toString() === record.key)) {
      this.requeue(record); // gone before we could read it (only when history was compacted): never told held
      return;
    }
    const state = this.nameState(record.name);
    const ordered = orderQueue(kvs.map(entryOf));
    const heldAtOnce = ordered.slice(0, heldCount(ordered)).some((entry) => entry.key === record.key);
    if (record.goneEarly !== null) {
      // The watch saw the key come and go before this answer arrived.
      const { grantRevision } = record.goneEarly;
      if (grantRevision !== undefined || heldAtOnce) this.grant(record, grantRevision ?? revision);
      this.lose(record);
      return;
    }
    if (heldAtOnce) {
      this.grant(record, revision);
    } else {
      const seen = state.mirror?.entries.get(record.key);
      if (seen?.grantRevision !== undefined) this.grantFromView(record, seen.grantRevision);
    }
    if (state.mirror === null && !this.closed) {
      state.mirror = new NameMirror(this.layout.namePrefix(record.name), kvs, revision,
        (mirror, changes) => this.mirrorChanged(record.name, mirror, changes));
      state.mirror.watch(this.client);
    }
  }

  // ---- what the watch says ----

  mirrorChanged(name, mirror, { grants = [], deletes = [], demoted = [], error }) {
    if (error !== undefined) {
      this.watchFailed(name, mirror, error);
      return;
    }
    for (const entry of grants) {
      const record = this.byKey.get(entry.key);
      if (record !== undefined && record.state === PENDING) this.grantFromView(record, entry.grantRevision);
    }
    for (const entry of deletes) {
      const record = this.byKey.get(entry.key);
      if (record === undefined || record.deleting) continue;
      if (record.state === SENDING) {
        record.goneEarly = { grantRevision: entry.grantRevision };
        continue;
      }
      this.lose(record);
    }
    for (const entry of demoted) {
      const record = entry && this.byKey.get(entry.key);
      if (record === undefined || record.state !== HELD) continue;
      this.lose(record, 'The lock was lost: its request is no longer at the head of the queue in etcd.');
      this.deleteLater(record.key);
    }
  }

  /** etcd cancelled a watch (it cannot be resumed): this client cannot tell what happens there. */
  watchFailed(name, mirror, error) {
    const state = this.names.get(name);
    if (state?.mirror !== mirror) return;
    mirror.close();
    state.mirror = null; // the next request on the name starts a new watch
    for (const record of [...this.records.values()]) {
      // A request still being sent goes on: its answer starts a new watch from its own read.
      if (record.name !== name || record.state === DONE || record.state === SENDING) continue;
      this.deleteLater(record.key);
      this.lose(record, `The lock was lost: the etcd watch of its name failed (${error?.message ?? error}).`);
    }
  }

  /**
   * Deletes a key of this client that no record stands for any more, retried until etcd answers
   * (in the operation chain): left in etcd under a live lease, it would hold its name for ever.
   */
  deleteLater(key) {
    this.enqueue(() => this.call(() => this.client.kv.deleteRange({ key: Buffer.from(key) }))).catch(() => {});
  }

  grant(record, fence) {
    if (record.state !== PENDING) return;
    if (!this.keeper.isValid(record.leaseId)) return; // leaseLost() reports it
    record.state = HELD;
    record.fence = fence;
    later(() => record.listener.granted(record.token, { fencingToken: fence }));
  }

  /** The record's key is gone without our doing: a steal, or the lease expired. */
  lose(record, message) {
    if (record.state === DONE) return;
    if (record.state !== HELD) {
      this.requeue(record);
      return;
    }
    this.finish(record);
    const text = message ?? (this.isLeaseLost(record) ? lostMessage('its key is gone') : undefined);
    later(() => record.listener.stolen(record.token, text));
  }

  /**
   * A waiting request whose key is gone (its lease expired, or was taken as lost here) is not a
   * lock anybody believes held: it is queued again under a new key (and the current lease), at
   * the back of the queue, and its promise keeps waiting.
   */
  requeue(record) {
    if (this.closed || record.state === DONE || record.deleting) {
      if (!record.deleting) this.finish(record);
      return;
    }
    // Normally gone already; were it not (this client took it for gone too early), it would
    // keep a place in the queue, perhaps at its head, for as long as its lease lives.
    if (record.leaseId !== null) this.deleteLater(record.key);
    this.byKey.delete(record.key);
    record.attempt += 1;
    record.key = this.layout.requestKey(record.name, record.mode, this.clientId, `${record.token}-${record.attempt}`);
    this.byKey.set(record.key, record);
    record.state = SENDING;
    record.goneEarly = null;
    record.leaseId = null;
    this.enqueue(() => this.send(record)).catch((error) => this.fail(record, error));
  }

  /**
   * The lease is gone (or must be taken as gone): its held locks are reported lost (stolen, with
   * the reason), its waiting requests queued again under a new lease.
   */
  leaseLost(leaseId, reason) {
    for (const record of [...this.records.values()]) {
      if (record.leaseId !== leaseId || record.state === DONE) continue;
      if (record.state === HELD) {
        this.finish(record);
        later(() => record.listener.stolen(record.token, lostMessage(reason)));
      } else if (record.state === PENDING) {
        this.requeue(record);
      } // SENDING: sent() sees the lease is no longer valid
    }
    this.writeVersions.delete(leaseId);
    // Whatever of it etcd still has goes now, if etcd can be reached.
    this.client.leaseClient.leaseRevoke({ ID: leaseId }).catch(() => {});
  }

  isLeaseLost(record) {
    return this.keeper === null || !this.keeper.isValid(record.leaseId);
  }

  fail(record, error) {
    if (record.state === DONE) return;
    const wasHeld = record.state === HELD;
    this.finish(record);
    if (wasHeld) later(() => record.listener.stolen(record.token, `The lock was lost: ${error?.message ?? error}`));
    else later(() => record.listener.failed(record.token, error));
  }

  finish(record) {
    if (record.state === DONE && !this.records.has(record.token)) return;
    record.state = DONE;
    this.records.delete(record.token);
    this.byKey.delete(record.key);
    const state = this.names.get(record.name);
    if (state === undefined) return;
    state.records--;
    if (state.records > 0) return;
    if (state.mirror === null || this.closed) {
      this.names.delete(record.name);
      return;
    }
    // Kept a moment for the next request on the name: a new watch starting at a revision etcd
    // has already passed is served by its background sync (every 100 ms in etcd 3.4), which
    // would delay every handoff. An open watch keeps the process alive until then.
    state.idle = setTimeout(() => {
      state.mirror.close();
      this.names.delete(record.name);
    }, MIRROR_IDLE_MS);
  }

  // ---- the audit: a mirror is checked against etcd ----

  startAudits() {
    if (this.audits !== null || this.closed) return;
    this.audits = setInterval(() => this.auditQuietMirrors(), AUDIT_AFTER_MS / 2);
    this.audits.unref?.();
  }

  auditQuietMirrors() {
    if (this.records.size === 0 || this.client === null) {
      clearInterval(this.audits);
      this.audits = null;
      return;
    }
    const now = performance.now();
    for (const [name, state] of this.names) {
      const mirror = state.mirror;
      if (mirror === null || mirror.closed || state.records === 0 || now - mirror.changedAt < AUDIT_AFTER_MS) continue;
      this.auditOnce(state, () => this.audit(name, state, mirror));
    }
  }

  /** Runs `check` (an audit or a rebuild of the name's view) unless one is already under way there. */
  auditOnce(state, check) {
    if (state.auditing) return;
    state.auditing = true;
    check().catch(() => {}).finally(() => { state.auditing = false; });
  }

  /**
   * A watch can fall silent or miss a change (a stream that broke at the wrong moment; never
   * seen in etcd's own history): this client would then wait for ever for a lock that is free,
   * or hold on to one whose key is gone. So a view that has been quiet while this client waits or
   * holds on its name is compared with the name's keys in etcd now (a view's revision moves only
   * with its own name's changes, so keys are compared, not revisions), and so are the keys of
   * this client's requests there (recordsMissingFrom()); an abort waiting for the view to pass the
   * revision of its delete, which etcd has passed, finds it behind too. A view that still differs
   * after AUDIT_GRACE_MS more (time for changes on their way to it) is rebuilt.
   */
  async audit(name, state, mirror) {
    this.stats.audits++;
    const range = this.layout.nameRange(name);
    for (let look = 0; look < 2; look++) {
      if (look > 0) await sleep(AUDIT_GRACE_MS);
      const now = await this.call(() => this.client.kv.range(range));
      if (state.mirror !== mirror || mirror.closed || this.closed) return;
      if (mirror.matches(now.kvs) && this.recordsMissingFrom(name, now.kvs).length === 0 && !mirror.behind(Number(now.header.revision))) return;
    }
    await this.rebuildFromEtcd(name, state, mirror);
  }

  /**
   * This client's waiting and held requests of the name whose keys `kvs` lacks (not those being
   * released or aborted). The audit asks too: a view that missed a request's put and then its
   * deletion (a steal, once etcd's queue had made it the holder) matches etcd, and the request
   * would wait for ever, or be held by a client never told of the steal (seen in the chaos test:
   * a view empty at its start revision, etcd empty, a request of its client pending).
   */
  recordsMissingFrom(name, kvs) {
    const keys = new Set(kvs.map((kv) => kv.key.toString()));
    return [...this.records.values()].filter((record) => record.name === name && !record.deleting
      && (record.state === PENDING || record.state === HELD) && !keys.has(record.key));
  }

  /**
   * Rebuilt in the operation chain, from a read made there: no request of this client is being
   * sent meanwhile, so every key of its records that the read lacks is gone (a read made before
   * a request's key was written would otherwise count that request as gone).
   */
  rebuildFromEtcd(name, state, mirror) {
    const range = this.layout.nameRange(name);
    return this.enqueue(async () => {
      if (state.mirror !== mirror || mirror.closed || this.closed) return;
      const fresh = await this.call(() => this.client.kv.range(range));
      if (state.mirror !== mirror || mirror.closed || this.closed) return;
      this.rebuildMirror(name, state, mirror, fresh.kvs, Number(fresh.header.revision));
    });
  }

  /**
   * A grant decided by a name's view (its watch) is checked against etcd's history before it is
   * told: the name's keys read at the grant's revision must have this request among the held
   * ones (queue.js). Exclusion then never rests on the watch having delivered every change: a
   * view that missed one (seen in the chaos test: two clients' views each put their own key at
   * the head at the same revision, and both were told granted with one fencing token) is rebuilt
   * instead, and decides again. The checks of one name run in order (its grants keep their order).
   */
  grantFromView(record, fence) {
    if (record.state !== PENDING || record.checking) return;
    record.checking = true;
    const key = record.key;
    const state = this.nameState(record.name);
    const check = (state.checks ?? RESOLVED).then(() => this.heldAt(record, fence)).then((answer) => {
      record.checking = false;
      if (answer === null || record.state !== PENDING || record.deleting || record.key !== key) return;
      this.stats.grantsChecked++;
      if (answer.held) {
        this.grant(record, answer.revision);
        return;
      }
      this.stats.grantsRefused++;
      if (this.stats.grantsRefused === 1) {
        process.emitWarning?.(`the etcd watch of a lock name missed a change: a grant it showed is not in etcd's history at revision ${fence}; its view is rebuilt from etcd`, { code: 'WEBLOCKS_ETCD_WATCH' });
      }
      if (state.mirror !== null) this.auditOnce(state, () => this.rebuildFromEtcd(record.name, state, state.mirror));
    }, (error) => {
      record.checking = false;
      if (record.state !== PENDING || record.key !== key) return;
      this.fail(record, error);
    });
    state.checks = check.catch(() => {});
  }

  /** Whether the record's key is among the held ones of its name at `revision` (now, if that history is compacted). */
  async heldAt(record, revision) {
    const range = this.layout.nameRange(record.name);
    let read;
    try {
      read = await this.retrying(record, () => this.client.kv.range({ ...range, revision }));
    } catch (error) {
      if (!/compacted/i.test(String(error?.message))) throw error;
      read = await this.retrying(record, () => this.client.kv.range(range));
      if (read !== null) revision = Number(read.header.revision);
    }
    if (read === null) return null;
    const ordered = orderQueue(read.kvs.map(entryOf));
    return { held: ordered.slice(0, heldCount(ordered)).some((entry) => entry.key === record.key), revision };
  }

  rebuildMirror(name, state, stale, kvs, revision) {
    this.stats.mirrorsRebuilt++;
    if (this.stats.mirrorsRebuilt === 1) {
      process.emitWarning?.(`the etcd watch of a lock name fell silent or missed a change; its view was rebuilt from etcd at revision ${revision}`, { code: 'WEBLOCKS_ETCD_WATCH' });
    }
    stale.close();
    // Created before its first decision: the grants it reports go to records of this name.
    state.mirror = new NameMirror(this.layout.namePrefix(name), kvs, revision, (mirror, changes) => this.mirrorChanged(name, mirror, changes));
    state.mirror.watch(this.client);
    for (const record of this.recordsMissingFrom(name, kvs)) this.lose(record);
  }

  nameState(name) {
    let state = this.names.get(name);
    if (state === undefined) this.names.set(name, state = { mirror: null, records: 0, idle: null });
    if (state.idle !== null) {
      clearTimeout(state.idle);
      state.idle = null;
    }
    return state;
  }
}

// gRPC UNAVAILABLE / DEADLINE_EXCEEDED and etcd's "leader changed", "no leader", "timed out":
// the cluster may answer on the next try.
function isRetryable(error) {
  if (error?.code === 14 || error?.code === 4) return true;
  const text = String(error?.message ?? '') + String(error?.details ?? '');
  return /unavailable|leader changed|no leader|timed out|timeout|deadline|connect|ECONNREFUSED|ECONNRESET|circuit|GOAWAY|RST_STREAM|No connection/i.test(text)
    || error?.name === 'BrokenCircuitError' || error?.constructor?.name === 'GRPCUnavailableError'
    || error?.constructor?.name === 'GRPCDeadlineExceededError' || error?.constructor?.name === 'GRPCConnectFailedError';
}

function isLeaseNotFound(error) {
  return /lease not found/i.test(String(error?.message ?? ''));
}
