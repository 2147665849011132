// A watch that falls silent or misses a change must not leave a client waiting for a free lock for
// ever, nor holding one whose key is gone: a name's view (name-mirror.js) that has been quiet
// while its client waits or holds there is checked against etcd and rebuilt if it is behind or
// wrong (etcd-backend.js audit). Seen in the chaos test: one client's view of a name kept a key
// that etcd had deleted (its lease expired), and every client waited behind it.
// Here the watch is made deaf on purpose: its events no longer reach the view.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster } from './support/cluster.js';
import { EtcdBackend } from '../../../js/etcd/etcd-backend.js';
import { createLockManager, closeLockManager, clientIdOf } from '../../../js/etcd/index.js';
import { eventually } from '../api/until.js';

const cluster = await startCluster();
after(() => cluster.stop());

// The backend behind each lock manager, by clientId (to reach the view of a name).
const backends = new Map();
const request = EtcdBackend.prototype.request;
EtcdBackend.prototype.request = function captured(...args) {
  backends.set(this.clientId, this);
  return request.apply(this, args);
};

function deafen(locks, name) {
  const mirror = backends.get(clientIdOf(locks)).names.get(name).mirror;
  mirror.watcher.removeAllListeners('data');
  return mirror;
}

async function within(ms, promise, what) {
  let timer;
  const late = new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(`${what} (not within ${ms} ms)`)), ms); });
  try { return await Promise.race([promise, late]); } finally { clearTimeout(timer); }
}

/** `count` lock managers on a namespace of their own, closed after test `t`. */
function managers(t, label, count) {
  const options = { etcd: { hosts: cluster.hosts, namespace: `audit-${label}-${process.pid}/` } };
  const made = Array.from({ length: count }, () => createLockManager(options));
  t.after(() => Promise.all(made.map((locks) => closeLockManager(locks))));
  return made;
}

const named = (list, name) => list.filter((entry) => entry.name === name);

