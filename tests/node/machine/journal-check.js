// The chaos test's second oracle: a hub's own journal (js/machine/journal.js), read line by line in
// the order the hub decided. A grant ("g") of a name while a conflicting lock of it is held is a
// violation, unless the lines that follow it, before the next grant, remove every conflicting
// holder ("r"): a steal, which the hub records as the thief's grant, then its victims' ends.
// Independent of the stamps: it shows what the hub did, whatever its clients ran.
export function checkJournal(text) {
  const entries = text.split('\n').map((line) => {
    try { const entry = JSON.parse(line); return Array.isArray(entry) ? entry : null; } catch { return null; } // (a torn or zeroed line)
  });
  const clients = new Map(); // no -> clientId
  const held = new Map();    // name -> Map(no.token -> { mode, fence })
  const nameOf = new Map();  // no.token -> name
  const conflicts = [];
  let grants = 0;
  let steals = 0;
  let unjudged = 0; // conflicting grants at the very end of the copy
  for (const [n, entry] of entries.entries()) {
    if (entry === null) continue;
    const [kind, no] = entry;
    if (kind === 'c') clients.set(no, entry[2]);
    else if (kind === 'g') {
      const [, , token, fence, mode, name] = entry;
      grants++;
      const holders = held.get(name) ?? new Map();
      const conflicting = [...holders].filter(([, other]) => mode === 'exclusive' || other.mode === 'exclusive').map(([key]) => key);
      if (conflicting.length > 0) {
        const ended = new Set();
        let m = n + 1;
        for (; m < entries.length && entries[m] !== null && entries[m][0] !== 'g'; m++) {
          if (entries[m][0] === 'r') ended.add(`${entries[m][1]}.${entries[m][2]}`);
        }
        if (conflicting.every((key) => ended.has(key))) steals++;
        // The copy ends before the next grant (read while the hub was writing, or a hub killed
        // mid-turn): its victims' ends may be just beyond it, so this grant cannot be judged.
        else if (entries.slice(m).every((later) => later === null)) unjudged++;
        else conflicts.push(`${name} ${mode}, fencing token ${fence}, to ${clients.get(no)} (request ${token}) while ${conflicting.map((key) => `${key} held it ${holders.get(key).mode} (fencing token ${holders.get(key).fence})`).join(', ')}`);
      }
      holders.set(`${no}.${token}`, { mode, fence });
      held.set(name, holders);
      nameOf.set(`${no}.${token}`, name);
    } else if (kind === 'r') {
      const key = `${no}.${entry[2]}`;
      held.get(nameOf.get(key))?.delete(key);
    } else if (kind === 'x') {
      for (const holders of held.values()) for (const key of [...holders.keys()]) if (key.startsWith(`${no}.`)) holders.delete(key);
    }
  }
  return { grants, steals, unjudged, conflicts };
}
