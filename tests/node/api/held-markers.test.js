// Held markers (js/browser/held-marker.js, js/hub/held-markers.js): a context that holds or waits
// under a hub with no sentinel answering for it keeps a database open; a hub that succeeds a lost
// one keeps its reclaim window open while such a marker's delete waits (its context lives and has
// not re-registered), however long that takes. IndexedDB is fake-indexeddb, whose deletes wait
// for open connections as the browsers' do; the browser half is tests/browser/hub-loss.spec.js
// ("... a holder that has no sentinel ...").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MessageChannel } from 'node:worker_threads';
import { IDBFactory } from 'fake-indexeddb';
import { createLocalEngine } from '../../../js/engine/index.js';
import { Hub } from '../../../js/hub/hub.js';
import { PREDECESSOR, takeOver, lostHubIds } from '../../../js/hub/succession.js';
import { PROTOCOL_VERSION, heldMarkerName, heldMarkerHub } from '../../../js/hub/protocol.js';
import { HeldMarker } from '../../../js/browser/held-marker.js';
import { awaitHeldMarkers } from '../../../js/hub/held-markers.js';
import { until, eventually } from './until.js';

const names = async (indexedDB) => (await indexedDB.databases()).map((d) => d.name).sort();

test('a context\'s marker is a database named after the hub it holds under, opened anew when that hub changes and deleted when it is dropped', async () => {
  const indexedDB = new IDBFactory();
  const marker = new HeldMarker(indexedDB);
  marker.set('hub-1');
  const first = marker.marker.name;
  assert.equal(heldMarkerHub(first), 'hub-1');
  await eventually(async () => (await names(indexedDB)).includes(first), 'the marker under hub-1 exists');
  marker.set('hub-1'); // unchanged: the same marker
  assert.equal(marker.marker.name, first);
  marker.set('hub-2');
  const second = marker.marker.name;
  assert.notEqual(second, first);
  await eventually(async () => JSON.stringify(await names(indexedDB)) === JSON.stringify([second]), 'the marker under hub-1 was deleted, the one under hub-2 is there');
  marker.set(null);
  // Dropped before its open completed: deleted once it has.
  marker.set('hub-3');
  marker.drop();
  await eventually(async () => (await names(indexedDB)).length === 0, 'every marker was deleted');
  assert.equal(heldMarkerHub('weblocks-alive:x'), null);
  assert.equal(heldMarkerHub(heldMarkerName('h', 'id')), 'h');
});

test('a hub lost with clients is succeeded by one that waits for the markers under it, and under the hub it had succeeded itself; an idle one by one that waits for none', async () => {
  const indexedDB = new IDBFactory();
  const space = 'weblocks-hub https://example.test/weblocks-hub.js';
  await takeOver(space, 'first', { indexedDB });
  const second = await takeOver(space, 'second', { indexedDB });
  assert.deepEqual(second.lostHubs, ['first']);
  const third = await takeOver(space, 'third', { indexedDB });
  assert.deepEqual(third.lostHubs, ['second', 'first'], 'a survivor of the first hub may still be busy when the second is lost');
  await third.idle();
  const fourth = await takeOver(space, 'fourth', { indexedDB });
  assert.equal(fourth.predecessor, PREDECESSOR.none);
  assert.deepEqual(fourth.lostHubs, []);
  assert.deepEqual(lostHubIds({ hubId: 'x', clients: true, heirOf: 'y' }, 'y'), ['x'], 'never its own');
  assert.deepEqual(lostHubIds({ hubId: 'x', clients: true, heirOf: 42 }, 'z'), ['x'], 'a malformed heirOf is ignored');
});

/** A hub succeeding `lostHubs`, with raw contexts on MessageChannels. */
async function successor(t, indexedDB, lostHubs) {
  const logged = [];
  const ports = [];
  const succession = {
    predecessor: PREDECESSOR.lost, lostHubs, serving: () => null, idle: () => Promise.resolve(),
    connection: () => null, stillOpen: () => Promise.resolve(false),
  };
  const hub = new Hub(await createLocalEngine(), {
    hubId: 'successor', indexedDB, succession, announce: { postMessage() {}, onmessage: null, close() {} },
    log: (level, text) => logged.push(text), liveness: { RECLAIM_WINDOW: 200, STARTUP_HOLD: 50, DEAD_AFTER: 60_000 },
  });
  t.after(() => { hub.stop(); for (const port of ports) port.close(); });
  const raw = (clientId, hello = {}) => {
    const { port1, port2 } = new MessageChannel();
    ports.push(port1, port2);
    hub.connect(port2);
    const heard = [];
    port1.on('message', (m) => heard.push(m));
    port1.postMessage({ t: 'hello', v: PROTOCOL_VERSION, clientId, key: `${clientId}-key`, lostHub: null, reclaim: [], ...hello });
    return { heard, send: (m) => port1.postMessage(m), granted: () => heard.some((m) => m.t === 'granted') };
  };
  return { hub, raw, logged };
}

