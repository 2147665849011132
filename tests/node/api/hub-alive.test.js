// Alive databases (js/hub/alive.js): a window names the IndexedDB database it holds open, the hub
// deletes it, and the delete's success (the browser closed the window's connection) releases the
// window's locks once neither the window nor its sentinel answers a check; an answer keeps them.
// The hub is driven over Node MessageChannels with raw protocol messages; IndexedDB is a fake
// whose deletes succeed when the test says (the browser closing the connection).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MessageChannel } from 'node:worker_threads';
import { createLocalEngine } from '../../../js/engine/index.js';
import { Hub } from '../../../js/hub/hub.js';
import { PROTOCOL_VERSION, ALIVE_PREFIX } from '../../../js/hub/protocol.js';
import { validateClientMessage } from '../../../js/hub/validate-client.js';
import { fromColumns } from '../../../js/hub/snapshot-pieces.js';
import { PREDECESSOR, takeOver } from '../../../js/hub/succession.js';
import { AliveDatabase } from '../../../js/browser/alive-database.js';
import { IDBFactory } from 'fake-indexeddb';
import { clearableFactory } from './clear-site-data.js';
import { until } from './until.js';

/** A snapshot piece's columns (protocol 12) as LockInfos. */
function infos(columns) {
  const list = [];
  assert.ok(fromColumns(columns, list), 'well-formed columns');
  return list;
}

const quiet = () => {};

function fakeIndexedDB(listed = []) {
  const idb = {
    deletes: [], // every deleteDatabase request, in order: { name, onsuccess, onerror }
    deleteDatabase(name) {
      const request = { name, onsuccess: null, onerror: null };
      idb.deletes.push(request);
      return request;
    },
    async databases() { return listed.map((name) => ({ name, version: 1 })); },
  };
  return idb;
}

/** A hub whose heartbeat would take a minute: only the alive database can end a context here. */
async function aliveSpace(t, idb = fakeIndexedDB(), { succession } = {}) {
  const announced = [];
  const announce = { postMessage: (m) => announced.push(m), close() {}, onmessage: null };
  const hub = new Hub(await createLocalEngine(), {
    hubId: 'alive-hub', log: quiet, indexedDB: idb, announce, predecessor: PREDECESSOR.none, succession,
    liveness: { DEAD_AFTER: 60_000 },
  });
  const ports = [];
  t.after(() => { hub.stop(); for (const port of ports) port.close(); });
  /** A raw context: it never answers the hub's pings itself (busy or gone); its sentinel does while `answering`. */
  async function context(clientId, { sentinel: withSentinel = true } = {}) {
    const { port1, port2 } = new MessageChannel();
    ports.push(port1, port2);
    const heard = [];
    port1.on('message', (m) => heard.push(m));
    hub.connect(port2);
    port1.postMessage({ t: 'hello', v: PROTOCOL_VERSION, clientId, key: `key-${clientId}`, lostHub: null, reclaim: [] });
    await until(() => heard.some((m) => m.t === 'welcome'), `${clientId} is welcomed`);
    const c = { clientId, port: port1, heard, answering: true, pongs: 0, answerLate: 0 };
    if (!withSentinel) return c;
    const sentinel = new MessageChannel();
    ports.push(sentinel.port1, sentinel.port2);
    sentinel.port1.on('message', (m) => {
      if (m.t !== 'ping' || !c.answering) return;
      c.pongs++;
      // answerLate: each pong that long after its ping (a loaded machine's sentinel).
      if (c.answerLate > 0) setTimeout(() => sentinel.port1.postMessage({ t: 'pong' }), c.answerLate);
      else sentinel.port1.postMessage({ t: 'pong' });
    });
    port1.postMessage({ t: 'sentinel' }, [sentinel.port2]);
    await until(() => c.pongs > 0, `${clientId}'s sentinel answered the hub`);
    return c;
  }
  return { hub, idb, announced, context };
}

function grantedTokens(c) {
  return c.heard.filter((m) => m.t === 'granted').map((m) => m.token);
}

