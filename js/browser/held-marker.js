// This context's held marker: an IndexedDB database it holds open while it holds or waits under a
// hub, so that a successor of that hub finds it, were the context busy in a long task when that hub
// died: whether it has no sentinel (a Firefox dedicated worker; a Content-Security-Policy forbids
// it), its sentinel has not answered yet (it starts after the context's first answer:
// hub-backend.js), or its sentinel's answer to the successor comes late (hub-loss-watch.js vouch). The
// next hub finds the markers left under the hub it succeeds (js/hub/held-markers.js) and
// keeps its reclaim window open until each is closed: its context re-registered (and dropped it),
// or died (the browser closed it). Without it, such a context's lock went to a waiter 2.5 s after
// the loss while its callback still ran (docs/browser.md, "Hub loss and reclaim").
//
// Once opened, the browser holds the connection open however busy the context is, and closes it
// when the context dies. Not before: an open made in the task just before a long one reaches the
// browser's storage only after that task (Chromium; Firefox, from a dedicated worker, 130 ms and
// more after the open under load: docs/browser.md, "Hub loss and reclaim"), and the next hub
// would not find it. So what the hub says to this context (its grants first) waits until the
// browser has the marker (`afterOpened`): a callback never starts before its marker exists. The
// versionchange a hub's delete sends is left unanswered, as for the alive database
// (alive-database.js). Clearing the origin's site data closes it too: the context goes unmarked
// until its next change of hub or of what it has outstanding (not opened again at once).
import { randomUuid } from '../api/random-id.js';
import { heldMarkerName } from '../hub/protocol.js';

// A marker whose open has not reached the browser's storage within this long (a storage that
// hangs) is not waited for: the context goes on unmarked, as where there is no IndexedDB.
const OPENED_WITHIN = 1000;

export class HeldMarker {
  /** @param indexedDB the context's IDBFactory, or null */
  constructor(indexedDB) {
    this.indexedDB = indexedDB;
    this.hubId = null;   // the hub the open marker is under, or null
    this.marker = null;  // { name, indexedDB, db (null until opened), dropped }
    this.held = [];      // what waits for the open marker to exist (afterOpened), in order
    this.openTimer = null;
  }

  /**
   * Runs `then` once the browser's storage holds this context's marker open (or failed to open
   * it), in the order of the calls: at once when no marker is being opened and nothing waits.
   */
  afterOpened(then) {
    if (this.held.length === 0 && this.openTimer === null) then();
    else this.held.push(then);
  }

  /** `listener` (a request's, docs/api.md) whose answers wait for the marker (afterOpened). */
  gate(listener) {
    const later = (answer) => (...args) => this.afterOpened(() => listener[answer](...args));
    return { granted: later('granted'), notAvailable: later('notAvailable'), stolen: later('stolen'), failed: later('failed') };
  }

  /** Marked under `hubId` from now on (null: not marked), opening a fresh marker if that changed. */
  set(hubId) {
    if (hubId === this.hubId) return;
    this.drop();
    if (hubId === null || this.indexedDB === null) return;
    // Its own factory: a later open that throws makes this.indexedDB null meanwhile.
    const marker = { name: heldMarkerName(hubId, randomUuid()), indexedDB: this.indexedDB, db: null, dropped: false };
    let request;
    try {
      request = this.indexedDB.open(marker.name);
    } catch {
      this.indexedDB = null; // refused here for good: nothing to mark with
      return;
    }
    this.hubId = hubId;
    this.marker = marker;
    // Open means held: a hub's delete waits for it from then on. Not at upgradeneeded (the marker
    // is created, its connection not yet open): Chromium's delete then completes at once.
    const exists = () => { if (this.marker === marker) this.opened(); };
    this.openTimer = setTimeout(exists, OPENED_WITHIN); // (none runs: drop() above ended the last)
    request.onsuccess = () => {
      exists();
      marker.db = request.result;
      if (marker.dropped) remove(marker);
    };
    request.onerror = (event) => {
      event.preventDefault?.();
      exists();
    };
  }

  /** The marker being opened exists (or will not): what waited for it goes on, in order. */
  opened() {
    clearTimeout(this.openTimer);
    this.openTimer = null;
    while (this.held.length > 0 && this.openTimer === null) this.held.shift()();
  }

  /** No longer marked: the marker is closed and deleted (at once, or as soon as its open completes). */
  drop() {
    const marker = this.marker;
    this.marker = null;
    this.hubId = null;
    if (marker === null) return;
    marker.dropped = true;
    if (marker.db !== null) remove(marker);
    if (this.openTimer !== null) this.opened(); // nothing to wait for any more
  }
}

function remove(marker) {
  try {
    marker.db.close();
    marker.indexedDB.deleteDatabase(marker.name);
  } catch { /* gone with the storage already */ }
}
