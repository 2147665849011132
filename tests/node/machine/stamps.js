// The external mutual-exclusion checker of the chaos test: reads the stamps that every critical
// section of every process appended to one file (fixtures/chaos-agent.mjs) and the harness's own
// lines (kills), in file order, which is the order in which they happened.
//   enter <name> <mode> <id> <steal|wait> <fencingToken>   leave <name> <id>   lost <id> <stolen|not-by-steal>
//   killed <pid> (the process, about to SIGKILL itself)   kill <pid> (the harness, about to)
//   hub-killed <pid>   unavailable <id>   aborted <id>   busy <id> <ms>   error <id> <text>
//   died <pid> <error> (its main thread's uncaught error: the process exits)
//   steal <name> <id> (a steal asked for, before its request)
//   thread-died <pid>.<threadId> <error> (a worker thread's uncaught error: that thread exits)
// An id is <pid>.<threadId>.<loop>.<n>. Two sections of one name overlap when one enters while
// the other is in, and either is exclusive: a violation. The spec allows one case: a stolen
// holder goes on running its callback (spec: "steal" rejects its promise, nothing stops it), so
// sections that ended stolen are left out, provided a steal of their name happened.
// A section may enter long after the hub granted it (its thread was busy in another callback
// invoked in the same turn), even after a steal took its lock: its holder then hears of the steal
// only when its thread next reads its socket, which a due timer that kills it may come before.
// The fencing tokens (the hub's grant order) tell that case: a section whose token is lower than
// a steal of its name already entered was that steal's victim; a grant of its name between its
// token and that steal's, of a mode that conflicts, was given while it held: a violation; and
// unless its process or thread ended, it must stamp its loss.
// A thief may die before its callback runs (no enter stamp): every steal is stamped as asked
// ("steal <name> <id>"), and a conflict between two sections of a name is explained by such a
// thief when its process died, it asked before the conflict, and a fencing token between the two
// sections' was never entered (its grant); the section with the lower token is then its victim.
// (Which name that token was for, only the hub knows: the chaos test checks the hubs' journals too,
// journal-check.js.)
// A process's sections end where it was killed; lines a killed process wrote after that are ignored
// (only its other threads, in the instant before the signal lands, can write any). A process or thread that
// died of an uncaught error is an error, and its sections end there too (its locks went on when
// its socket closed: the hub did right; what killed it is the bug to report).
/** Whether two sections of one name, in these modes, may not hold together. */
const conflict = (mode, other) => mode === 'exclusive' || other === 'exclusive';

/** The fencing token of the first steal granted after `fence` among `granted`, or Infinity. */
const firstStealAfter = (granted, fence) => Math.min(...granted.filter((g) => g.steal && g.fence > fence).map((g) => g.fence));

