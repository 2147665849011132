// What a browser does to IndexedDB when the origin's site data is cleared (a Clear-Site-Data:
// "storage" response), over fake-indexeddb: for the succession record's and the alive databases'
// tests (tests/browser/clear-site-data.spec.js is the real one).

/**
 * An IDBFactory over `indexedDB` that keeps the connections it opens (`opened`) and fails the next
 * `refuse` opens with an AbortError, as a browser does while it clears the origin's site data.
 */
export function clearableFactory(indexedDB) {
  const factory = {
    opened: [],
    refuse: 0,
    open(...args) {
      if (factory.refuse > 0) {
        factory.refuse--;
        const request = { result: undefined, error: new DOMException('The connection was closed.', 'AbortError') };
        setTimeout(() => request.onerror?.({ preventDefault() {} }), 0);
        return request;
      }
      const request = indexedDB.open(...args);
      request.addEventListener('success', () => factory.opened.push(request.result));
      return request;
    },
    deleteDatabase: (name) => indexedDB.deleteDatabase(name),
  };
  return factory;
}

/** What the browser does on a Clear-Site-Data "storage": every connection closed (a close event), every database deleted. */
export async function clearSiteData(factory, indexedDB) {
  for (const db of factory.opened.splice(0)) {
    db.close();
    db.onclose?.(new Event('close'));
  }
  const names = (await indexedDB.databases()).map((d) => d.name);
  await Promise.all(names.map((name) => new Promise((resolve, reject) => {
    const request = indexedDB.deleteDatabase(name);
    request.onsuccess = resolve;
    request.onerror = () => reject(request.error);
  })));
}
