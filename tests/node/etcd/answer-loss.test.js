// Answers lost after etcd committed: a client reaches the members only through fault proxies
// (support/fault-proxy.js) that throw away etcd's answer to one call (etcd answers a write after
// committing it) and cut that connection, so the client's call fails and is retried; or lose
// every answer from there on until the test has acted (another client, connected directly). Each operation must come out as if the first answer
// had arrived: no null for an ifAvailable that took the lock, no error for a steal that stole, no
// "stolen" for a release that released, no name left stuck. The keep-alive case stalls one member
// for a whole lease TTL while the others answer: the holder keeps its lock.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster } from './support/cluster.js';
import { startFaultProxies } from './support/fault-proxy.js';
import { FencedResource } from './support/fenced-resource.js';
import { createLockManager, closeLockManager, clientIdOf } from '../../../js/etcd/index.js';

const cluster = await startCluster();
const proxies = await startFaultProxies(cluster);
after(async () => {
  await proxies.close();
  await cluster.stop();
});

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves once `probe()` is true (polled); stops polling when `stop.done` is set. */
async function until(probe, stop = {}) {
  while (!stop.done) {
    if (await probe()) return true;
    await sleep(5);
  }
  return false;
}

/** A client through the proxies (its lease already granted) and clients connected directly. */
async function clients(label, { leaseTtl } = {}) {
  const namespace = `${label}-${process.pid}/`;
  const subject = createLockManager({ etcd: { hosts: proxies.hosts, namespace, leaseTtl } });
  const direct = () => createLockManager({ etcd: { hosts: cluster.hosts, namespace } });
  const [observer, other] = [direct(), direct()];
  // The lease exists before any answer is lost: what is tested is the write, not the lease grant.
  assert.notEqual(await subject.request('warm-up', { ifAvailable: true }, (lock) => lock), null);
  const subjectId = clientIdOf(subject);
  const entriesOf = async (name) => {
    const state = await observer.query();
    const mine = (list) => list.filter((info) => info.name === name);
    return { held: mine(state.held), pending: mine(state.pending) };
  };
  const isFree = async (name) => {
    const entries = await entriesOf(name);
    return entries.held.length === 0 && entries.pending.length === 0;
  };
  return {
    subject, observer, other, subjectId, entriesOf, isFree,
    close: () => Promise.all([subject, observer, other].map((locks) => closeLockManager(locks))),
  };
}

const settled = (promise) => promise.then((value) => ({ value }), (error) => ({ error }));

test('an ifAvailable request whose answer is lost after etcd took it is granted, and the name is free after its release', { timeout: 60_000 }, async () => {
  const c = await clients('if-available');
  const lost = proxies.loseAnswerOf(1, 'cut'); // its transaction's
  const result = c.subject.request('n', { ifAvailable: true }, (lock) => (lock === null ? null : lock.fencingToken));
  await lost;
  const token = await result;
  assert.ok(Number.isSafeInteger(token) && token > 0, `granted, with a fencing token (got ${token})`);
  assert.equal(await c.isFree('n'), true, 'released: no key of it left in etcd');
  assert.equal(await c.other.request('n', { ifAvailable: true }, (lock) => lock !== null), true, 'another client takes the name');
  await c.close();
});

test('a steal whose answer is lost after etcd took it holds the lock, its victim is told it was stolen, and the name is free after', { timeout: 60_000 }, async () => {
  const c = await clients('steal');
  let victimToken;
  let victimGranted;
  const victimHolds = new Promise((resolve) => { victimGranted = resolve; });
  const victim = settled(c.other.request('n', (lock) => {
    victimToken = lock.fencingToken;
    victimGranted();
    return new Promise(() => {});
  }));
  await victimHolds;
  const lost = proxies.loseAnswerOf(2, 'cut'); // the steal reads the queue, then its transaction
  const thief = settled(c.subject.request('n', { steal: true }, (lock) => lock.fencingToken));
  await lost;
  const { error } = await victim;
  assert.equal(error?.name, 'AbortError');
  assert.equal(error.message, 'The lock was stolen by another request.');
  const { value: thiefToken, error: thiefError } = await thief;
  assert.equal(thiefError, undefined, `the steal holds the lock (it rejected with ${thiefError})`);
  assert.ok(thiefToken > victimToken, `the thief's token ${thiefToken} is above its victim's ${victimToken}`);
  assert.equal(await c.isFree('n'), true, 'released: no key of it left in etcd');
  assert.equal(await c.other.request('n', { ifAvailable: true }, (lock) => lock !== null), true, 'another client takes the name');
  await c.close();
});

