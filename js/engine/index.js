// The engine binding: loads the wasm lock engine, attaches instances to one (shared) memory, and
// exposes the spec's lock manager operations synchronously. The contract is in docs/engine.md.
// No Node API at top level: this file also runs in browsers (SharedWorker, window, worker).
// Over 400 lines: one Engine object per memory, whose scratch areas, views and mutex waits every
// operation shares; split, each part would reach into the others' private state.
import {
  LAYOUT, LAYOUT_KEYS, ERROR_CODES, BUSY, NO_MEMORY, WASM_PAGE, MEMORY_INITIAL_PAGES, MEMORY_MAXIMUM_PAGES,
  STACK_PAGES, SCRATCH_PAGES, MUTEX_WAIT_SLICE_MS, MUTEX_PATIENCE_MS,
} from './layout.js';
import { engineWasmUrl as servedWasmUrl } from './assets.js';
import { roundPages } from './region-pool.js';

export const MODE = Object.freeze({ exclusive: 0, shared: 1 });
export const WAIT = Object.freeze({ wait: 0, noWait: 1, preempt: 2 });
export const STATUS = Object.freeze({ granted: 1, queued: 2, notAvailable: 3, deadlock: 4 });
export const EVENT = Object.freeze({ granted: 1, stolen: 2, deadlock: 3 });
// enum wl_change_type (engine.h): the journal of observed changes
export const CHANGE_TYPES = Object.freeze([undefined, 'requested', 'granted', 'released', 'aborted', 'stolen', 'deadlock', 'lost']);
export const REQUEST_FLAGS = Object.freeze({ rejectDeadlock: 1 });
const JOURNAL_RECORD_BYTES = 20;
const CYCLE_MEMBER_BYTES = 16;

/** @type {('exclusive' | 'shared')[]} */
const MODE_NAMES = ['exclusive', 'shared'];
const OUT_BYTES = 16; // scratch [0, 16): out-parameters (a double, or an address)

export class EngineError extends Error {
  constructor(code, message) {
    super(message ?? `lock engine: ${code}`);
    this.name = 'EngineError';
    this.code = code; // 'NO_MEMORY' | 'BAD_CLIENT' | 'BAD_ARGUMENT' | 'TOO_MANY' | 'BROKEN' | 'STUCK' | 'LAYOUT_MISMATCH' | 'LOAD_FAILED'
  }
}

function fail(result) {
  throw new EngineError(ERROR_CODES[result] ?? `ERROR_${result}`);
}

// Node modules through process.getBuiltinModule, never import(): no bundler may try to put
// `node:` modules in a browser bundle (this file is in every browser build).
const nodeModule = (name) => globalThis.process?.getBuiltinModule?.(name);
// A variable, not a literal: bundlers would emit a hashed copy of the wasm for new URL('…', import.meta.url).
const PACKAGED_WASM_DIR = '../../build/dist/';

/** Where the engine's wasm is: next to the served hub (js/engine/assets.js), else the package's build/dist/. */
export function engineWasmUrl({ shared }) {
  const served = servedWasmUrl({ shared });
  if (served !== undefined) return new URL(served);
  return new URL(PACKAGED_WASM_DIR + (shared ? 'weblocks-engine-shared.wasm' : 'weblocks-engine.wasm'), import.meta.url);
}

async function loadBytes(url) {
  // NODE_ONLY: the browser bundles drop this block (scripts/browser-bundles.mjs, esbuild dropLabels).
  NODE_ONLY: {
    const fs = url.protocol === 'file:' ? nodeModule('node:fs/promises') : undefined;
    if (fs !== undefined) {
      try {
        return await fs.readFile(url);
      } catch (error) {
        if (error?.code !== 'ENOENT') throw error;
        throw new EngineError('LOAD_FAILED', `lock engine: ${url.pathname} is missing: this copy of weblocks-wasm was not built. Install the packed tarball (npm pack builds it) or run \`bash scripts/build.sh\` in a clone.`);
      }
    }
  }
  const response = await fetch(url);
  if (!response.ok) throw new EngineError('LOAD_FAILED', `lock engine: ${url} answered ${response.status}`);
  return response.arrayBuffer();
}

