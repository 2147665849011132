// Whether a context has anything held or waited for: its own (each lock space's backend) or its
// dedicated workers' (each tells its creator). Firefox keeps such a page out of the back/forward
// cache (bfcache.js), so the page must know of its workers' locks too.

/** A Map of a backend's requests that calls `onChange(busy)` as it becomes non-empty or empty. */
export class RecordMap extends Map {
  constructor(onChange) {
    super();
    this.onChange = onChange;
  }

  set(key, value) {
    const was = this.size;
    super.set(key, value);
    if (was === 0 && this.size > 0) this.onChange?.(true);
    return this;
  }

  delete(key) {
    const deleted = super.delete(key);
    if (deleted && this.size === 0) this.onChange?.(false);
    return deleted;
  }

  clear() {
    const was = this.size;
    super.clear();
    if (was > 0) this.onChange?.(false);
  }
}

/** The sources (backends, workers) that have something outstanding; `onChange(busy)` on the first and the last. */
export class Outstanding {
  constructor(onChange) {
    this.sources = new Set();
    this.onChange = onChange;
  }

  set(source, busy) {
    const was = this.sources.size > 0;
    if (busy) this.sources.add(source); else this.sources.delete(source);
    const now = this.sources.size > 0;
    if (now !== was) this.onChange(now);
  }
}
