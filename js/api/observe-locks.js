// observeLocks(callback, options): the lock space's changes, pushed (docs/api.md, "Observing
// locks"). Hosts give a source of records in the order the lock space made them; this file filters
// them by name, fills in what a gap lost (from the difference of two snapshots), and calls back.
//
// A source: observe(sink) -> stop(), where sink.start(snapshot) is called once, then
// sink.changes(records, snapshot) after changes; records are { type, name, mode, clientId },
// { type: 'deadlock', cycle, certain, rejected } or { type: 'lost' } (records are missing: the
// snapshot tells where they led), and snapshot is the state right after the last record.
import { toObserveArguments } from './observe-shared.js';

const CHANGE_TYPES = new Set(['requested', 'granted', 'released', 'aborted', 'stolen', 'deadlock']);

/**
 * Observes `source` for `callback` (after toObserveArguments). Returns a function that stops.
 * A signal that is already aborted observes nothing (the callback is never called).
 */
export function observeSource(source, callback, options) {
  const { wanted, signal, possibleDeadlocks } = toObserveArguments(callback, options);
  let stopped = false;
  let stopSource = null;
  let last = null; // the last snapshot seen (all names)
  const suspects = possibleDeadlocks === null ? null : new PossibleDeadlocks(possibleDeadlocks, () => last, (change) => {
    if (observed(change, wanted)) deliver(last, [change]);
  });
  const stop = () => {
    if (stopped) return;
    stopped = true;
    signal?.removeEventListener('abort', stop);
    suspects?.stop();
    if (stopSource !== null) stopSource();
  };
  if (signal?.aborted) return stop;
  signal?.addEventListener('abort', stop, { once: true });

  const deliver = (snapshot, changes) => {
    if (stopped) return;
    try {
      callback(filterSnapshot(snapshot, wanted), changes);
    } catch (error) {
      reportError(error);
    }
  };
  const sink = {
    start(snapshot) {
      last = snapshot;
      const filtered = filterSnapshot(snapshot, wanted);
      const changes = [
        ...filtered.held.map((info) => ({ type: 'granted', ...info })),
        ...filtered.pending.map((info) => ({ type: 'requested', ...info })),
      ];
      deliver(snapshot, changes);
      suspects?.look(snapshot, []);
    },
    changes(records, snapshot) {
      let changes = [];
      for (const record of records) {
        if (record.type === 'lost') {
          // Records are missing: what they did is the difference between the snapshots around
          // them (records after the gap are in that difference too).
          changes = differences(last, snapshot);
          break;
        }
        if (!CHANGE_TYPES.has(record.type)) continue;
        changes.push(record.type === 'deadlock' ? deadlockChange(record) : record);
      }
      last = snapshot;
      const certain = changes.filter((change) => change.type === 'deadlock');
      changes = changes.filter((change) => observed(change, wanted));
      if (changes.length !== 0) deliver(snapshot, changes);
      suspects?.look(snapshot, certain);
    },
  };
  try {
    stopSource = source.observe(sink);
  } catch (error) {
    stopped = true;
    throw error;
  }
  if (stopped) stopSource();
  return stop;
}

// A deadlock as observers see it: named by its closing request (the cycle's first member).
function deadlockChange(record) {
  const cycle = record.cycle === null ? null : record.cycle.map(({ clientId, holds, waitsFor }) => ({ clientId, holds, waitsFor }));
  const closing = record.cycle?.[0];
  return {
    type: 'deadlock', name: closing?.waitsFor, mode: closing?.mode, clientId: closing?.clientId,
    cycle, certain: record.certain ?? true, rejected: record.rejected === true,
  };
}

/**
 * Cycles of contexts in a snapshot: each context of the cycle waits for a name that the next one
 * holds in a mode that blocks it. Whether the waits are inside the held locks' callbacks is not
 * known, so such a cycle is only a possible deadlock: reported (certain: false) once it has lasted
 * `delay` ms, checked on the latest snapshot then, once per cycle while it lasts.
 */
class PossibleDeadlocks {
  constructor(delay, current, report) {
    this.delay = delay;
    this.current = current;
    this.report = report;
    this.timers = new Map();   // cycle key -> timer
    this.reported = new Set(); // cycle keys reported (or reported certain) and still there
  }

  look(snapshot, certain) {
    for (const change of certain) if (change.cycle !== null) this.reported.add(cycleKey(change.cycle));
    const cycles = contextCycles(snapshot);
    for (const key of [...this.timers.keys()]) if (!cycles.has(key)) { clearTimeout(this.timers.get(key)); this.timers.delete(key); }
    for (const key of [...this.reported]) if (!cycles.has(key)) this.reported.delete(key);
    for (const key of cycles.keys()) {
      if (this.reported.has(key) || this.timers.has(key)) continue;
      const timer = setTimeout(() => {
        this.timers.delete(key);
        const still = contextCycles(this.current()).get(key);
        if (still === undefined || this.reported.has(key)) return;
        this.reported.add(key);
        const closing = still[0];
        this.report({
          type: 'deadlock', name: closing.waitsFor, mode: closing.mode, clientId: closing.clientId,
          cycle: still.map(({ clientId, holds, waitsFor }) => ({ clientId, holds, waitsFor })), certain: false, rejected: false,
        });
      }, this.delay);
      this.timers.set(key, timer);
    }
  }