const compiled = new Map();

/**
 * Compiles (once per module kind and URL) the engine module. `url` overrides the default location.
 * @param {{ shared?: boolean, url?: string | URL }} [options]
 */
export function compileEngine({ shared, url } = {}) {
  // Relative URLs: against the page (in a classic bundle import.meta.url is empty).
  const location = url ? new URL(url, globalThis.location?.href ?? import.meta.url) : engineWasmUrl({ shared: !!shared });
  const key = location.href;
  if (!compiled.has(key)) {
    const promise = loadBytes(location).then((bytes) => WebAssembly.compile(bytes));
    promise.catch(() => compiled.delete(key));
    compiled.set(key, promise);
  }
  return compiled.get(key);
}

export function createEngineMemory({ shared }) {
  return new WebAssembly.Memory({
    initial: MEMORY_INITIAL_PAGES,
    maximum: MEMORY_MAXIMUM_PAGES,
    shared: !!shared,
  });
}

function checkLayout(exports) {
  LAYOUT_KEYS.forEach((name, key) => {
    const actual = exports.wl_layout_value(key) >>> 0;
    if (actual !== LAYOUT[name]) {
      throw new EngineError('LAYOUT_MISMATCH', `lock engine: layout ${name} is ${actual}, this binding expects ${LAYOUT[name]}`);
    }
  });
}

/**
 * Attaches a new instance to `memory` (its own stack); the first attach on a memory initializes it.
 * `ownerTag` names the agent (default: the Node threadId, else 0): if this agent dies inside an
 * engine call, closeClientsOfOwner(ownerTag) elsewhere takes the engine mutex over and undoes the
 * half-done call. `ownerGone(tag)`: true only when the agents of that owner can no longer run (the
 * host knows it from its platform, e.g. their thread is gone); a call waiting on a mutex held that
 * long by such an owner frees it at once (wl_free_mutex_of_dead_owner) instead of waiting for the
 * host to close that owner's clients.
 * @param {{ module: WebAssembly.Module, memory: WebAssembly.Memory, ownerTag?: number, regions?: any,
 *   ownerGone?: ((tag: number) => boolean) | null }} options
 */
export async function attachEngine({ module, memory, ownerTag, regions = null, ownerGone = null }) {
  const tag = ownerTag === undefined ? await defaultOwnerTag() : ownerTag >>> 0;
  const instance = await WebAssembly.instantiate(module, {
    env: { memory, emscripten_notify_memory_growth() {} },
  });
  return new Engine(instance.exports, memory, module, tag, regions, ownerGone);
}

async function defaultOwnerTag() {
  return (nodeModule('node:worker_threads')?.threadId ?? 0) >>> 0;
}

/** An engine on ordinary memory, serving one context alone. */
export async function createLocalEngine() {
  const module = await compileEngine({ shared: false });
  return attachEngine({ module, memory: createEngineMemory({ shared: false }), ownerTag: 0 });
}

// ignoreBOM: a name's leading U+FEFF is part of it. Made at first use: some test environments
// (jest's jsdom) have no TextDecoder, and the package must load there (the units are taken as they are).
let namesDecoder;

function decodeUnits(u16, start, length) {
  if (length === 0) return '';
  const CHUNK = 8192;
  if (length <= CHUNK) return String.fromCharCode.apply(null, u16.subarray(start, start + length));
  let text = '';
  for (let at = 0; at < length; at += CHUNK) {
    text += String.fromCharCode.apply(null, u16.subarray(start + at, start + Math.min(length, at + CHUNK)));
  }
  return text;
}

/**
 * @typedef {{ heldCount: number, names: string, lengths: number[], modes: ('exclusive' | 'shared')[], clientIds: string[] }} SnapshotColumns
 */

