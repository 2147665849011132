// The protected resource of the etcd tests, outside every lock client: it takes writes tagged
// with a holder id and a fencing token, refuses a token lower than the highest it has accepted
// for that name (what a fencing-aware store does), and logs everything. check() then looks for
// what mutual exclusion forbids, as the resource saw it:
// - an interleaving: accepted writes of holder A, then of holder B, then of A again on one name;
// - two different holders accepted with the same token (two grants the lock space confused);
// and counts the writes fencing refused (holders that had lost the lock without knowing it yet).
export class FencedResource {
  constructor() {
    this.highest = new Map();   // name -> highest accepted token
    this.accepted = new Map();  // name -> [[holder, token]]
    this.refused = [];          // [name, holder, token, highest]
    this.tokenOwner = new Map(); // `${name}@${token}` -> holder
  }

  /** A write: true if accepted. */
  write(name, holder, token) {
    if (!Number.isSafeInteger(token) || token <= 0) throw new Error(`write without a fencing token: ${token}`);
    const highest = this.highest.get(name) ?? 0;
    if (token < highest) {
      this.refused.push([name, holder, token, highest]);
      return false;
    }
    this.highest.set(name, token);
    if (!this.accepted.has(name)) this.accepted.set(name, []);
    this.accepted.get(name).push([holder, token]);
    return true;
  }

  check() {
    const violations = [];
    let writes = 0;
    for (const [name, log] of this.accepted) {
      writes += log.length;
      const finished = new Set(); // holders that were followed by another holder
      let previous = null;
      for (const [holder, token] of log) {
        const owner = this.tokenOwner.get(`${name}@${token}`);
        if (owner !== undefined && owner !== holder) violations.push(`${name}: token ${token} accepted from two holders, ${owner} and ${holder}`);
        this.tokenOwner.set(`${name}@${token}`, holder);
        if (holder !== previous) {
          if (finished.has(holder)) violations.push(`${name}: holder ${holder} wrote again after another holder had written`);
          if (previous !== null) finished.add(previous);
          previous = holder;
        }
      }
    }
    return { violations, writes, refused: this.refused.length, names: this.accepted.size };
  }
}