export function checkStamps(text) {
  const lines = text.split('\n').filter((line) => line.length > 0);
  const lost = new Map();
  const stolenNames = new Set(); // names a steal was asked for or entered on
  const enteredFences = new Set();
  const enteredIds = new Set();
  const ended = new Set(); // pids, and pid.threadId of threads, that died or were killed
  for (const line of lines) {
    const parts = line.split(' ');
    if (parts[0] === 'lost') lost.set(parts[1], parts[2]);
    if (parts[0] === 'enter') {
      enteredIds.add(parts[3]);
      if (parts[5] !== undefined) enteredFences.add(Number(parts[5]));
      if (parts[4] === 'steal') stolenNames.add(parts[1]);
    }
    if (parts[0] === 'steal') stolenNames.add(parts[1]); // (a thief may die before it enters)
    if (/^(killed|kill|died|thread-died)$/.test(parts[0])) ended.add(parts[1]);
  }
  const pidOf = (id) => id.split('.')[0];
  const threadOf = (id) => id.split('.').slice(0, 2).join('.');
  // Steals asked for on each name by a thread that died without entering: the lines that asked.
  const deadThieves = new Map();
  for (const [index, line] of lines.entries()) {
    const [kind, name, id] = line.split(' ');
    if (kind !== 'steal' || enteredIds.has(id) || !(ended.has(pidOf(id)) || ended.has(threadOf(id)))) continue;
    deadThieves.set(name, [...(deadThieves.get(name) ?? []), index]);
  }
  /** A thief that died before its callback ran, granted between fencing tokens low and high, asked before line `at`. */
  const deadThiefBetween = (name, low, high, at) => {
    if (!(low < high) || !(deadThieves.get(name) ?? []).some((asked) => asked < at)) return false;
    for (let fence = low + 1; fence < high; fence++) if (!enteredFences.has(fence)) return true;
    return false;
  };
  const counts = { sections: 0, exclusive: 0, shared: 0, steals: 0, stolen: 0, stolenByDeadThief: 0, notBySteal: 0, unavailable: 0, aborted: 0, busy: 0, processKills: 0, hubKills: 0 };
  const violations = [];
  const errors = [];
  const unexplainedLosses = [];
  const holders = new Map(); // name -> Map(id -> { mode, fence })
  const grants = new Map();  // name -> [{ fence, mode, id, steal }] of the sections entered so far
  const victims = new Map(); // name -> [{ fence, mode, id }]: sections a steal took before they ran
  const stolenUnheard = [];  // [id, line]: such victims, that must stamp their loss
  const dead = new Set();         // pids, and <pid>.<threadId> of threads that died
  for (const [index, line] of lines.entries()) {
    const parts = line.split(' ');
    const kind = parts[0];
    if (kind === 'died' || kind === 'thread-died') {
      if (dead.has(pidOf(parts[1])) || dead.has(parts[1])) continue;
      errors.push(line);
      dead.add(parts[1]);
      const ended = kind === 'died' ? pidOf : threadOf;
      for (const held of holders.values()) for (const id of held.keys()) if (ended(id) === parts[1]) held.delete(id);
      continue;
    }
    if (kind === 'killed' || kind === 'kill') {
      if (dead.has(parts[1])) continue;
      dead.add(parts[1]);
      counts.processKills++;
      for (const held of holders.values()) for (const id of held.keys()) if (pidOf(id) === parts[1]) held.delete(id);
      continue;
    }
    if (kind === 'hub-killed') { counts.hubKills++; continue; }
    if (kind === 'steal') continue; // (read above)
    const id = kind === 'enter' ? parts[3] : parts[kind === 'leave' ? 2 : 1];
    if (id === undefined || dead.has(pidOf(id)) || dead.has(threadOf(id))) continue;
    if (kind === 'enter') {
      const [, name, mode, , how, fenceText] = parts;
      counts.sections++;
      counts[mode]++;
      if (how === 'steal') {
        counts.steals++;
        holders.get(name)?.clear();
      }
      const fence = Number(fenceText ?? NaN);
      const granted = grants.get(name) ?? [];
      grants.set(name, granted);
      granted.push({ fence, mode, id, steal: how === 'steal' });
      const thief = firstStealAfter(granted, fence);
      if (thief !== Infinity) {
        // Granted before a steal that has entered already: that steal's victim, before it ran.
        // It held from its grant to that steal: so did every earlier victim whose steal came later.
        for (const g of granted) {
          if (g.fence > fence && g.fence < thief && conflict(mode, g.mode) && !deadThiefBetween(name, fence, g.fence, index)) {
            violations.push({ at: index, line, while: `${g.id} was granted it after it (fencing token ${g.fence}), before the steal that took it (${thief})` });
          }
        }
        const earlier = victims.get(name) ?? [];
        for (const v of earlier) {
          // (its thief: the first steal after its grant, among those entered by now)
          const until = firstStealAfter(granted, v.fence);
          if (v.fence < fence && until > fence && conflict(mode, v.mode) && !deadThiefBetween(name, v.fence, fence, index)) {
            violations.push({ at: index, line, while: `${v.id} held it (fencing token ${v.fence}) until a later steal (${until})` });
          }
        }
        earlier.push({ fence, mode, id });
        victims.set(name, earlier);
        counts.stolen++;
        if (lost.get(id) === undefined) stolenUnheard.push([id, line]);
        else if (lost.get(id) !== 'stolen') { counts.notBySteal++; unexplainedLosses.push(line); }
        continue;
      }
      const why = lost.get(id);
      if (why === 'stolen') {
        counts.stolen++;
        if (!stolenNames.has(name)) unexplainedLosses.push(line);
        continue;
      }
      if (why !== undefined) { counts.notBySteal++; unexplainedLosses.push(line); }
      const held = holders.get(name) ?? new Map();
      let victim = false;
      for (const [other, { mode: otherMode, fence: otherFence }] of held) {
        if (!conflict(mode, otherMode)) continue;
        if (deadThiefBetween(name, Math.min(fence, otherFence), Math.max(fence, otherFence), index)) {
          // The lower token's holder was the victim of a thief that died before its callback.
          if (otherFence < fence) { held.delete(other); if (lost.get(other) === undefined) stolenUnheard.push([other, `(${other}, stolen by a thief that died before its callback)`]); } else victim = true;
          counts.stolenByDeadThief++;
          continue;
        }
        violations.push({ at: index, line, while: `${other} held it ${otherMode}` });
      }
      if (victim) {
        if (lost.get(id) === undefined) stolenUnheard.push([id, line]);
        continue;
      }
      held.set(id, { mode, fence });
      holders.set(name, held);
    } else if (kind === 'leave') {
      holders.get(parts[1])?.delete(id);
    } else if (kind === 'unavailable') counts.unavailable++;
    else if (kind === 'aborted') counts.aborted++;
    else if (kind === 'busy') counts.busy++;
    else if (kind === 'error') errors.push(line);
  }
  for (const [id, line] of stolenUnheard) {
    if (!dead.has(pidOf(id)) && !dead.has(threadOf(id))) unexplainedLosses.push(`${line} (stolen before it ran, and never told)`);
  }
  return { counts, violations, errors, unexplainedLosses };
}