// Reads a snapshot (layout.h: wl_snapshot_header, then the records) of `size` bytes at byte `at`, as
// columns: no object per entry, and the names decoded in one go (one string, from their units
// gathered first) instead of one decode call each.
function parseSnapshot(u16, u32, at, size) {
  const heldCount = u32[at >> 2];
  const count = heldCount + u32[(at + 4) >> 2];
  at += LAYOUT.snapshotHeaderSize;
  // (Filled by push: packed arrays. One made by new Array(count) is holey, and a structured clone
  // writes a holey array as a sparse one, key by key: milliseconds for a thousand entries.)
  const lengths = [];
  const clientIds = [];
  const modes = /** @type {SnapshotColumns['modes']} */ ([]);
  const nameUnits = new Uint16Array(size >> 1); // (more than the names take)
  let filled = 0;
  // Runs of one client's entries are the rule (a tab holding many names): its clientId is decoded
  // once and reused while the next record's units are the same (decoding dominates the cost).
  let clientId = '';
  let clientIdAt = 0;
  let clientIdLength = -1;
  for (let i = 0; i < count; i++) {
    const nameLength = u32[at >> 2];
    const idLength = u32[(at + 8) >> 2];
    modes.push(MODE_NAMES[u32[(at + 4) >> 2]]);
    at += LAYOUT.snapshotRecordSize;
    for (let k = at >> 1, end = k + nameLength; k < end; k++) nameUnits[filled++] = u16[k];
    lengths.push(nameLength);
    at += nameLength * 2;
    const idAt = at >> 1;
    let same = idLength === clientIdLength;
    for (let k = 0; same && k < idLength; k++) same = u16[idAt + k] === u16[clientIdAt + k];
    if (!same) clientId = decodeUnits(u16, idAt, idLength);
    clientIdAt = idAt;
    clientIdLength = idLength;
    clientIds.push(clientId);
    at = (at + idLength * 2 + 3) & ~3;
  }
  // UTF-16LE decoding is the identity (and the faster way) but for lone surrogates, which it
  // replaces with U+FFFD: where that appears the units are taken as they are.
  namesDecoder ??= typeof TextDecoder === 'function' ? new TextDecoder('utf-16le', { ignoreBOM: true }) : null;
  let names = namesDecoder === null ? null : namesDecoder.decode(nameUnits.subarray(0, filled));
  if (names === null || names.includes('\uFFFD')) names = decodeUnits(nameUnits, 0, filled);
  return { heldCount, names, lengths, modes, clientIds };
}

// A deadlock cycle (layout.h: a count, then wl_cycle_member records) at byte `at`: its members
// in wait order, or null when it did not fit.
function parseCycle(u16, u32, at, count) {
  if (count === 0) return null;
  const cycle = [];
  for (let i = 0; i < count; i++) {
    const waitsMode = u32[at >> 2];
    const clientIdLength = u32[(at + 4) >> 2];
    const holdsLength = u32[(at + 8) >> 2];
    const waitsLength = u32[(at + 12) >> 2];
    at += CYCLE_MEMBER_BYTES;
    const clientId = decodeUnits(u16, at >> 1, clientIdLength);
    at += clientIdLength * 2;
    const holds = decodeUnits(u16, at >> 1, holdsLength);
    at += holdsLength * 2;
    const waitsFor = decodeUnits(u16, at >> 1, waitsLength);
    at += waitsLength * 2;
    at = (at + 3) & ~3;
    cycle.push({ clientId, holds, waitsFor, mode: MODE_NAMES[waitsMode] });
  }
  return cycle;
}