/** Opens `name` as a context does, and never answers the versionchange a delete sends. */
function holdOpen(indexedDB, name) {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(name);
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

test('a successor grants nothing while a context marked under the lost hub lives without re-registering, and grants once its marker closes', async (t) => {
  const indexedDB = new IDBFactory();
  const busy = await holdOpen(indexedDB, heldMarkerName('lost', 'busy-context'));
  const gone = heldMarkerName('lost', 'crashed-context'); // its context died: nobody holds it open
  await holdOpen(indexedDB, gone).then((db) => db.close());
  const unrelated = await holdOpen(indexedDB, heldMarkerName('some-other-hub', 'x'));
  const { hub, raw, logged } = await successor(t, indexedDB, ['lost']);
  const newcomer = raw('newcomer');
  newcomer.send({ t: 'request', token: 1, name: 'x', mode: 'exclusive', wait: 'wait' });
  await until(() => hub.window.started, 'the marker of a live context opened the reclaim window');
  await eventually(async () => !(await names(indexedDB)).includes(gone), 'the dead context\'s marker was deleted');
  await new Promise((resolve) => setTimeout(resolve, 600)); // three reclaim windows
  assert.equal(newcomer.granted(), false, 'nothing was granted while the busy context may still hold x');
  assert.deepEqual([...hub.window.heldMarkers], [heldMarkerName('lost', 'busy-context')], 'only the live context under the lost hub is waited for');
  assert.ok(logged.some((text) => /waits for 1 busy survivor/.test(text)), logged.join('\n'));
  busy.close(); // its context re-registered and dropped it, or died
  await until(() => newcomer.granted(), 'granted once the marker closed');
  unrelated.close();
});

test('a successor whose lost hub left no live marker keeps only its start-up hold', async (t) => {
  const indexedDB = new IDBFactory();
  const { hub, raw } = await successor(t, indexedDB, ['lost']);
  const newcomer = raw('newcomer');
  newcomer.send({ t: 'request', token: 1, name: 'x', mode: 'exclusive', wait: 'wait' });
  await until(() => newcomer.granted(), 'granted after the start-up hold');
  assert.equal(hub.window.started, false);
});

test('a new hub waits for the markers as long as the storage takes to list them, up to its bound, and says so when it gives up', async () => {
  const logged = [];
  let scannedAt = null;
  const began = Date.now();
  // A listing that never comes: the scan ends at the bound, with a warning that names the cost.
  awaitHeldMarkers(new IDBFactory(), new Promise(() => {}), {
    hubId: 'new', lostHubs: ['lost'], pending: new Set(), timeout: 300,
    log: (level, text) => logged.push([level, text]), scanned: () => { scannedAt = Date.now(); },
  });
  await until(() => scannedAt !== null, 'the scan ended');
  assert.ok(scannedAt - began >= 290, 'not before the bound');
  assert.deepEqual(logged.map(([level]) => level), ['warn']);
  assert.match(logged[0][1], /did not list its databases within 300 ms: busy survivors of the lost hub are not waited for/);
  // A slow listing within the bound: the marker under the lost hub is waited for.
  const pending = new Set();
  let scanned = false;
  let waited = null;
  let list;
  awaitHeldMarkers(new IDBFactory(), new Promise((resolve) => { list = resolve; }), {
    hubId: 'new', lostHubs: ['lost'], pending, timeout: 10_000, log: () => {},
    scanned: () => { scanned = true; waited = [...pending]; },
  });
  await new Promise((resolve) => setTimeout(resolve, 200));
  assert.equal(scanned, false, 'still listing: the scan goes on');
  list([heldMarkerName('lost', 'a'), heldMarkerName('other', 'b')]);
  await until(() => scanned, 'the scan ended once listed');
  assert.deepEqual(waited, [heldMarkerName('lost', 'a')], 'the lost hub\'s marker is waited for, no other');
});
