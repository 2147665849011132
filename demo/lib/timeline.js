// The timeline's record of who held what when: a lane per context (tab or worker, by its name,
// which is never reused), a bar per held or waiting request, marks for steals, aborts, timeouts,
// closes and crashes. Bars come from the live view's rows (query() is the truth), compared with
// the previous rows each time the lock state is re-read; marks come from the contexts' own reports
// on the bus (what their requests ended with) and from the lock space (a context's name lock freed:
// it is gone, closed if it said goodbye on pagehide, crashed or killed if not).
const KEEP_MS = 10 * 60_000; // older bars and marks are dropped

export class Timeline {
  startedAt = Date.now();
  lanes = new Map(); // context name -> { name, kind, firstSeen, endedAt, ending }
  bars = []; // { lane, lock, mode, status, start, end }
  marks = []; // { lane, kind, lock, at, text }
  #open = new Map(); // "lane|lock|mode|status" -> [bar, ...] (open bars)
  #goodbyes = new Map(); // context name -> how it said it ends ('closed', 'terminated')

  /** rows: the live view's rows (contextName, name, mode, status, since, bookkeeping) */
  observe(rows, at = Date.now()) {
    const counts = new Map();
    for (const row of rows) {
      if (row.bookkeeping || !row.contextName) continue;
      const key = `${row.contextName}|${row.name}|${row.mode}|${row.status}`;
      const entry = counts.get(key) ?? { row, n: 0 };
      entry.n += 1;
      counts.set(key, entry);
    }
    for (const [key, open] of this.#open) {
      const wanted = counts.get(key)?.n ?? 0;
      while (open.length > wanted) open.pop().end = at;
      if (!open.length) this.#open.delete(key);
    }
    for (const [key, { row, n }] of counts) {
      const open = this.#open.get(key) ?? [];
      this.#open.set(key, open);
      this.#lane(row.contextName, at);
      while (open.length < n) {
        // The context's own "since" is exact; it is ignored when older than this tab's view of it.
        const start = row.since && row.since <= at && row.since >= this.startedAt ? Math.min(row.since, at) : at;
        const bar = { lane: row.contextName, lock: row.name, mode: row.mode, status: row.status, start, end: null };
        this.bars.push(bar);
        open.push(bar);
      }
    }
    this.#trim(at);
  }

  /** contexts: the live view's contexts in this lock space */
  observeContexts(contexts, at = Date.now()) {
    for (const context of contexts) if (context.inLockSpace) this.#lane(context.name, at, context.parent);
  }

  /** a context's own report of how a request ended, or of a steal it made */
  mark({ context, kind, lock = null, at = Date.now(), text = '' }) {
    this.#lane(context, at);
    if (this.marks.some((m) => m.lane === context && m.kind === kind && m.lock === lock && m.at === at)) return;
    this.marks.push({ lane: context, kind, lock, at, text });
  }

  /**
   * A context said it ends (pagehide, or its tab terminating a worker). The goodbye travels on the
   * bus, the lock release through the lock manager: either may come first, so a goodbye heard
   * after the lane ended as "crashed" corrects it.
   */
  goodbye(name, how = 'closed') {
    this.#goodbyes.set(name, how);
    const lane = this.lanes.get(name);
    if (lane?.ending !== 'crashed') return;
    const mark = this.marks.find((m) => m.lane === name && m.kind === 'crashed');
    this.marks.splice(this.marks.indexOf(mark), 1);
    lane.endedAt = null;
    this.gone(name, mark?.at ?? Date.now(), how);
  }

  /** the context's name lock was freed: it is gone (its bars close with the next rows) */
  gone(name, at = Date.now(), how = null) {
    const lane = this.#lane(name, at);
    if (lane.endedAt) return;
    lane.endedAt = at;
    lane.ending = how ?? this.#goodbyes.get(name) ?? 'crashed';
    const text = { closed: 'closed (said goodbye)', terminated: 'terminated by its tab (no goodbye from the worker)' }[lane.ending]
      ?? 'crashed or killed: gone without a goodbye; the lock manager freed its locks';
    this.mark({ context: name, kind: lane.ending, at, text });
  }

  #lane(name, at, parent = null) {
    let lane = this.lanes.get(name);
    if (!lane) {
      lane = { name, parent, firstSeen: at, endedAt: null, ending: null };
      this.lanes.set(name, lane);
    }
    if (parent && !lane.parent) lane.parent = parent;
    return lane;
  }

  #trim(now) {
    const horizon = now - KEEP_MS;
    this.bars = this.bars.filter((bar) => bar.end === null || bar.end >= horizon);
    this.marks = this.marks.filter((mark) => mark.at >= horizon);
    for (const [name, lane] of this.lanes) {
      if (lane.endedAt && lane.endedAt < horizon) this.lanes.delete(name);
    }
  }
}