// Journal records (layout.h, wl_journal_record) in [at, end).
function parseJournal(u16, u32, at, end) {
  const records = [];
  while (at < end) {
    const bytes = u32[at >> 2];
    const type = CHANGE_TYPES[u32[(at + 4) >> 2]];
    const mode = u32[(at + 8) >> 2];
    const count = u32[(at + 12) >> 2];
    const clientIdLength = u32[(at + 16) >> 2];
    const body = at + JOURNAL_RECORD_BYTES;
    if (type === 'deadlock') {
      records.push({ type, rejected: (mode & 1) === 1, cycle: parseCycle(u16, u32, body, count) });
    } else if (type === 'lost') {
      records.push({ type });
    } else {
      const name = decodeUnits(u16, body >> 1, count);
      const clientId = decodeUnits(u16, (body >> 1) + count, clientIdLength);
      records.push({ type, name, mode: MODE_NAMES[mode], clientId });
    }
    at += bytes;
  }
  return records;
}

class Engine {
  // `regions`: a RegionPool (region-pool.js) shared by every agent of the memory, from which this
  // instance takes its stack page and scratch areas (and to which they go back), or null: grow
  // memory for them, never to be reused.
  constructor(exports, memory, module, ownerTag, regions = null, ownerGone = null) {
    this.memory = memory;
    this.module = module;
    // (In a page that is not cross-origin isolated the memory is shared but the global
    // SharedArrayBuffer constructor is hidden, so ask the buffer itself.)
    this.shared = Object.prototype.toString.call(memory.buffer) === '[object SharedArrayBuffer]';
    this._x = exports;
    checkLayout(exports);

    // This instance's own stack: every instance starts with the same __stack_pointer, so two
    // threads would otherwise push frames onto the same bytes.
    this.ownerTag = ownerTag;
    this._regions = regions;
    this._ownerGone = ownerGone;
    const base = this._takeRegion(STACK_PAGES + SCRATCH_PAGES);
    this._stackRegion = base;
    this._scratchRegion = null; // a scratch area of its own once the first one is outgrown
    this._refreshViews(); // a region reused from the pool may lie beyond this agent's views
    const stackPage = new Uint32Array(memory.buffer, base, 2); // wl_stack_page_header
    stackPage[0] = LAYOUT.stackPageMagic;
    stackPage[1] = ownerTag;
    exports.stackRestore(base + STACK_PAGES * WASM_PAGE);
    if (exports.wl_claim_initialization()) exports._initialize(); // static init: once per memory

    this._out = base + STACK_PAGES * WASM_PAGE;    // out-parameters
    this._data = this._out + OUT_BYTES;            // names in, snapshots and events out
    this._dataBytes = SCRATCH_PAGES * WASM_PAGE - OUT_BYTES;
    this._engine = exports.wl_engine_shared();
    this._mutexIndex = this._engine >> 2;
    this._clients = new Map(); // client handle -> { header address, owner tag }, for fast paths
    this._refreshViews();
    this._canBlock = this.shared && canBlock(this._i32);
  }

  // ---- memory views: stale after growth (detached for ordinary memory, short for shared) ----
  _refreshViews() {
    const buffer = this.memory.buffer;
    this._u8 = new Uint8Array(buffer);
    this._u16 = new Uint16Array(buffer);
    this._i32 = new Int32Array(buffer);
    this._u32 = new Uint32Array(buffer);
    this._f64 = new Float64Array(buffer);
  }

  _reach(end) {
    if (end > this._u8.length) this._refreshViews();
  }

  // `pages` pages of memory of this instance's own: from the region pool when there is one.
  _takeRegion(pages) {
    try {
      if (this._regions !== null) return this._regions.take(pages, this.ownerTag);
      return this.memory.grow(pages) * WASM_PAGE;
    } catch {
      throw new EngineError('NO_MEMORY');
    }
  }

  _ensureData(bytes) {
    if (bytes <= this._dataBytes) return;
    let pages = Math.ceil(bytes / WASM_PAGE);
    if (this._regions !== null) pages = roundPages(pages);
    const base = this._takeRegion(pages);
    // The outgrown scratch area goes back to the pool (without one, it is abandoned: it sits
    // between other instances' regions).
    if (this._scratchRegion !== null) this._regions?.give(this._scratchRegion, this.ownerTag);
    this._scratchRegion = base;
    // (The out-parameters stay in the page next to the stack: a name of 2^k bytes takes a
    // scratch area of 2^k bytes, not twice that.)
    this._data = base;
    this._dataBytes = pages * WASM_PAGE;
  }

