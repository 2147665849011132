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
import { PREDECESSOR, takeOver } from '../../../js/hub/succession.js';
import { PROTOCOL_VERSION, HUB_NAME, heldMarkerName, heldMarkerOwner } from '../../../js/hub/protocol.js';
import { HeldMarker } from '../../../js/browser/held-marker.js';
import { awaitHeldMarkers } from '../../../js/hub/held-markers.js';
import { until, eventually } from './until.js';

const names = async (indexedDB) => (await indexedDB.databases()).map((d) => d.name).sort();
const BUCKET_HUB = `${HUB_NAME}:bucket:drafts`;

test('a context\'s marker is a database named after its lock space and its clientId, opened anew when its clientId changes and deleted when it is dropped', async () => {
  const indexedDB = new IDBFactory();
  const marker = new HeldMarker(indexedDB, BUCKET_HUB);
  marker.set('client-1');
  const first = marker.marker.name;
  assert.deepEqual(heldMarkerOwner(first), { hubName: BUCKET_HUB, clientId: 'client-1' });
  await eventually(async () => (await names(indexedDB)).includes(first), 'the marker of client-1 exists');
  marker.set('client-1'); // unchanged (whichever hub serves it now): the same marker
  assert.equal(marker.marker.name, first);
  marker.set('client-2');
  const second = marker.marker.name;
  assert.notEqual(second, first);
  await eventually(async () => JSON.stringify(await names(indexedDB)) === JSON.stringify([second]), 'the marker of client-1 was deleted, the one of client-2 is there');
  marker.set(null);
  // Dropped before its open completed: deleted once it has.
  marker.set('client-3');
  marker.drop();
  await eventually(async () => (await names(indexedDB)).length === 0, 'every marker was deleted');
  assert.equal(heldMarkerOwner('weblocks-alive:x'), null);
  assert.equal(heldMarkerOwner('weblocks-held:8d1c hub-id-of-version-12'), null, 'an older version\'s marker is none of ours');
  assert.deepEqual(heldMarkerOwner(heldMarkerName('a b', 'c%d', 'id')), { hubName: 'a b', clientId: 'c%d' });
});

test('a hub lost with clients is succeeded by one that knows it, an idle one by one that knows no client was left', async () => {
  const indexedDB = new IDBFactory();
  const space = 'weblocks-hub https://example.test/weblocks-hub.js';
  const first = await takeOver(space, 'first', { indexedDB });
  assert.equal(first.predecessor, PREDECESSOR.none, 'the origin\'s first hub');
  const second = await takeOver(space, 'second', { indexedDB });
  assert.equal(second.predecessor, PREDECESSOR.lost);
  await second.idle();
  const third = await takeOver(space, 'third', { indexedDB });
  assert.equal(third.predecessor, PREDECESSOR.none);
});