async function holderAndWaiter(space, options) {
  const a = await space.context('a', options);
  const b = await space.context('b');
  a.port.postMessage({ t: 'request', token: 1, name: 'x', mode: 'exclusive', wait: 'wait' });
  await until(() => grantedTokens(a).includes(1), 'a holds x');
  b.port.postMessage({ t: 'request', token: 1, name: 'x', mode: 'exclusive', wait: 'wait' });
  a.port.postMessage({ t: 'alive', name: `${ALIVE_PREFIX}a` });
  await until(() => space.idb.deletes.some((r) => r.name === `${ALIVE_PREFIX}a`), 'the hub asked to delete a\'s alive database');
  return { a, b, deleting: space.idb.deletes.find((r) => r.name === `${ALIVE_PREFIX}a`) };
}

test('a context whose alive database the browser closed, and which no longer answers, has its locks released with that cause', async (t) => {
  const space = await aliveSpace(t);
  const { a, b, deleting } = await holderAndWaiter(space);
  a.answering = false; // its process is gone: its sentinel with it
  deleting.onsuccess();
  await until(() => grantedTokens(b).includes(1), 'the waiter is granted x');
  assert.deepEqual(space.announced.filter((m) => m.t === 'liveness-verdict'),
    [{ t: 'liveness-verdict', clientId: 'a', cause: 'alive-database-closed', dead: true, confirmedBy: 'silence' }]);
  assert.match(a.heard.find((m) => m.t === 'dead')?.why ?? '', /alive database/);
});

test('a busy context whose alive database the browser closed keeps its locks while its sentinel answers the check', async (t) => {
  const space = await aliveSpace(t);
  const { a, b, deleting } = await holderAndWaiter(space);
  const pongsBefore = a.pongs;
  deleting.onsuccess(); // a itself is busy (it never answers); its sentinel answers
  await until(() => space.announced.some((m) => m.t === 'liveness-verdict'), 'the hub gave its verdict');
  assert.deepEqual(space.announced.filter((m) => m.t === 'liveness-verdict'),
    [{ t: 'liveness-verdict', clientId: 'a', cause: 'alive-database-closed', dead: false, confirmedBy: 'silence' }]);
  assert.ok(a.pongs - pongsBefore >= 2, 'the sentinel was asked in each round');
  assert.deepEqual(grantedTokens(b), [], 'the waiter still waits');
  assert.equal(a.heard.some((m) => m.t === 'dead'), false, 'a was never declared dead');
});

test('a busy context whose sentinel answers later than each round keeps its locks: only a silence of ALIVE_SILENT_AFTER ends it', async (t) => {
  // A clean-clone run on 2 cores declared a busy Firefox tab dead after one unanswered 100 ms round
  // while its sentinel lived: its lock would have gone to the waiter during its callback.
  const space = await aliveSpace(t);
  const { a, b, deleting } = await holderAndWaiter(space);
  a.answerLate = 250; // 2.5 rounds late, every time
  deleting.onsuccess();
  await until(() => space.announced.some((m) => m.t === 'liveness-verdict'), 'the hub gave its verdict');
  assert.deepEqual(space.announced.filter((m) => m.t === 'liveness-verdict'),
    [{ t: 'liveness-verdict', clientId: 'a', cause: 'alive-database-closed', dead: false, confirmedBy: 'silence' }]);
  assert.deepEqual(grantedTokens(b), [], 'the waiter still waits');
  assert.equal(a.heard.some((m) => m.t === 'dead'), false, 'a was never declared dead');
});

test('an alive database closed after its context said bye changes nothing more', async (t) => {
  const space = await aliveSpace(t);
  const { a, b, deleting } = await holderAndWaiter(space);
  a.port.postMessage({ t: 'bye' });
  await until(() => grantedTokens(b).includes(1), 'the waiter is granted x after the bye');
  a.answering = false;
  deleting.onsuccess();
  b.port.postMessage({ t: 'query', call: 1 });
  await until(() => b.heard.some((m) => m.t === 'snapshot'), 'b\'s query is answered');
  assert.deepEqual(space.announced.filter((m) => m.t === 'liveness-verdict'), [], 'a clean exit has no verdict');
});

test('a context with no sentinel that ever answered keeps its locks when its alive database closes: nothing could confirm a crash', async (t) => {
  const space = await aliveSpace(t);
  const { a, b, deleting } = await holderAndWaiter(space, { sentinel: false });
  deleting.onsuccess();
  b.port.postMessage({ t: 'query', call: 1 });
  await until(() => b.heard.some((m) => m.t === 'snapshot'), 'b\'s query is answered');
  const snapshot = b.heard.find((m) => m.t === 'snapshot');
  assert.deepEqual(infos(snapshot.held).map((info) => [info.name, info.clientId]), [['x', 'a']]);
  assert.deepEqual(space.announced.filter((m) => m.t === 'liveness-verdict'), []);
  assert.equal(a.heard.some((m) => m.t === 'dead'), false);
});