  stop() {
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }
}

function cycleKey(cycle) {
  return cycle.map((member) => member.clientId).sort().join('\u0000');
}

// Every elementary cycle found by a depth-first search of the contexts' wait-for graph (one per
// set of contexts), in wait order: { clientId, holds, waitsFor, mode }.
function contextCycles(snapshot) {
  const holdersOf = new Map(); // name -> [info]
  for (const info of snapshot.held) {
    if (!holdersOf.has(info.name)) holdersOf.set(info.name, []);
    holdersOf.get(info.name).push(info);
  }
  const edges = new Map(); // clientId -> [{ to, waitsFor, mode, holds }]
  for (const wait of snapshot.pending) {
    for (const holder of holdersOf.get(wait.name) ?? []) {
      if (holder.clientId === wait.clientId) continue;
      if (wait.mode === 'shared' && holder.mode === 'shared') continue;
      if (!edges.has(wait.clientId)) edges.set(wait.clientId, []);
      edges.get(wait.clientId).push({ to: holder.clientId, waitsFor: wait.name, mode: wait.mode });
    }
  }
  const heldBy = (from, to) => edges.get(from)?.find((edge) => edge.to === to);
  const cycles = new Map();
  const state = new Map(); // clientId -> 1 on the path, 2 done
  const path = [];
  const visit = (node) => {
    state.set(node, 1);
    path.push(node);
    for (const edge of edges.get(node) ?? []) {
      if (state.get(edge.to) === 1) {
        const members = path.slice(path.indexOf(edge.to));
        const cycle = members.map((clientId, i) => {
          const next = members[(i + 1) % members.length];
          const out = heldBy(clientId, next);
          const into = heldBy(members[(i - 1 + members.length) % members.length], clientId);
          return { clientId, holds: into.waitsFor, waitsFor: out.waitsFor, mode: out.mode };
        });
        const key = cycleKey(cycle);
        if (!cycles.has(key)) cycles.set(key, cycle);
      } else if (state.get(edge.to) === undefined) {
        visit(edge.to);
      }
    }
    path.pop();
    state.set(node, 2);
  };
  for (const node of edges.keys()) if (state.get(node) === undefined) visit(node);
  return cycles;
}

function observed(change, wanted) {
  if (change.type !== 'deadlock') return wanted(change.name);
  return change.cycle === null || change.cycle.some((member) => wanted(member.holds) || wanted(member.waitsFor));
}

function filterSnapshot(snapshot, wanted) {
  return {
    held: snapshot.held.filter((info) => wanted(info.name)).map(copyInfo),
    pending: snapshot.pending.filter((info) => wanted(info.name)).map(copyInfo),
  };
}

function copyInfo(info) {
  return { name: info.name, mode: info.mode, clientId: info.clientId };
}

const keyOf = (info) => `${info.mode}\u0000${info.clientId}\u0000${info.name}`;

// The changes that lead from one snapshot to the other (multisets of { name, mode, clientId }):
// what a gap in the records did, as far as the two states can tell for certain. A request pending
// before and held now was granted; one held or pending now that was neither before was requested
// (and granted). A lock or request that is gone may have been released, stolen, aborted, or
// granted and released in the gap: the states cannot tell which, so nothing is said of it (the
// snapshot shows it gone).
export function differences(before, after) {
  const count = (list) => {
    const map = new Map();
    for (const info of list) map.set(keyOf(info), (map.get(keyOf(info)) ?? 0) + 1);
    return map;
  };
  const heldBefore = count(before.held);
  const pendingAfter = count(after.pending);
  const changes = [];
  const take = (map, key) => {
    const n = map.get(key) ?? 0;
    if (n === 0) return false;
    map.set(key, n - 1);
    return true;
  };
  const newlyHeld = [];
  for (const info of after.held) if (!take(heldBefore, keyOf(info))) newlyHeld.push(info);
  for (const info of before.pending) {
    const key = keyOf(info);
    if (take(pendingAfter, key)) continue;
    const at = newlyHeld.findIndex((held) => keyOf(held) === key);
    if (at >= 0) {
      newlyHeld.splice(at, 1);
      changes.push({ type: 'granted', ...copyInfo(info) });
    }
  }
  for (const info of newlyHeld) {
    changes.push({ type: 'requested', ...copyInfo(info) }, { type: 'granted', ...copyInfo(info) });
  }
  // (pendingAfter now counts only the requests that were not pending before)
  for (const info of after.pending) if (take(pendingAfter, keyOf(info))) changes.push({ type: 'requested', ...copyInfo(info) });
  return changes;
}

function reportError(error) {
  if (typeof globalThis.reportError === 'function') globalThis.reportError(error);
  else Promise.reject(error); // an unhandled rejection: the host's usual report
}

