// The JS mirror of include/weblocks/layout.h and the constants of include/weblocks/engine.h.
// attachEngine() checks the mirror against the module's wl_layout_value() before any use.

export const LAYOUT = Object.freeze({
  version: 2,
  engineHeaderSize: 16,
  clientHeaderSize: 8,
  doorbellOffset: 0,
  inboxCountOffset: 4,
  eventRecordSize: 16,
  eventIdOffset: 8,
  snapshotHeaderSize: 8,
  snapshotRecordSize: 12,
  mutexContended: 2,
  slotLimit: 16777216,
  stackPageMagic: 0x4b435453,
  stackPageBytes: 65536,
  snapshotPieceHeaderSize: 16,
  holderTagOffset: 12,
});

// wl_layout_key order (engine.h)
export const LAYOUT_KEYS = Object.freeze([
  'version', 'engineHeaderSize', 'clientHeaderSize', 'doorbellOffset', 'inboxCountOffset',
  'eventRecordSize', 'eventIdOffset', 'snapshotHeaderSize', 'snapshotRecordSize',
  'mutexContended', 'slotLimit', 'stackPageMagic', 'stackPageBytes', 'snapshotPieceHeaderSize',
  'holderTagOffset',
]);

// enum wl_error
export const ERROR_CODES = Object.freeze({
  [-1]: 'BUSY',
  [-2]: 'NO_MEMORY',
  [-3]: 'BAD_CLIENT',
  [-4]: 'BAD_ARGUMENT',
  [-5]: 'TOO_MANY',
  [-6]: 'BROKEN',
});
export const BUSY = -1;
export const NO_MEMORY = -2;

// Memory limits the modules were linked with (scripts/build-engine.sh).
export const WASM_PAGE = 65536;
export const MEMORY_INITIAL_PAGES = 4;
export const MEMORY_MAXIMUM_PAGES = 16384; // 1 GiB

// What each attached instance takes from memory.grow: its own stack page (its first 8 bytes name
// the instance's owner: layout.h wl_stack_page_header), and a scratch area that carries names in
// and snapshots and events out (grown on demand).
export const STACK_PAGES = 1;
export const SCRATCH_PAGES = 1;

// A caller that got BUSY waits on the mutex word in slices of this many ms; after each it asks the
// host whether the holder's owner is gone (attachEngine's ownerGone) and if so frees the mutex
// itself; else it gives up with EngineError('STUCK') after MUTEX_PATIENCE_MS: only an agent that
// died inside an engine call holds the mutex that long, and the host's closeClientsOfOwner() for
// it frees the engine.
export const MUTEX_WAIT_SLICE_MS = 20;
export const MUTEX_PATIENCE_MS = 2000;