test('a starting hub deletes the alive databases the browser lists, and no other database', async (t) => {
  const idb = fakeIndexedDB([`${ALIVE_PREFIX}old-1`, 'app-data', `${ALIVE_PREFIX}old-2`, 'weblocks-hub-succession']);
  await aliveSpace(t, idb);
  await until(() => idb.deletes.length === 2, 'the stale alive databases are deleted');
  assert.deepEqual(idb.deletes.map((r) => r.name), [`${ALIVE_PREFIX}old-1`, `${ALIVE_PREFIX}old-2`]);
});

test('an alive message must name a database of the alive prefix, and nothing else', () => {
  assert.equal(validateClientMessage({ t: 'alive', name: `${ALIVE_PREFIX}0f3c` }), null);
  assert.equal(validateClientMessage({ t: 'alive', name: 'app-data' }), 'bad alive database name');
  assert.equal(validateClientMessage({ t: 'alive', name: ALIVE_PREFIX + 'x'.repeat(65) }), 'bad alive database name');
  assert.equal(validateClientMessage({ t: 'alive', name: `${ALIVE_PREFIX}a`, extra: 1 }), 'unexpected fields');
});

test('a context that names another context\'s alive database can end only itself: the other keeps its locks', async (t) => {
  // Alive database names are secret (a random id), but a hostile context that learned one gains nothing:
  // the hub ties the delete's success to the context that named the database, never to its owner.
  const space = await aliveSpace(t);
  const { a, b } = await holderAndWaiter(space);
  const hostile = await space.context('hostile');
  hostile.port.postMessage({ t: 'alive', name: `${ALIVE_PREFIX}a` });
  await until(() => space.idb.deletes.filter((r) => r.name === `${ALIVE_PREFIX}a`).length === 2, 'the hub asked to delete it for the hostile context too');
  const hostileDelete = space.idb.deletes[space.idb.deletes.length - 1];
  hostile.answering = false; // it does not answer the check: it is declared dead, alone
  hostileDelete.onsuccess();
  await until(() => space.announced.some((m) => m.t === 'liveness-verdict'), 'the hub gave its verdict');
  assert.deepEqual(space.announced.filter((m) => m.t === 'liveness-verdict'),
    [{ t: 'liveness-verdict', clientId: 'hostile', cause: 'alive-database-closed', dead: true, confirmedBy: 'silence' }]);
  b.port.postMessage({ t: 'query', call: 1 });
  await until(() => b.heard.some((m) => m.t === 'snapshot'), 'b\'s query is answered');
  const snapshot = b.heard.find((m) => m.t === 'snapshot');
  assert.deepEqual(infos(snapshot.held).map((info) => [info.name, info.clientId]), [['x', 'a']], 'a still holds x');
  assert.deepEqual(grantedTokens(b), [], 'the waiter still waits');
  assert.equal(a.heard.some((m) => m.t === 'dead'), false, 'a was never declared dead');
});

test('a hub that ends in the middle of an alive check decides nothing after it ended', async (t) => {
  // The hub's worker is killed while it waits for a crashed-looking context's answer: the next hub
  // watches the database again when the context re-registers; this one must not act late.
  const space = await aliveSpace(t);
  const { a, deleting } = await holderAndWaiter(space);
  a.answering = false;
  deleting.onsuccess(); // the check starts: a's answer is awaited ALIVE_CONFIRM_WAIT
  space.hub.stop();
  await new Promise((resolve) => setTimeout(resolve, 300)); // past every round of the check (LIVENESS: 2 x 100 ms)
  assert.deepEqual(space.announced.filter((m) => m.t === 'liveness-verdict'), [], 'no verdict after the hub ended');
  assert.equal(a.heard.some((m) => m.t === 'dead'), false, 'a was not declared dead by a hub that had ended');
});

// The hub's own connection to its succession record (js/hub/succession.js) tells a crash from a
// clear of the origin's site data: a clear closes every connection of the origin, the hub's too.
// Here IndexedDB is fake-indexeddb (real deletes that wait for open connections), the window's
// database is the window's own class (js/browser/alive-database.js).