/** A hub succeeding a hub lost with clients, with raw contexts on MessageChannels. */
async function successor(t, indexedDB) {
  const logged = [];
  const ports = [];
  const succession = {
    predecessor: PREDECESSOR.lost, serving: () => null, idle: () => Promise.resolve(),
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

test('a successor grants nothing while a marked context of its lock space lives without registering, and grants once its marker closes', async (t) => {
  const indexedDB = new IDBFactory();
  const busy = await holdOpen(indexedDB, heldMarkerName(HUB_NAME, 'busy-context', 'm1'));
  const gone = heldMarkerName(HUB_NAME, 'crashed-context', 'm2'); // its context died: nobody holds it open
  await holdOpen(indexedDB, gone).then((db) => db.close());
  const otherSpace = await holdOpen(indexedDB, heldMarkerName(BUCKET_HUB, 'x', 'm3'));
  const { hub, raw, logged } = await successor(t, indexedDB);
  const newcomer = raw('newcomer');
  newcomer.send({ t: 'request', token: 1, name: 'x', mode: 'exclusive', wait: 'wait' });
  await until(() => hub.window.started, 'the marker of a live context opened the reclaim window');
  await eventually(async () => !(await names(indexedDB)).includes(gone), 'the dead context\'s marker was deleted');
  await new Promise((resolve) => setTimeout(resolve, 600)); // three reclaim windows
  assert.equal(newcomer.granted(), false, 'nothing was granted while the busy context may still hold x');
  assert.deepEqual([...hub.window.heldMarkers.keys()], [heldMarkerName(HUB_NAME, 'busy-context', 'm1')], 'only the live context of this lock space is waited for');
  assert.ok((await names(indexedDB)).includes(heldMarkerName(BUCKET_HUB, 'x', 'm3')), 'another lock space\'s marker is left to its hub');
  assert.ok(logged.some((text) => /waits for 1 busy survivor/.test(text)), logged.join('\n'));
  busy.close(); // its context died, or has nothing outstanding any more
  await until(() => newcomer.granted(), 'granted once the marker closed');
  otherSpace.close();
});

test('a successor stops waiting for a marker once its context has registered with it (it re-registered what it had), the marker still open', async (t) => {
  const indexedDB = new IDBFactory();
  const survivor = await holdOpen(indexedDB, heldMarkerName(HUB_NAME, 'survivor', 'm1'));
  t.after(() => survivor.close());
  const { hub, raw } = await successor(t, indexedDB);
  const newcomer = raw('newcomer');
  newcomer.send({ t: 'request', token: 1, name: 'x', mode: 'exclusive', wait: 'wait' });
  await until(() => hub.window.started, 'the survivor\'s marker opened the reclaim window');
  await new Promise((resolve) => setTimeout(resolve, 600)); // three reclaim windows
  assert.equal(newcomer.granted(), false, 'nothing granted while the survivor has not re-registered');
  const back = raw('survivor', { lostHub: 'lost', reclaim: [{ token: 1, name: 'x', mode: 'exclusive', held: true, seq: null }] });
  await until(() => back.heard.some((m) => m.t === 'welcome'), 'the survivor re-registered');
  assert.equal(back.heard.find((m) => m.t === 'welcome').reclaimed?.[0], 'held', 'its lock is still its own');
  await until(() => hub.window.isOpen() === false, 'the window closed, the marker still open');
  assert.equal(newcomer.granted(), false, 'x is the survivor\'s');
  back.send({ t: 'release', token: 1 });
  await until(() => newcomer.granted(), 'granted once the survivor released it');
});

test('a successor whose lost hub left no live marker keeps only its start-up hold', async (t) => {
  const indexedDB = new IDBFactory();
  const { hub, raw } = await successor(t, indexedDB);
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
    hubName: HUB_NAME, wait: true, pending: new Map(), timeout: 300,
    log: (level, text) => logged.push([level, text]), scanned: () => { scannedAt = Date.now(); },
  });
  await until(() => scannedAt !== null, 'the scan ended');
  assert.ok(scannedAt - began >= 290, 'not before the bound');
  assert.deepEqual(logged.map(([level]) => level), ['warn']);
  assert.match(logged[0][1], /did not list its databases within 300 ms: busy survivors of the lost hub are not waited for/);
  // A slow listing within the bound: the marker under the lost hub is waited for.
  const pending = new Map();
  let scanned = false;
  let waited = null;
  let list;
  awaitHeldMarkers(new IDBFactory(), new Promise((resolve) => { list = resolve; }), {
    hubName: HUB_NAME, wait: true, pending, timeout: 10_000, log: () => {},
    scanned: () => { scanned = true; waited = [...pending.keys()]; },
  });
  await new Promise((resolve) => setTimeout(resolve, 200));
  assert.equal(scanned, false, 'still listing: the scan goes on');
  list([heldMarkerName(HUB_NAME, 'a', 'm'), heldMarkerName(BUCKET_HUB, 'b', 'm'), 'weblocks-held:old-hub id']);
  await until(() => scanned, 'the scan ended once listed');
  assert.deepEqual(waited, [heldMarkerName(HUB_NAME, 'a', 'm')], 'this lock space\'s marker is waited for, no other');
});