  // Back to the scratch page next to the stack, giving a large scratch area back to the pool.
  _shrinkData() {
    if (this._scratchRegion === null || this._regions === null) return;
    this._regions.give(this._scratchRegion, this.ownerTag);
    this._scratchRegion = null;
    this._data = this._out + OUT_BYTES;
    this._dataBytes = SCRATCH_PAGES * WASM_PAGE - OUT_BYTES;
  }

  _writeString(text) {
    const length = text.length;
    if (length * 2 + OUT_BYTES <= SCRATCH_PAGES * WASM_PAGE) this._shrinkData();
    this._ensureData(length * 2);
    this._reach(this._data + length * 2);
    const u16 = this._u16;
    const at = this._data >> 1;
    for (let i = 0; i < length; i++) u16[at + i] = text.charCodeAt(i);
    return length;
  }

  // A name longer than the scratch page goes into a buffer in the engine's own memory (the
  // client's: wl_name_buffer), not into a scratch area of this instance's, so that its bytes and
  // the engine's copy come from one allocator, where freed neighbours merge. Returns its address.
  _writeNameBuffer(client, text) {
    const length = text.length;
    let result;
    let since = 0;
    while ((result = this._x.wl_name_buffer(this._engine, client, length, this._out)) === BUSY) since = this._waitForMutex(since);
    if (result < 0) fail(result);
    this._reach(this._out + 4);
    const at = this._u32[this._out >> 2];
    this._reach(at + length * 2);
    const u16 = this._u16;
    const base = at >> 1;
    for (let i = 0; i < length; i++) u16[base + i] = text.charCodeAt(i);
    return at;
  }

  // The request has read the name: free the buffer. (If that fails, STUCK say, the buffer stays
  // the client's until its next long name or its close: the request itself was answered.)
  _freeNameBuffer(client) {
    try {
      let since = 0;
      while (this._x.wl_name_buffer(this._engine, client, 0, this._out) === BUSY) since = this._waitForMutex(since);
    } catch {}
  }

  // WL_BUSY: another agent holds the engine mutex, normally for well under a microsecond.
  // Called in each call's retry loop with the time that call first waited (0 at first), so that
  // a mutex held by an agent that died inside a call (until its host closes that agent's
  // clients) ends in an error instead of a hang.
  _waitForMutex(since) {
    const now = performance.now();
    if (since === 0) since = now;
    else if (now - since >= MUTEX_WAIT_SLICE_MS && this._freeMutexOfDeadHolder()) return 0;
    else if (now - since > MUTEX_PATIENCE_MS) {
      throw new EngineError('STUCK', `lock engine: the engine mutex has been held for over ${MUTEX_PATIENCE_MS} ms (an agent died inside an engine call; closeClientsOfOwner() of its owner frees it)`);
    }
    if (this._canBlock) Atomics.wait(this._i32, this._mutexIndex, LAYOUT.mutexContended, MUTEX_WAIT_SLICE_MS);
    // else (a thread that may not block): retry at once; critical sections are short.
    return since;
  }

  // The mutex has been held for a wait slice: if the host can tell that its holder's thread is
  // gone, free it now (its half-done call undone; its clients stay for the host to close). True
  // when the mutex changed hands, so the caller retries with fresh patience.
  _freeMutexOfDeadHolder() {
    if (this._ownerGone === null) return false;
    const tag = this.mutexHolderTag();
    if (tag === 0 || tag === this.ownerTag || !this._ownerGone(tag)) return false;
    const result = this._x.wl_free_mutex_of_dead_owner(this._engine, tag);
    if (result < 0) fail(result);
    return true;
  }

  _readOutDouble() {
    this._reach(this._out + 8);
    return this._f64[this._out >> 3];
  }