test('a release whose answer is lost after etcd deleted the key resolves with the callback\'s result, not as stolen', { timeout: 60_000 }, async () => {
  const c = await clients('release');
  let finish;
  let granted;
  const holds = new Promise((resolve) => { granted = resolve; });
  const done = settled(c.subject.request('n', () => { granted(); return new Promise((resolve) => { finish = resolve; }); }));
  await holds;
  const lost = proxies.loseAnswerOf(1, 'cut'); // the release's delete
  finish('the result');
  await lost;
  const { value, error } = await done;
  assert.equal(error, undefined, `not rejected (got ${error?.name}: ${error?.message})`);
  assert.equal(value, 'the result');
  assert.equal(await c.other.request('n', { ifAvailable: true }, (lock) => lock !== null), true, 'another client takes the name');
  await c.close();
});

test('an abort whose answer is lost after etcd deleted the key rejects the request, and the name goes to the next request', { timeout: 60_000 }, async () => {
  const c = await clients('abort');
  let finish;
  let granted;
  const holds = new Promise((resolve) => { granted = resolve; });
  const holder = c.other.request('n', () => { granted(); return new Promise((resolve) => { finish = resolve; }); });
  await holds;
  const controller = new AbortController();
  const waiting = settled(c.subject.request('n', { signal: controller.signal }, () => 'never'));
  await until(async () => (await c.entriesOf('n')).pending.length === 1);
  const lost = proxies.loseAnswerOf(1, 'cut'); // the abort's delete
  controller.abort();
  await lost;
  assert.equal((await waiting).error?.name, 'AbortError');
  finish('held');
  assert.equal(await holder, 'held');
  // The aborting client goes on: its next request is granted (its operations are not stuck).
  assert.equal(await c.subject.request('n', (lock) => lock !== null), true);
  assert.equal(await c.isFree('n'), true);
  await c.close();
});

test('a request whose answer is lost, and whose lock is stolen before the retry, is told granted then stolen, and never queued again', { timeout: 60_000 }, async (t) => {
  // Answers flow again even when an assertion fails here: the tests after it share the proxies.
  t.after(() => proxies.restore());
  const c = await clients('request');
  let grantedToken = null;
  let end;
  const ended = new Promise((resolve) => { end = resolve; });
  const lost = proxies.loseAnswerOf(1, 'lose'); // its transaction's, and every answer after it
  const first = settled(c.subject.request('n', (lock) => { grantedToken = lock.fencingToken; return ended; }));
  await lost;
  assert.deepEqual((await c.entriesOf('n')).held.map((info) => info.clientId), [c.subjectId], 'its key is in etcd');
  let thiefToken;
  let thiefGranted;
  let thiefFinish;
  const thiefHolds = new Promise((resolve) => { thiefGranted = resolve; });
  const thief = c.other.request('n', { steal: true }, (lock) => {
    thiefToken = lock.fencingToken;
    thiefGranted();
    return new Promise((resolve) => { thiefFinish = resolve; });
  });
  await thiefHolds;
  proxies.restore();
  // Either the request settles (as it must), or its key comes back into the queue behind the thief.
  const stop = {};
  const outcome = await Promise.race([
    first.then((answer) => ({ answer })),
    until(async () => (await c.entriesOf('n')).pending.length > 0, stop).then(() => ({ queuedAgain: true })),
  ]);
  stop.done = true;
  assert.equal(outcome.queuedAgain, undefined, 'the request\'s key is not put back into the queue');
  assert.equal(outcome.answer.error?.name, 'AbortError');
  assert.equal(outcome.answer.error.message, 'The lock was stolen by another request.');
  assert.ok(grantedToken !== null && grantedToken < thiefToken, `granted first (token ${grantedToken}), below the thief's ${thiefToken}`);
  end();
  thiefFinish('thief done');
  assert.equal(await thief, 'thief done');
  assert.equal(await c.isFree('n'), true);
  await c.close();
});

test('a holder whose keep-alives meet a member that answers nothing for a whole lease TTL keeps its lock while the others answer', { timeout: 60_000 }, async () => {
  const leaseTtl = 4;
  const c = await clients('keep-alive', { leaseTtl });
  const resource = new FencedResource();
  let finish;
  let granted;
  const holds = new Promise((resolve) => { granted = resolve; });
  const done = settled(c.subject.request('n', async (lock) => {
    resource.write('n', 'holder', lock.fencingToken);
    granted();
    await new Promise((resolve) => { finish = resolve; });
    assert.equal(resource.write('n', 'holder', lock.fencingToken), true, 'the holder\'s last write is accepted');
    return 'kept';
  }));
  await holds;
  const waiter = c.other.request('n', (lock) => resource.write('n', 'waiter', lock.fencingToken));
  await until(async () => (await c.entriesOf('n')).pending.length === 1);
  // The next connection the holder uses (its next keep-alive's) gets no answer for a whole TTL.
  const stall = await proxies.stallNextConnection(leaseTtl * 1000);
  console.log(`# stalled the member ${stall.member} for ${leaseTtl} s`);
  finish();
  const { value, error } = await done;
  assert.equal(error, undefined, `the holder kept its lock (it rejected with ${error?.name}: ${error?.message})`);
  assert.equal(value, 'kept');
  assert.equal(await waiter, true, 'the waiter is granted after the holder released');
  assert.deepEqual(resource.check().violations, []);
  await c.close();
});
