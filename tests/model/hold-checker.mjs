// Checks a log of lock holds, written by the agents that hold them, for mutual exclusion.
// Used by the chaos tests (threads in Node, tabs and workers in the browser), whose agents append:
//   { seq, type: 'grant', hold, holder, name, mode, steal }   after the agent saw the grant
//   { seq, type: 'release', hold }                            before the agent releases (or ends a stolen hold)
//   { seq, type: 'stealIntent', hold, name }                  before a steal request is sent
//   { seq, type: 'dead', holder }                             after the holder is known dead (closed, crashed, terminated);
//                                                             also kills holders named `${holder}/...` (a tab's workers).
//                                                             Whatever a dead holder's messages still say arrives too late and is ignored.
//   { seq, type: 'stolen', hold }                             the hold turned out to be stolen (stolen event, or release said false)
//   { seq, type: 'note', ... }                                ignored: context for whoever reads a failing log
// seq is a total order given by the checker (an atomic counter, or the order a server received
// acknowledged messages). Each recorded hold [grant, release] lies inside the real one, so any
// recorded overlap of incompatible holds is a real one.
// A steal removes every holder of the name (spec 4.1 step 2.4): a hold recorded as starting
// before a steal's grant is taken to end at that steal's intent, whether or not its holder saw
// the stolen event (it may have crashed first). A hold known to be stolen is left out of the
// check altogether: its holder may have recorded the grant after the steal had already happened
// (grant and stolen events arrive together), so its recorded start proves nothing.

export function checkHolds(log) {
  const entries = [...log].sort((a, b) => a.seq - b.seq);
  const holds = new Map();
  const intents = new Map();
  const openByHolder = new Map();
  const problems = [];
  const stolen = new Set(entries.filter((e) => e.type === 'stolen').map((e) => e.hold));
  const involved = new Set();
  const deadHolders = new Set();
  // 't3/w1' is dead once 't3/w1' or 't3' is.
  const isDead = (holder) => {
    const parts = String(holder).split('/');
    for (let i = 1; i <= parts.length; i++) if (deadHolders.has(parts.slice(0, i).join('/'))) return true;
    return false;
  };
  for (const e of entries) {
    if (e.type !== 'dead' && e.type !== 'stolen' && e.holder !== undefined && isDead(e.holder)) continue;
    switch (e.type) {
      case 'stealIntent': intents.set(e.hold, e.seq); break;
      case 'grant': {
        if (holds.has(e.hold)) { problems.push(`hold ${e.hold} granted twice`); break; }
        const hold = { ...e, start: e.seq, end: Infinity, intent: intents.get(e.hold) };
        if (e.steal && hold.intent === undefined) problems.push(`steal ${e.hold} logged no intent`);
        holds.set(e.hold, hold);
        if (!openByHolder.has(e.holder)) openByHolder.set(e.holder, new Set());
        openByHolder.get(e.holder).add(hold);
        break;
      }
      case 'release': {
        const hold = holds.get(e.hold);
        if (!hold) { problems.push(`hold ${e.hold} released but never granted`); break; }
        if (hold.end !== Infinity) break;  // already ended (its holder was declared dead first)
        hold.end = e.seq;
        openByHolder.get(hold.holder).delete(hold);
        break;
      }
      case 'stolen': break;
      case 'note': break;   // context for a human reading the log (console lines, test actions)
      case 'dead':
        deadHolders.add(e.holder);
        for (const [holder, open] of openByHolder) {
          if (holder !== e.holder && !holder.startsWith(`${e.holder}/`)) continue;
          for (const hold of open) hold.end = e.seq;
          openByHolder.delete(holder);
        }
        break;
      default: problems.push(`unknown log entry ${JSON.stringify(e)}`);
    }
  }
  const byName = new Map();
  for (const hold of holds.values()) {
    if (stolen.has(hold.hold)) continue;
    if (!byName.has(hold.name)) byName.set(hold.name, []);
    byName.get(hold.name).push(hold);
  }
  let violations = 0;
  for (const [name, list] of byName) {
    list.sort((a, b) => a.start - b.start);
    // Steals cut the holds that started before them: a hold ends, at the latest, at the smallest
    // intent among the steals granted after it started (suffix minimum over steals in start order).
    const steals = list.filter((h) => h.steal);
    const suffixMinIntent = new Array(steals.length + 1).fill(Infinity);
    for (let i = steals.length - 1; i >= 0; i--) suffixMinIntent[i] = Math.min(steals[i].intent ?? Infinity, suffixMinIntent[i + 1]);
    for (const hold of list) {
      let lo = 0;
      let hi = steals.length;
      while (lo < hi) {   // the first steal that started after this hold
        const mid = (lo + hi) >> 1;
        if (steals[mid].start > hold.start) hi = mid; else lo = mid + 1;
      }
      if (lo < steals.length) hold.cut = suffixMinIntent[lo];
    }
    const effectiveEnd = (h) => Math.min(h.end, h.cut ?? Infinity);
    // Sweep in start order, keeping the holds still active.
    let active = [];
    for (const hold of list) {
      active = active.filter((h) => effectiveEnd(h) > hold.start);
      if (effectiveEnd(hold) <= hold.start) continue;   // cut by a steal before it was recorded
      for (const other of active) {
        if (hold.mode === 'exclusive' || other.mode === 'exclusive') {
          violations++;
          involved.add(hold.hold).add(other.hold);
          if (problems.length < 20) {
            problems.push(`name ${JSON.stringify(name)}: ${other.mode} hold ${other.hold} (${other.holder}, seq ${other.start}-${effectiveEnd(other)}) overlaps ${hold.mode} hold ${hold.hold} (${hold.holder}, from seq ${hold.start})`);
          }
        }
      }
      active.push(hold);
    }
  }
  const stillHeld = [...holds.values()].filter((h) => h.end === Infinity).map((h) => `${h.hold} (${h.holder}, ${JSON.stringify(h.name)})`);
  return { holds: holds.size, stolen: stolen.size, violations, stillHeld, problems, involved: [...involved] };
}