  _headerOf(client) {
    const known = this._clients.get(client);
    if (known !== undefined) return known.header;
    let result;
    let since = 0;
    while ((result = this._x.wl_client_header_address(this._engine, client, this._out)) === BUSY) since = this._waitForMutex(since);
    if (result < 0) fail(result);
    this._reach(this._out + 4);
    return this._u32[this._out >> 2];
  }

  // ---- the contract ----

  openClient(clientId, ownerTag = 0) {
    const text = String(clientId);
    const length = this._writeString(text);
    let result;
    let since = 0;
    while ((result = this._x.wl_open_client(this._engine, this._data, length, ownerTag >>> 0, this._out)) === BUSY) since = this._waitForMutex(since);
    if (result < 0) fail(result);
    const client = this._readOutDouble();
    this._clients.set(client, { header: this._headerOf(client), ownerTag: ownerTag >>> 0 });
    return client;
  }

  closeClient(client) {
    let result;
    let since = 0;
    while ((result = this._x.wl_close_client(this._engine, client)) === BUSY) since = this._waitForMutex(since);
    this._clients.delete(client);
    if (result < 0) fail(result);
  }

  /** The owner tag of the agent holding the engine mutex now (0: free or untagged); a hint. */
  mutexHolderTag() {
    return Atomics.load(this._i32, (this._engine + LAYOUT.holderTagOffset) >> 2) >>> 0;
  }

  closeClientsOfOwner(ownerTag) {
    const tag = ownerTag >>> 0;
    let result;
    let since = 0;
    while ((result = this._x.wl_close_clients_of_owner(this._engine, tag)) === BUSY) since = this._waitForMutex(since);
    if (result < 0) fail(result);
    for (const [client, known] of this._clients) if (known.ownerTag === tag) this._clients.delete(client);
    return result;
  }

  /**
   * closeClientsOfOwner() in one attempt: null (nothing done) when the engine mutex is held by an
   * agent other than one of `ownerTag` (which it takes over), instead of waiting for it.
   */
  tryCloseClientsOfOwner(ownerTag) {
    const tag = ownerTag >>> 0;
    const result = this._x.wl_close_clients_of_owner(this._engine, tag);
    if (result === BUSY) return null;
    if (result < 0) fail(result);
    for (const [client, known] of this._clients) if (known.ownerTag === tag) this._clients.delete(client);
    return result;
  }

  /**
   * `under`: the id of the client's held lock inside whose callback the request is made (0: none);
   * `flags`: REQUEST_FLAGS. A wait that closes a certain deadlock answers `cycle` (its members),
   * and with rejectDeadlock the status `deadlock` (nothing queued).
   */
  request(client, name, mode, waitMode, under = 0, flags = 0) {
    const long = name.length * 2 + OUT_BYTES > SCRATCH_PAGES * WASM_PAGE;
    const at = long ? this._writeNameBuffer(client, name) : this._data;
    const length = long ? name.length : this._writeString(name);
    let result;
    let since = 0;
    let cycleAt = 0;
    if (under === 0 && flags === 0) {
      while ((result = this._x.wl_request(this._engine, client, at, length, mode, waitMode, this._out)) === BUSY) since = this._waitForMutex(since);
    } else {
      // The cycle, if any, is written after the name in the scratch area.
      cycleAt = long ? this._data : this._data + ((length * 2 + 3) & ~3);
      const room = this._data + this._dataBytes - cycleAt;
      this._reach(cycleAt + 4);
      this._u32[cycleAt >> 2] = 0xffffffff; // (no cycle unless the engine writes one)
      while ((result = this._x.wl_request_within(this._engine, client, at, length, mode, waitMode, under, flags, this._out, cycleAt, room)) === BUSY) since = this._waitForMutex(since);
    }
    const id = result === STATUS.granted || result === STATUS.queued ? this._readOutDouble() : 0;
    if (long) this._freeNameBuffer(client); // (after the id is read: it uses the same out-parameter)
    if (result < 0) fail(result);
    if (cycleAt !== 0) {
      this._reach(this._data + this._dataBytes);
      const count = this._u32[cycleAt >> 2];
      if (count !== 0xffffffff) return { status: result, id, cycle: parseCycle(this._u16, this._u32, cycleAt + 4, count) ?? [] };
    }
    return { status: result, id };
  }

