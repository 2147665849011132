// Applies one operation list to two systems in lockstep and compares every observable:
// request status, release/abort results, closeOwner counts, the events each client receives
// after every operation, and snapshots.
//
// Operations are symbolic so that a sequence stays meaningful when the shrinker deletes parts:
//   { op: 'open', c, clientId, owner }      client slot c opens (skipped if c is open)
//   { op: 'close', c }                      agent termination of slot c
//   { op: 'closeOwner', owner }             every client opened with that owner tag
//   { op: 'request', c, r, name, mode, wait }   request labelled r
//   { op: 'release', c, r }  { op: 'abort', c, r }   c releases / aborts request r (any slot's)
//   { op: 'snapshot' }
// An operation on a slot that is not open, or on a label that was never requested, is skipped.
import { checkInvariants } from './spec-model.mjs';

export class Divergence extends Error {
  constructor(index, op, what, expected, actual, labels = ['model', 'engine']) {
    super(`operation ${index} ${JSON.stringify(op)}: ${what}\n  ${labels[0]}: ${JSON.stringify(expected)}\n  ${labels[1]}: ${JSON.stringify(actual)}`);
    this.index = index;
    this.op = op;
    this.what = what;
  }
}

export class Replayer {
  // snapshotEveryStep: compare snapshots after every operation, not only at 'snapshot' operations
  // (the shrinker uses it: a divergence seen earlier lets it drop more operations).
  constructor(model, engine, { snapshotEveryStep = false } = {}) {
    this.sides = [model, engine];
    this.snapshotEveryStep = snapshotEveryStep;
    this.slots = new Map();     // slot -> { handles: [model, engine], owner }
    this.labels = new Map();    // label -> { slot, ids: [model, engine] }
    this.idToLabel = [new Map(), new Map()];
    this.index = 0;
    this.counts = { operations: 0, skipped: 0, granted: 0, queued: 0, notAvailable: 0, stolen: 0, released: 0, aborted: 0, closed: 0, snapshots: 0 };
  }

  // Runs op on both sides; throws a Divergence when they disagree.
  step(op) {
    const index = this.index++;
    const result = this.apply(op, index);
    if (result === 'skipped') { this.counts.skipped++; return; }
    this.counts.operations++;
    this.compareEvents(index, op);
    if (op.op === 'snapshot' || this.snapshotEveryStep) this.compareSnapshots(index, op);
  }

  run(ops) {
    for (const op of ops) this.step(op);
  }

  both(index, op, what, fn) {
    const results = this.sides.map((side, i) => {
      try {
        return { value: fn(side, i) };
      } catch (error) {
        return { error: error.code ?? String(error) };
      }
    });
    const [a, b] = results.map((r) => JSON.stringify(r));
    if (a !== b) throw new Divergence(index, op, what, results[0], results[1], this.sideLabels());
    if (results[0].error) throw new Divergence(index, op, `${what} threw on both sides`, results[0], results[1], this.sideLabels());
    return results.map((r) => r.value);
  }

