// The held markers a lost hub's clients left open (js/browser/held-marker.js): a context holds one
// open while it holds or waits under a hub and no running sentinel speaks for it. A starting hub
// deletes every marker not opened under itself: a delete completes once nobody holds that marker
// open (its context died, or re-registered and dropped it), and waits while its context lives.
// Those opened under a hub this one succeeds after a loss (succession.js lostHubIds) are waited
// for: the hub keeps its reclaim window (reclaim-window.js) open while any of their deletes
// waits, so the lock of a context busy in a long task since the loss goes to nobody else, however
// long the task runs.
import { heldMarkerHub } from './protocol.js';

/**
 * Starts the deletes, from `listing` (alive.js listDatabases). `pending` (a Set) gets the names of
 * the markers under `lostHubs` whose delete has not completed; `scanned()` is called once every
 * delete was sent, or after `timeout` ms if the browser does not list its databases in time.
 */
export function awaitHeldMarkers(indexedDB, listing, { hubId, lostHubs, pending, scanned, log, timeout }) {
  let done = false;
  const finish = () => {
    if (done) return;
    done = true;
    clearTimeout(timer);
    scanned();
  };
  const unlisted = (why) => {
    if (!done && lostHubs.length > 0) log('warn', `${why}: busy survivors of the lost hub are not waited for`);
    finish();
  };
  const timer = setTimeout(() => unlisted(`IndexedDB did not list its databases within ${timeout} ms`), timeout);
  listing.then((names) => {
    for (const name of names) {
      const markedUnder = heldMarkerHub(name);
      if (markedUnder === null || markedUnder === hubId) continue;
      const waited = !done && lostHubs.includes(markedUnder);
      if (waited) pending.add(name);
      try {
        const request = indexedDB.deleteDatabase(name);
        if (waited) request.onsuccess = request.onerror = () => pending.delete(name);
      } catch {
        pending.delete(name);
      }
    }
    finish();
  }, (error) => unlisted(`IndexedDB databases cannot be listed (${error?.message ?? error})`));
}