async function untilPending(locks, count) {
  for (;;) {
    const state = await locks.query();
    if (state.pending.length >= count) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

test('a waiter whose watch misses the holder\'s release is granted all the same, after its view is checked against etcd', { timeout: 60_000 }, async (t) => {
  const [holder, waiter] = managers(t, 'release', 2);
  let release;
  let holderToken = 0;
  const held = new Promise((resolve) => {
    holder.request('x', (lock) => { holderToken = lock.fencingToken; resolve(); return new Promise((r) => { release = r; }); });
  });
  await held;
  let waiterToken = 0;
  const granted = waiter.request('x', (lock) => { waiterToken = lock.fencingToken; });
  await untilPending(waiter, 1);
  deafen(waiter, 'x');
  release();
  await within(20_000, granted, 'the waiter is granted');
  assert.ok(waiterToken > holderToken, `its fencing token ${waiterToken} is above the holder's ${holderToken}`);
  assert.ok(backends.get(clientIdOf(waiter)).stats.mirrorsRebuilt >= 1, 'its view was rebuilt');
});

test('a holder whose watch misses a steal learns that its lock was stolen, after its view is checked against etcd', { timeout: 60_000 }, async (t) => {
  const [victim, thief] = managers(t, 'steal', 2);
  let entered;
  const inside = new Promise((resolve) => { entered = resolve; });
  const held = victim.request('x', () => { entered(); return new Promise(() => {}); });
  await inside;
  deafen(victim, 'x');
  await thief.request('x', { steal: true }, () => {});
  const outcome = await within(20_000, held.then(() => 'resolved', (error) => error), 'the holder learns of the steal');
  assert.equal(outcome?.name, 'AbortError');
});

test('a waiter whose view wrongly shows the holder gone is not told granted: the grant is checked against etcd\'s history, and the view rebuilt', { timeout: 60_000 }, async (t) => {
  const [holder, waiter, other] = managers(t, 'grant', 3);
  let release;
  let holding = false;
  const held = new Promise((resolve) => {
    holder.request('x', () => { holding = true; resolve(); return new Promise((r) => { release = r; }); });
  });
  await held;
  let waiterHolding = false;
  let waiterSawHolder = null;
  const granted = waiter.request('x', () => { waiterHolding = true; waiterSawHolder = holding; });
  await untilPending(waiter, 1);
  // A revision at which the holder still holds x (a write elsewhere), and a view that believes its key was deleted there.
  await other.request('elsewhere', () => {});
  const { revision } = (await backends.get(clientIdOf(other)).client.kv.range({ key: Buffer.from('none') })).header;
  const backend = backends.get(clientIdOf(waiter));
  const holderKey = [...backend.names.get('x').mirror.entries.values()].find((entry) => entry.clientId === clientIdOf(holder)).key;
  backend.names.get('x').mirror.apply({ header: { revision }, events: [{ type: 'Delete', kv: { key: Buffer.from(holderKey), mod_revision: revision } }] });
  for (;;) { // the grant it showed was checked, or (without the check) told
    if (waiterHolding || backend.stats.grantsRefused > 0) break;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  assert.equal(waiterHolding, false, 'the waiter is not granted while the holder holds x');
  holding = false;
  release();
  await within(20_000, granted, 'the waiter is granted once the holder released');
  assert.equal(waiterSawHolder, false);
});

test('a waiter whose view is right is audited while it waits behind a long hold, and its view is kept, however other names change', { timeout: 60_000 }, async (t) => {
  const [holder, waiter, other] = managers(t, 'keep', 3);
  let release;
  await new Promise((resolve) => { holder.request('x', () => { resolve(); return new Promise((r) => { release = r; }); }); });
  const granted = waiter.request('x', () => {});
  await untilPending(waiter, 1);
  const backend = backends.get(clientIdOf(waiter));
  // Other names change meanwhile (etcd's revision moves on, the view of x does not).
  let churn = true;
  const churning = (async () => { for (let i = 0; churn; i++) await other.request(`elsewhere-${i % 3}`, () => {}); })();
  while (backend.stats.audits < 3) await new Promise((resolve) => setTimeout(resolve, 50));
  churn = false;
  await churning;
  assert.equal(backend.stats.mirrorsRebuilt, 0, 'no view was rebuilt');
  release();
  await within(20_000, granted, 'the waiter is granted');
});

/**
 * Makes deaf the view of `name` in `locks`'s backend (returned), kept for its client's next
 * request after a lock taken and given back there, once `ready(view)`, and keeps it open (as a
 * view with requests of its client is): every later change of the name passes it by.
 */
async function deafenKeptView(locks, name, ready) {
  const backend = backends.get(clientIdOf(locks));
  await eventually(() => {
    const state = backend.names.get(name);
    return state?.idle && state.mirror !== null && ready(state.mirror);
  }, `the view of ${name} is kept and ready`, 10_000);
  deafen(locks, name);
  backend.nameState(name); // its idle close is called off
  return backend;
}

/** As deafenKeptView(), with a view that has seen the lock given back: empty. */
async function deafEmptyView(locks, name) {
  await locks.request(name, () => {});
  return deafenKeptView(locks, name, (view) => view.entries.size === 0);
}

test('a waiter whose view missed its own key and that key\'s deletion, so that view and etcd agree, is queued again and granted', { timeout: 60_000 }, async (t) => {
  const [waiter, holder] = managers(t, 'own-key', 2);
  const backend = await deafEmptyView(waiter, 'x');
  let release;
  await new Promise((resolve) => { holder.request('x', () => { resolve(); return new Promise((r) => { release = r; }); }); });
  const granted = waiter.request('x', () => {});
  await untilPending(waiter, 1);
  // Its key goes (as a steal takes a holder's) and the holder releases: etcd has no key of x,
  // and neither has the view, which saw none of it.
  const [record] = [...backend.records.values()].filter((r) => r.name === 'x');
  assert.equal(record.state, 'pending');
  await backend.client.kv.deleteRange({ key: Buffer.from(record.key) });
  release();
  await within(20_000, granted, 'the waiter is granted');
  assert.ok(backend.stats.mirrorsRebuilt >= 1, 'its view was rebuilt');
});

test('a holder whose view missed its own key and the steal of it, so that view and etcd agree, learns that its lock was stolen', { timeout: 60_000 }, async (t) => {
  const [victim, thief] = managers(t, 'own-steal', 2);
  await deafEmptyView(victim, 'x');
  let entered;
  const inside = new Promise((resolve) => { entered = resolve; });
  const held = victim.request('x', () => { entered(); return new Promise(() => {}); });
  await inside;
  await thief.request('x', { steal: true }, () => {}); // stolen and released: etcd has no key of x
  const outcome = await within(20_000, held.then(() => 'resolved', (error) => error), 'the holder learns of the steal');
  assert.equal(outcome?.name, 'AbortError');
});

test('a waiter aborted while its view misses every change of its name is removed, and its client forgets it: the abort does not wait for ever for the watch to show its delete', { timeout: 60_000 }, async (t) => {
  const [waiter, holder] = managers(t, 'abort', 2);
  await waiter.request('x', () => {});
  let release;
  let held;
  await new Promise((resolve) => { held = holder.request('x', () => { resolve(); return new Promise((r) => { release = r; }); }); });
  // Deaf once it has seen the holder's key: it then agrees with etcd until the holder releases.
  const backend = await deafenKeptView(waiter, 'x', (view) => view.entries.size === 1);
  const controller = new AbortController();
  const waiting = waiter.request('x', { signal: controller.signal }, () => 'granted');
  await untilPending(waiter, 1);
  controller.abort();
  const outcome = await within(20_000, waiting.then(() => 'granted', (error) => error), 'the aborted request settles');
  assert.equal(outcome?.name, 'AbortError');
  // The request rejected at once (spec 3.2.2 step 12.2); the backend's abort waits for the view to
  // pass its delete, to tell whether a grant came first.
  await eventually(() => backend.records.size === 0, 'the aborting client forgets the request');
  assert.ok(backend.stats.mirrorsRebuilt >= 1, 'its view was rebuilt');
  assert.deepEqual(named((await holder.query()).pending, 'x'), [], 'nothing of it is left in etcd');
  release();
  await held;
});
