// Reuse of the memory each attached instance takes for itself (its stack page and scratch areas).
// wasm memory never shrinks, so a region of an instance whose agent is gone, or a scratch area
// an instance outgrew, goes back to this pool and the next instance of the same size takes it
// instead of growing memory. Sizes are powers of two pages, so a sequence of ever larger
// scratch areas costs at most twice the largest.
//
// The pool is a table in a SharedArrayBuffer, shared by every agent of one memory, changed only
// with single compare-exchanges on a record's owner word (no lock an agent could die holding):
//   [base page, pages, owner]: owner 0 = free, else the owner tag + 1 of the instance using it.
// A record with pages 0 is empty. An agent that dies between taking an empty record and filling
// it leaves it owned by its tag with 0 pages: releaseOwner() makes it empty again.
import { WASM_PAGE } from './layout.js';

const BASE = 0;
const PAGES = 1;
const OWNER = 2;
const WORDS = 3;
export const REGION_SLOTS = 16384;
export const REGION_TABLE_BYTES = REGION_SLOTS * WORDS * 4;

export function roundPages(pages) {
  let rounded = 1;
  while (rounded < pages) rounded *= 2;
  return rounded;
}

export class RegionPool {
  constructor(tableBuffer, memory) {
    this.table = new Int32Array(tableBuffer);
    this.memory = memory;
    this.full = false; // every record taken: regions made from now on are not recorded (not reused)
  }

  /** A region of `pages` pages (a power of two) for the instance of `ownerTag`; returns its byte address. */
  take(pages, ownerTag) {
    const table = this.table;
    const owner = (ownerTag >>> 0) + 1;
    // Records are filled in slot order (below: the first empty one), so the scan for a free region
    // stops at the first empty record: past it are only the regions filled after a hole that a dead
    // filler left (releaseOwner), which the next region made fills. The table is read plainly (a
    // hint: the compare-exchange on the owner word decides). Both: this runs in a thread's first
    // moments, in the interpreter, where an Atomics.load per word of all 16,384 records took
    // milliseconds of every worker's start.
    for (let slot = 0; slot < REGION_SLOTS; slot++) {
      const at = slot * WORDS;
      const size = table[at + PAGES];
      if (size !== pages || table[at + OWNER] !== 0) {
        if (size === 0 && table[at + OWNER] === 0) break;
        continue;
      }
      if (Atomics.compareExchange(table, at + OWNER, 0, owner) === 0) return Atomics.load(table, at + BASE) * WASM_PAGE;
    }
    const base = this.memory.grow(pages); // throws RangeError when memory is at its maximum
    for (let slot = 0; slot < REGION_SLOTS; slot++) {
      const at = slot * WORDS;
      if (table[at + PAGES] !== 0 || table[at + OWNER] !== 0) continue;
      if (Atomics.compareExchange(table, at + OWNER, 0, owner) !== 0) continue;
      if (Atomics.load(table, at + PAGES) !== 0) { // filled by someone else meanwhile and freed: not ours to fill
        Atomics.store(table, at + OWNER, 0);
        continue;
      }
      Atomics.store(table, at + BASE, base);
      Atomics.store(table, at + PAGES, pages);
      return base * WASM_PAGE;
    }
    this.full = true;
    return base * WASM_PAGE;
  }

  /** The instance of `ownerTag` no longer uses the region at `address` (from take()). */
  give(address, ownerTag) {
    const table = this.table;
    const owner = (ownerTag >>> 0) + 1;
    const page = address / WASM_PAGE;
    for (let slot = 0; slot < REGION_SLOTS; slot++) {
      const at = slot * WORDS;
      if (Atomics.load(table, at + BASE) === page && Atomics.load(table, at + PAGES) !== 0 && Atomics.compareExchange(table, at + OWNER, owner, 0) === owner) return;
    }
  }

  /**
   * Every region of the instances of `ownerTag` goes back to the pool. Only for an owner that can
   * no longer run (its stacks would be reused under it). Returns the pages given back.
   */
  releaseOwner(ownerTag) {
    const table = this.table;
    const owner = (ownerTag >>> 0) + 1;
    let pages = 0;
    for (let slot = 0; slot < REGION_SLOTS; slot++) {
      const at = slot * WORDS;
      if (Atomics.load(table, at + OWNER) !== owner) continue;
      pages += Atomics.load(table, at + PAGES);
      Atomics.compareExchange(table, at + OWNER, owner, 0);
    }
    return pages;
  }

  /** Pages recorded in the pool: { inUse, free }. */
  usage() {
    const table = this.table;
    let inUse = 0;
    let free = 0;
    for (let slot = 0; slot < REGION_SLOTS; slot++) {
      const at = slot * WORDS;
      const pages = Atomics.load(table, at + PAGES);
      if (pages === 0) continue;
      if (Atomics.load(table, at + OWNER) === 0) free += pages; else inUse += pages;
    }
    return { inUse, free };
  }
}
