// A hold log in a SharedArrayBuffer, appended to by many threads: slot 0 is the sequence counter,
// each entry is ENTRY int32 words. Entries are written after their sequence number is taken, and
// read only once every writer has stopped.
const TYPES = ['', 'grant', 'release', 'stealIntent', 'dead', 'stolen'];
const MODES = ['exclusive', 'shared'];
const ENTRY = 6;

export function createLogBuffer(capacity) {
  return new SharedArrayBuffer((1 + capacity * ENTRY) * 4);
}

export class SharedHoldLog {
  constructor(buffer) {
    this.words = new Int32Array(buffer);
    this.capacity = (this.words.length - 1) / ENTRY;
  }
  append(type, hold, holder, nameIndex = 0, mode = 'exclusive', steal = false) {
    const seq = Atomics.add(this.words, 0, 1);
    if (seq >= this.capacity) return false;
    const base = 1 + seq * ENTRY;
    this.words[base + 1] = hold;
    this.words[base + 2] = holder;
    this.words[base + 3] = nameIndex;
    this.words[base + 4] = MODES.indexOf(mode);
    this.words[base + 5] = steal ? 1 : 0;
    Atomics.store(this.words, base, TYPES.indexOf(type));
    return true;
  }
  // -> entries for checkHolds (hold and holder ids as strings); entries whose writer died half-way are dropped.
  read(names) {
    const count = Math.min(Atomics.load(this.words, 0), this.capacity);
    const entries = [];
    for (let seq = 0; seq < count; seq++) {
      const base = 1 + seq * ENTRY;
      const type = TYPES[Atomics.load(this.words, base)];
      if (!type) continue;
      entries.push({
        seq, type, hold: `h${this.words[base + 1]}`, holder: `t${this.words[base + 2]}`,
        name: names[this.words[base + 3]], mode: MODES[this.words[base + 4]], steal: this.words[base + 5] === 1,
      });
    }
    return { entries, overflowed: Atomics.load(this.words, 0) > this.capacity };
  }
}