  apply(op, index) {
    const slot = this.slots.get(op.c);
    switch (op.op) {
      case 'open': {
        if (slot) return 'skipped';
        const handles = this.sides.map((side) => side.open(op.clientId, op.owner));
        this.slots.set(op.c, { handles, owner: op.owner });
        return 'done';
      }
      case 'close': {
        if (!slot) return 'skipped';
        this.both(index, op, 'close', (side, i) => { side.close(slot.handles[i]); return true; });
        this.slots.delete(op.c);
        this.counts.closed++;
        return 'done';
      }
      case 'closeOwner': {
        this.both(index, op, 'closeOwner count', (side) => side.closeOwner(op.owner));
        for (const [c, s] of [...this.slots]) if (s.owner === op.owner) { this.slots.delete(c); this.counts.closed++; }
        return 'done';
      }
      case 'request': {
        if (!slot || this.labels.has(op.r)) return 'skipped';
        const results = this.sides.map((side, i) => {
          try { return side.request(slot.handles[i], op.name, op.mode, op.wait); } catch (error) { return { error: error.code ?? String(error) }; }
        });
        const [m, e] = results;
        if (m.error || e.error || m.status !== e.status) throw new Divergence(index, op, 'request status', m, e, this.sideLabels());
        this.counts[m.status]++;
        if (m.status !== 'notAvailable') {
          this.labels.set(op.r, { slot: op.c, ids: [m.id, e.id] });
          results.forEach((r, i) => {
            if (this.idToLabel[i].has(r.id)) throw new Divergence(index, op, `${this.sides[i].label} reused request id ${r.id}`, m, e, this.sideLabels());
            this.idToLabel[i].set(r.id, op.r);
          });
        }
        return 'done';
      }
      case 'release':
      case 'abort': {
        const target = this.labels.get(op.r);
        if (!slot || !target) return 'skipped';
        const [done] = this.both(index, op, `${op.op} result`, (side, i) => side[op.op](slot.handles[i], target.ids[i]));
        if (done) this.counts[op.op === 'release' ? 'released' : 'aborted']++;
        return 'done';
      }
      case 'snapshot':
        return 'done';
      default:
        throw new Error(`unknown operation ${JSON.stringify(op)}`);
    }
  }

  // Events of one operation are compared per client, in order: the spec enqueues a granted
  // lock's callback (4.4 step 2.1.11) and rejects a stolen lock's promise (4.1 step 2.4.1.1.2)
  // in the order its steps run, across names too.
  compareEvents(index, op) {
    for (const [c, slot] of this.slots) {
      const lists = this.sides.map((side, i) => side.takeEvents(slot.handles[i])
        .map(({ type, id }) => `${type}:${this.idToLabel[i].get(id) ?? `unknown id ${id}`}`));
      if (lists[0].join() !== lists[1].join()) throw new Divergence(index, op, `events of client slot ${c}`, lists[0], lists[1], this.sideLabels());
      this.counts.stolen += lists[0].filter((e) => e.startsWith('stolen')).length;
    }
  }

  compareSnapshots(index, op) {
    this.counts.snapshots++;
    const [model, engine] = this.sides.map((side) => side.snapshot());
    const problems = checkInvariants(engine);
    if (problems.length) throw new Divergence(index, op, `${this.sides[1].label} snapshot breaks invariants: ${problems.join('; ')}`, model, engine, this.sideLabels());
    const [a, b] = [model, engine].map(observableSnapshot);
    if (a !== b) throw new Divergence(index, op, 'snapshot', JSON.parse(a), JSON.parse(b), this.sideLabels());
    // The held lock set is an ordered set (grant order, across names): compared as it is.
    if (JSON.stringify(model.held) !== JSON.stringify(engine.held)) {
      throw new Divergence(index, op, 'order of held locks across names', model.held, engine.held, this.sideLabels());
    }
  }

  // At the end of an epoch every client is closed: both sides must hold nothing at all.
  checkEmpty(index) {
    const [a, b] = this.sides.map((side) => side.counts());
    const op = { op: 'endOfEpoch' };
    if (a.clients || a.entries || b.clients || b.entries) throw new Divergence(index, op, 'state left behind after every client closed', a, b, this.sideLabels());
  }

  sideLabels() { return this.sides.map((side) => side.label); }

  openSlots() { return [...this.slots.keys()]; }
}

// Per name, holders in grant order and pending requests in queue order. The held locks are also
// compared in their global order (compareSnapshots); the pending requests are not: the spec lists
// them queue by queue, in the queue map's order (which depends on every name ever used), the
// engine lists them in request order across names, another order of the same set.
export function observableSnapshot({ held, pending }) {
  const byName = new Map();
  const entry = (name) => {
    if (!byName.has(name)) byName.set(name, { held: [], pending: [] });
    return byName.get(name);
  };
  for (const l of held) entry(l.name).held.push(`${l.mode}:${l.clientId}`);
  for (const r of pending) entry(r.name).pending.push(`${r.mode}:${r.clientId}`);
  return JSON.stringify([...byName].sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)));
}
