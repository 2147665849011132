// The held markers contexts hold open (js/browser/held-marker.js): a context holds one open while
// it holds or waits in the lock space, named after the lock space (the hub's name) and its clientId.
// A starting hub deletes every marker of its lock space, and those of older versions: a delete
// completes once nobody holds that marker open (its context died, or has nothing outstanding any
// more), and waits while its context holds it. After a loss (`wait`), the markers of contexts that
// have not registered with this hub are waited for: the hub keeps its reclaim window
// (reclaim-window.js) open while any of their deletes waits and its context has not registered,
// so the lock of a context busy in a long task since the loss goes to nobody else, however long
// the task runs.
import { HELD_PREFIX, heldMarkerOwner } from './protocol.js';

/**
 * Starts the deletes, from `listing` (alive.js listDatabases). `pending` (a Map) gets name ->
 * clientId of each marker of this lock space whose delete has not completed, when `wait`;
 * `scanned()` is called once every delete was sent, or after `timeout` ms if the browser does not
 * list its databases in time.
 */
export function awaitHeldMarkers(indexedDB, listing, { hubName, wait, pending, scanned, log, timeout }) {
  let done = false;
  const finish = () => {
    if (done) return;
    done = true;
    clearTimeout(timer);
    scanned();
  };
  const unlisted = (why) => {
    if (!done && wait) log('warn', `${why}: busy survivors of the lost hub are not waited for`);
    finish();
  };
  const timer = setTimeout(() => unlisted(`IndexedDB did not list its databases within ${timeout} ms`), timeout);
  listing.then((names) => {
    for (const name of names) {
      if (typeof name !== 'string' || !name.startsWith(HELD_PREFIX)) continue;
      const owner = heldMarkerOwner(name);
      if (owner !== null && owner.hubName !== hubName) continue; // another lock space's: its hub's
      const waited = !done && wait && owner !== null;
      if (waited) pending.set(name, owner.clientId);
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
