// A window's alive database (js/browser/alive-database.js) over fake-indexeddb: it stays open while
// the window lives, and when the browser closes it (site data cleared) a new one is opened and
// named to the hub, through the refusals that follow a clear; where IndexedDB refuses from the
// start, the window goes without one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { IDBFactory } from 'fake-indexeddb';
import { AliveDatabase } from '../../../js/browser/alive-database.js';
import { ALIVE_PREFIX } from '../../../js/hub/protocol.js';
import { clearableFactory, clearSiteData } from './clear-site-data.js';
import { eventually } from './until.js';

/** An alive database, opened: { indexedDB, factory (clear-site-data.js), named (every name it gave), alive }. */
async function openedAliveDatabase() {
  const indexedDB = new IDBFactory();
  const factory = clearableFactory(indexedDB);
  const named = [];
  const alive = new AliveDatabase({ indexedDB: factory }, (name) => named.push(name));
  alive.open();
  await eventually(() => named.length === 1, 'the first database is open');
  return { indexedDB, factory, named, alive };
}

test('a window whose alive database the browser closed opens a new one under a new name, and names it', async () => {
  const { indexedDB, factory, named, alive } = await openedAliveDatabase();
  assert.ok(named[0].startsWith(ALIVE_PREFIX));
  factory.refuse = 3; // the browser refuses the first opens while it clears
  await clearSiteData(factory, indexedDB);
  await eventually(() => named.length === 2, 'a new database is open and named');
  assert.notEqual(named[1], named[0], 'under a new name: the hub watches it afresh');
  assert.equal(alive.name, named[1]);
  assert.equal(factory.refuse, 0, 'the refused opens were tried again');
  assert.deepEqual((await indexedDB.databases()).map((d) => d.name), [named[1]]);
  alive.close();
});

test('a window where IndexedDB refuses from the start goes without an alive database, and does not retry', async () => {
  const factory = clearableFactory(new IDBFactory());
  factory.refuse = 1;
  const named = [];
  const alive = new AliveDatabase({ indexedDB: factory }, (name) => named.push(name));
  alive.open();
  await new Promise((resolve) => setTimeout(resolve, 400)); // past the first retry, were there one
  assert.deepEqual(named, []);
  assert.equal(factory.opened.length, 0, 'nothing was opened after the refusal');
  assert.equal(alive.name, null);
});

test('a window that closes its alive database (back/forward cache) stops reopening it', async () => {
  const { indexedDB, factory, named, alive } = await openedAliveDatabase();
  factory.refuse = 1;
  await clearSiteData(factory, indexedDB);
  alive.close(); // pagehide into the cache while a reopen waits for its retry
  await new Promise((resolve) => setTimeout(resolve, 400));
  assert.equal(named.length, 1, 'no database was opened for a page in the cache');
});