  /** The certain deadlock the client's pending request `id` is in: its members, or null. */
  deadlockCycle(client, id) {
    let size;
    let since = 0;
    while ((size = this._x.wl_deadlock_cycle(this._engine, client, id, this._data, this._dataBytes)) === BUSY) since = this._waitForMutex(since);
    if (size < 0) fail(size);
    if (size === 0) return null;
    this._reach(this._data + size);
    return parseCycle(this._u16, this._u32, this._data + 4, this._u32[this._data >> 2]);
  }

  /**
   * Starts (+1) or stops (-1) observing: the journal records every change while observed.
   * Answers the position of the next record and { int32, index } of the word bumped after each.
   */
  observe(delta) {
    let result;
    let since = 0;
    while ((result = this._x.wl_observe(this._engine, delta, this._out)) === BUSY) since = this._waitForMutex(since);
    if (result < 0) fail(result);
    this._reach(this._out + 16);
    const position = this._f64[this._out >> 3];
    const word = this._f64[(this._out + 8) >> 3];
    return { position, int32: this._i32, index: word >> 2 };
  }

  /** The journal's records from `position` on: { records, position } (a `lost` record: resync). */
  readJournal(position) {
    const records = [];
    for (;;) {
      this._reach(this._out + 8);
      this._f64[this._out >> 3] = position;
      let bytes;
      let since = 0;
      while ((bytes = this._x.wl_read_journal(this._engine, this._out, this._data, this._dataBytes)) === BUSY) since = this._waitForMutex(since);
      if (bytes < 0) fail(bytes);
      position = this._readOutDouble();
      if (bytes === 0) return { records, position };
      this._reach(this._data + bytes);
      for (const record of parseJournal(this._u16, this._u32, this._data, this._data + bytes)) records.push(record);
    }
  }

  /** A current Int32Array view of memory that reaches the journal word at `index` (observe()). */
  journalView(index) {
    this._reach(index * 4 + 4);
    return this._i32;
  }

  release(client, id) {
    let result;
    let since = 0;
    while ((result = this._x.wl_release(this._engine, client, id)) === BUSY) since = this._waitForMutex(since);
    if (result < 0) fail(result);
    return result === 1;
  }

  abort(client, id) {
    let result;
    let since = 0;
    while ((result = this._x.wl_abort(this._engine, client, id)) === BUSY) since = this._waitForMutex(since);
    if (result < 0) fail(result);
    return result === 1;
  }

  takeEvents(client) {
    const known = this._clients.get(client);
    if (known !== undefined) {
      // Fast path: the inbox count is readable without the mutex (layout.h).
      this._reach(known.header + 8);
      if (Atomics.load(this._i32, (known.header + LAYOUT.inboxCountOffset) >> 2) === 0) return [];
    }
    const events = [];
    const capacity = Math.floor(this._dataBytes / LAYOUT.eventRecordSize);
    for (;;) {
      let count;
      let since = 0;
      while ((count = this._x.wl_take_events(this._engine, client, this._data, capacity)) === BUSY) since = this._waitForMutex(since);
      if (count < 0) fail(count);
      this._reach(this._data + count * LAYOUT.eventRecordSize);
      const u32 = this._u32;
      const f64 = this._f64;
      for (let i = 0, at = this._data; i < count; i++, at += LAYOUT.eventRecordSize) {
        events.push({ type: u32[at >> 2], id: f64[(at + LAYOUT.eventIdOffset) >> 3] });
      }
      if (count < capacity) return events;
    }
  }

