// Random operations that keep the lock state interesting: a few clients contending on a few
// names, every request option the API can send to an engine (exclusive/shared, wait, ifAvailable,
// steal), signal aborts of pending requests and of requests already granted (the abort lost the
// race), releases, releases of stolen or foreign ids, agent termination one by one and by owner.
// Operands are picked from the reference model's state, so most operations do something.

// Names chosen to break naive implementations: empty, NUL, lone surrogates, composed/decomposed
// forms, astral characters, long names sharing a prefix, prototype keys, whitespace variants.
export const NAME_POOL = [
  'a', 'b', 'c', 'lock', 'Lock', '', '\u0000', '\uD800', '\uDC00x', '\u00e9', 'e\u0301', '\uD83D\uDD12',
  'x'.repeat(300), `${'x'.repeat(299)}y`, ' a', 'a ', 'resource/1', '__proto__', 'constructor', 'hasOwnProperty',
];
const CLIENT_KINDS = ['tab', 'worker', '', '\u00fc', '\uD83D\uDD12'];

export class OperationGenerator {
  constructor(rng, replayer) {
    this.rng = rng;
    this.replayer = replayer;
    this.model = replayer.sides[0].manager;
    this.nextLabel = 1;
    this.startEpoch();
  }

  // A new epoch: a fresh cast of client slots and a small set of contended names.
  startEpoch() {
    const { rng } = this;
    this.slotCount = 2 + rng.int(5);
    const nameCount = 1 + rng.int(4);
    this.names = [];
    while (this.names.length < nameCount) {
      const name = rng.chance(0.6) ? NAME_POOL[rng.int(4)] : rng.pick(NAME_POOL);
      if (!this.names.includes(name)) this.names.push(name);
    }
    this.epochLabels = [];
  }

  labelOf(modelId) { return this.replayer.idToLabel[0].get(modelId); }

  next() {
    const { rng, replayer } = this;
    const open = replayer.openSlots();
    const closed = [];
    for (let c = 0; c < this.slotCount; c++) if (!replayer.slots.has(c)) closed.push(c);
    if (open.length === 0) return this.openOp(rng.pick(closed));

    const c = rng.pick(open);
    const handle = replayer.slots.get(c).handles[0];
    const held = this.model.heldIdsOf(handle).map((id) => this.labelOf(id));
    const pending = this.model.pendingIdsOf(handle).map((id) => this.labelOf(id));
    const choice = rng.weighted({
      open: closed.length ? 3 : 0,
      close: 1,
      closeOwner: 0.25,
      request: 10,
      release: held.length ? 6 : 0,
      abortPending: pending.length ? 2 : 0,
      abortGranted: held.length ? 0.5 : 0,    // a signal fired after the grant: must be a no-op
      releasePending: pending.length ? 0.3 : 0, // not something the API sends; must be a no-op
      foreign: this.epochLabels.length ? 0.8 : 0, // someone else's, stolen or finished id
      snapshot: 1.5,
    });
    switch (choice) {
      case 'open': return this.openOp(rng.pick(closed));
      case 'close': return { op: 'close', c };
      case 'closeOwner': return { op: 'closeOwner', owner: 1 + rng.int(3) };
      case 'request': return this.requestOp(c);
      case 'release': return { op: 'release', c, r: rng.pick(held) };
      case 'abortPending': return { op: 'abort', c, r: rng.pick(pending) };
      case 'abortGranted': return { op: 'abort', c, r: rng.pick(held) };
      case 'releasePending': return { op: 'release', c, r: rng.pick(pending) };
      case 'foreign': return { op: rng.chance(0.5) ? 'release' : 'abort', c, r: rng.pick(this.epochLabels) };
      default: return { op: 'snapshot' };
    }
  }

  openOp(c) {
    const { rng } = this;
    return { op: 'open', c, clientId: `${c}:${rng.pick(CLIENT_KINDS)}`, owner: 1 + rng.int(3) };
  }

  requestOp(c) {
    const { rng } = this;
    const wait = rng.weighted({ wait: 65, 'no-wait': 22, preempt: 13 });
    // The API rejects steal with mode "shared" (request() step 7) before any engine sees it.
    const mode = wait === 'preempt' || rng.chance(0.55) ? 'exclusive' : 'shared';
    const r = `r${this.nextLabel++}`;
    this.epochLabels.push(r);
    return { op: 'request', c, r, name: rng.pick(this.names), mode, wait };
  }

  // The end of an epoch: every client terminates, then the state must be empty on both sides.
  endEpoch() {
    const ops = this.replayer.openSlots().map((c) => ({ op: 'close', c }));
    ops.push({ op: 'snapshot' });
    return ops;
  }
}