/** A hub keeping its succession record and a holder `a` whose alive database it watches; `b` waits. */
async function storageSpace(t, { sentinel = true } = {}) {
  const factory = clearableFactory(new IDBFactory());
  const succession = await takeOver('alive-space', 'alive-hub', { indexedDB: factory, log: quiet });
  const space = await aliveSpace(t, factory, { succession });
  const a = await space.context('a', { sentinel });
  const b = await space.context('b');
  a.port.postMessage({ t: 'request', token: 1, name: 'x', mode: 'exclusive', wait: 'wait' });
  await until(() => grantedTokens(a).includes(1), 'a holds x');
  b.port.postMessage({ t: 'request', token: 1, name: 'x', mode: 'exclusive', wait: 'wait' });
  let deleteWaits = false;
  const alive = new AliveDatabase({ indexedDB: factory }, (name) => {
    // The hub's delete waits on this connection: the window is sent a versionchange it ignores.
    alive.db.addEventListener('versionchange', () => { deleteWaits = true; });
    a.port.postMessage({ t: 'alive', name });
  });
  alive.open();
  await until(() => deleteWaits, 'the hub\'s delete of a\'s alive database waits on a\'s connection');
  return { ...space, factory, alive, a, b };
}

/** The browser closes `connections` as a clear of the site data does, their close events still on the way. */
function closeUnannounced(connections) {
  for (const db of connections) db.close();
}

test('a crashed window whose alive database closes while the origin\'s storage is untouched is released at once, even if something still answers for it', async (t) => {
  // The sentinel keeps answering here: the hub did not wait for silence, the untouched storage decided.
  const space = await storageSpace(t);
  const pongsBefore = space.a.pongs;
  closeUnannounced([space.alive.db]); // the window's process is gone; the hub's connection is untouched
  await until(() => grantedTokens(space.b).includes(1), 'the waiter is granted x');
  assert.deepEqual(space.announced.filter((m) => m.t === 'liveness-verdict'),
    [{ t: 'liveness-verdict', clientId: 'a', cause: 'alive-database-closed', dead: true, confirmedBy: 'storage' }]);
  assert.equal(space.a.pongs, pongsBefore, 'no one was asked');
  assert.match(space.a.heard.find((m) => m.t === 'dead')?.why ?? '', /storage was not cleared/);
});

test('a crashed window whose sentinel never answered is released too when its alive database closes while the origin\'s storage is untouched', async (t) => {
  // Silence proves nothing of it (a sentinel still starting, or one a policy forbids); the browser's word does.
  const space = await storageSpace(t, { sentinel: false });
  closeUnannounced([space.alive.db]);
  await until(() => grantedTokens(space.b).includes(1), 'the waiter is granted x');
  assert.deepEqual(space.announced.filter((m) => m.t === 'liveness-verdict'),
    [{ t: 'liveness-verdict', clientId: 'a', cause: 'alive-database-closed', dead: true, confirmedBy: 'storage' }]);
});

for (const { hubHeard, when } of [
  { hubHeard: true, when: 'the hub heard its own connection close' },
  { hubHeard: false, when: 'the hub\'s own connection\'s close event is still on the way' },
]) {
  test(`a window whose alive database closes in a clear of the site data keeps its locks while its sentinel answers (${when})`, async (t) => {
    // The window's own close event is held back: it would name a new database, and the hub would
    // watch that one instead of deciding on this one (tests/browser/clear-site-data.spec.js).
    const space = await storageSpace(t);
    const connections = space.factory.opened.splice(0);
    closeUnannounced(connections);
    const record = connections.find((db) => db.name === 'weblocks-hub-succession');
    if (hubHeard) record.onclose(new Event('close'));
    await until(() => space.announced.some((m) => m.t === 'liveness-verdict'), 'the hub gave its verdict');
    assert.deepEqual(space.announced.filter((m) => m.t === 'liveness-verdict'),
      [{ t: 'liveness-verdict', clientId: 'a', cause: 'alive-database-closed', dead: false, confirmedBy: 'silence' }]);
    assert.deepEqual(grantedTokens(space.b), [], 'the waiter still waits');
    assert.equal(space.a.heard.some((m) => m.t === 'dead'), false, 'a was never declared dead');
  });
}
