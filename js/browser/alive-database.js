// This window's alive database: an IndexedDB database of its own, held open while the window
// lives, so that the hub learns of its crash from the browser (js/hub/alive.js). The hub deletes
// it; the delete waits while this connection is open and succeeds once the browser closes it.
// Its versionchange event is left unanswered on purpose: the connection stays open, however busy
// the window is. Where IndexedDB is missing or refuses (a Firefox private window, a sandboxed
// iframe), the window simply goes without: the heartbeat tells its crash, as before.
import { randomUuid } from '../api/random-id.js';
import { ALIVE_PREFIX, storageRetryDelay } from '../hub/protocol.js';

export class AliveDatabase {
  /**
   * @param scope   the window
   * @param onOpen  (name) => void: a database of ours is open, under this name (again after a reopen)
   */
  constructor(scope, onOpen) {
    this.indexedDB = indexedDBOf(scope);
    this.onOpen = onOpen;
    this.db = null;
    this.name = null;     // the open database's name, null while none is
    this.opening = false;
    this.wanted = false;  // open() was called, close() not since
    this.reopens = null;  // failed opens since the browser closed ours; null: none was closed
    /** @type {any} a timer: a number in pages, a Timeout under Node's types */
    this.retryTimer = 0;
  }

  /** Opens one under a fresh name, unless one is open or opening. */
  open() {
    this.wanted = true;
    clearTimeout(this.retryTimer);
    if (this.indexedDB === null || this.db !== null || this.opening) return;
    const name = ALIVE_PREFIX + randomUuid();
    let request;
    try {
      request = this.indexedDB.open(name);
    } catch {
      this.indexedDB = null; // refused here for good
      return;
    }
    this.opening = true;
    request.onsuccess = () => {
      this.opening = false;
      const db = request.result;
      if (!this.wanted) { db.close(); return; }
      // Closed by the browser while this window lives (site data cleared): a new one, named anew.
      db.onclose = () => {
        if (this.db !== db) return;
        this.db = null;
        this.name = null;
        this.reopens = 0;
        this.open();
      };
      this.db = db;
      this.name = name;
      this.reopens = null;
      this.onOpen(name);
    };
    request.onerror = (event) => {
      event.preventDefault?.();
      this.opening = false;
      // Refused right after a close: the browser is still clearing the origin's storage (Chromium,
      // after a Clear-Site-Data response: AbortError "The connection was closed."). Tried again,
      // later each time. A first open that fails means IndexedDB refuses here: the window goes without.
      const delay = this.reopens === null || !this.wanted ? null : storageRetryDelay(this.reopens++);
      if (delay !== null) this.retryTimer = setTimeout(() => this.open(), delay);
    };
  }

  /**
   * Closes it (pagehide into the back/forward cache: a pending delete's versionchange would
   * evict the page). The hub's delete then succeeds; the page said bye before.
   */
  close() {
    this.wanted = false;
    clearTimeout(this.retryTimer);
    const db = this.db;
    this.db = null;
    this.name = null;
    if (db !== null) db.close();
  }
}

/** The context's IDBFactory, or null (an opaque origin may throw on the mere read). */
export function indexedDBOf(scope) {
  try {
    return scope.indexedDB ?? null;
  } catch {
    return null;
  }
}