  snapshot() {
    const { heldCount, names, lengths, modes, clientIds } = this.snapshotColumns();
    let at = 0;
    const infos = lengths.map((length, i) => ({ name: names.slice(at, (at += length)), mode: modes[i], clientId: clientIds[i] }));
    return { held: infos.slice(0, heldCount), pending: infos.slice(heldCount) };
  }

  /**
   * The snapshot as columns (for query() answers over a port, js/hub/snapshot-pieces.js): every
   * entry's name in one string (`names`, `lengths` units each), held entries first (`heldCount`),
   * their modes and their clientIds (one string per run of a client).
   * @returns {SnapshotColumns}
   */
  snapshotColumns() {
    let size;
    for (;;) {
      let since = 0;
      while ((size = this._x.wl_snapshot(this._engine, this._data, this._dataBytes)) === BUSY) since = this._waitForMutex(since);
      if (size < 0) fail(size);
      if (size <= this._dataBytes) break;
      // Larger than the scratch area: in the engine's own memory (which reuses what released
      // locks freed, even when memory cannot grow), else in a larger scratch area.
      const copy = this._snapshotInPieces();
      if (copy) return parseSnapshot(new Uint16Array(copy.buffer), new Uint32Array(copy.buffer), 0, copy.byteLength);
      this._ensureData(size);
    }
    this._reach(this._data + size);
    return parseSnapshot(this._u16, this._u32, this._data, size);
  }

  // The snapshot from wl_snapshot_pieces, copied out and the pieces given back; null on NO_MEMORY.
  _snapshotInPieces() {
    let size;
    let since = 0;
    while ((size = this._x.wl_snapshot_pieces(this._engine, this._out)) === BUSY) since = this._waitForMutex(since);
    if (size === NO_MEMORY) return null;
    if (size < 0) fail(size);
    this._reach(this._out + 4);
    const first = this._u32[this._out >> 2];
    const copy = new Uint8Array((size + 3) & ~3);
    let filled = 0;
    for (let piece = first; piece !== 0;) {
      this._reach(piece + LAYOUT.snapshotPieceHeaderSize);
      const bytes = this._u32[piece >> 2];
      const next = this._f64[(piece + 8) >> 3];
      const from = piece + LAYOUT.snapshotPieceHeaderSize;
      this._reach(from + bytes);
      copy.set(this._u8.subarray(from, from + bytes), filled);
      filled += bytes;
      piece = next;
    }
    since = 0;
    let code;
    while ((code = this._x.wl_free_snapshot(this._engine, first)) === BUSY) since = this._waitForMutex(since);
    if (code < 0) fail(code);
    return copy;
  }

  doorbell(client) {
    const header = this._headerOf(client);
    this._reach(header + LAYOUT.clientHeaderSize);
    return { int32: this._i32, index: (header + LAYOUT.doorbellOffset) >> 2 };
  }

  stats() {
    let result;
    let since = 0;
    while ((result = this._x.wl_get_stats(this._engine, this._data)) === BUSY) since = this._waitForMutex(since);
    if (result < 0) fail(result);
    this._reach(this._data + 32);
    const at = this._data;
    return {
      memoryBytes: this._f64[at >> 3],
      clients: this._u32[(at + 8) >> 2],
      entries: this._u32[(at + 12) >> 2],
      names: this._u32[(at + 16) >> 2],
      inUseBytes: this._f64[(at + 24) >> 3],
    };
  }

  /** Caps the bytes the engine may take from memory (0: only the memory's own maximum). */
  setMemoryLimit(bytes) {
    let result;
    let since = 0;
    while ((result = this._x.wl_set_memory_limit(this._engine, bytes)) === BUSY) since = this._waitForMutex(since);
    if (result < 0) fail(result);
  }
}

// Atomics.wait throws on threads that may not block (a browser window's main thread).
function canBlock(int32) {
  try {
    Atomics.wait(int32, 0, ~Atomics.load(int32, 0), 0); // value never matches: returns at once
    return true;
  } catch {
    return false;
  }
}

export { Engine };
