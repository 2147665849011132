// This context's held marker: an IndexedDB database it holds open while it holds or waits under a
// hub and nothing else could speak for it, were it busy in a long task when that hub died: it has
// no sentinel (a Firefox dedicated worker; a Content-Security-Policy forbids it), or its sentinel
// has not answered yet (it starts after the context's first answer: hub-backend.js). The
// next hub finds the markers left under the hub it succeeds (js/hub/held-markers.js) and
// keeps its reclaim window open until each is closed: its context re-registered (and dropped it),
// or died (the browser closed it). Without it, such a context's lock went to a waiter 2.5 s after
// the loss while its callback still ran (docs/browser.md, "Hub loss and reclaim").
//
// Once opened, the browser holds the connection open however busy the context is, and closes it
// when the context dies. Not before: an open made in the task just before a long one reaches
// Chromium's storage only after that task (docs/browser.md, "Hub loss and reclaim"). The
// versionchange a hub's delete sends is left unanswered, as for the alive database
// (alive-database.js). Clearing the origin's site data closes it too: the context goes unmarked
// until its next change of hub or of what it has outstanding (not opened again at once).
import { randomUuid } from '../api/random-id.js';
import { heldMarkerName } from '../hub/protocol.js';

export class HeldMarker {
  /** @param indexedDB the context's IDBFactory, or null */
  constructor(indexedDB) {
    this.indexedDB = indexedDB;
    this.hubId = null;   // the hub the open marker is under, or null
    this.marker = null;  // { name, indexedDB, db (null until opened), dropped }
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
    request.onsuccess = () => {
      marker.db = request.result;
      if (marker.dropped) remove(marker);
    };
    request.onerror = (event) => event.preventDefault?.();
  }

  /** No longer marked: the marker is closed and deleted (at once, or as soon as its open completes). */
  drop() {
    const marker = this.marker;
    this.marker = null;
    this.hubId = null;
    if (marker === null) return;
    marker.dropped = true;
    if (marker.db !== null) remove(marker);
  }
}

function remove(marker) {
  try {
    marker.db.close();
    marker.indexedDB.deleteDatabase(marker.name);
  } catch { /* gone with the storage already */ }
}
