// The engine's allocator: power-of-two size classes with free lists, fed by platform chunks.
// Not thread-safe: only called while holding the engine mutex. Sized free (the caller knows
// the size), so blocks carry no header. Adjacent free blocks are merged by a pass at the start of
// an engine call once enough was freed (arena_merge_free_blocks).
#pragma once
#include <stddef.h>
#include <stdint.h>

namespace wl {

// A free block's first bytes: two links, one used by the free lists (Arena::link), the other by a
// merge pass, which builds the merged lists in it beside the live ones and switches with one
// logged write (so an agent dying mid-pass leaves the live lists whole). Blocks are at least 16
// bytes, which holds both.
struct FreeBlock {
  FreeBlock* next[2];
};

struct Arena {
  static constexpr unsigned kMinShift = 4;   // 16-byte blocks at least
  static constexpr unsigned kClasses = 28;   // up to 2^31 bytes
  FreeBlock* free_lists[kClasses];
  unsigned char* bump;       // the unused rest of the newest chunk
  unsigned char* bump_end;
  double obtained_bytes;     // from the platform, in total
  double limit_bytes;        // 0 = no limit of our own
  void* platform_chunks;     // platform bookkeeping (native: chunk list)
  uint32_t freed_since_merge;  // blocks freed since the last merge pass (large ones count more)
  uint32_t blocks_after_merge; // blocks in the free lists right after the last merge pass
  // Not state (never recorded): set by an allocation that would have grown memory, or failed,
  // while blocks freed since the last merge pass might serve it once merged; the engine call
  // then merges and tries again, or the next call merges first (c_api.cpp).
  uint32_t want_merge;
  uint32_t may_ask_merge;  // this call may still ask for a merge (once per call)
  // Not state either: counts engine calls. A block the current call freed (arena_free) carries
  // it in its spare link and is not handed out again before the call ends: it held state from
  // before the call, which a rollback must find as it was, and a block handed out is overwritten
  // without undo records.
  uint32_t call_epoch;
  uint32_t link;             // which FreeBlock::next the free lists use (0 or 1)
  static constexpr uint32_t kMergeAfterFrees = 1024;
};

// Bytes obtained from the platform and not free (in use by the engine's state). Walks the free
// lists (for statistics, not for the hot path).
double arena_in_use_bytes(const Arena* arena);

// A new engine call begins (see Arena::call_epoch).
inline void arena_begin_call(Arena* arena) {
  arena->call_epoch++;
  arena->may_ask_merge = 1;
}

// Whether enough was freed since the last merge pass for another (at least kMergeAfterFrees
// blocks, and a quarter of the free blocks there may be now: a few steps of merging per freed
// block in all).
inline bool arena_merge_due(const Arena* arena) {
  uint64_t freed = arena->freed_since_merge;
  return freed >= Arena::kMergeAfterFrees && freed * 3 >= arena->blocks_after_merge;
}
// Merges adjacent free blocks, and free blocks next to the unused rest of the newest chunk into
// it. Only at the start of an engine call, committed before the call's own writes (arena.cpp).
void arena_merge_free_blocks(Arena* arena);

// Returns a block of at least `bytes` (> 0), 16-aligned, or nullptr when memory cannot grow.
void* arena_alloc(Arena* arena, size_t bytes);
// Takes the largest free block (from the free lists or the rest of the newest chunk) of at least
// min_bytes, without growing memory; nullptr if there is none. *bytes: its size, to free it with.
void* arena_take_largest(Arena* arena, size_t min_bytes, size_t* bytes);
// Returns a block obtained with arena_alloc(arena, bytes).
void arena_free(Arena* arena, void* block, size_t bytes);
// For a block obtained with arena_alloc(arena, bytes) that is never freed: gives the part of its
// size class beyond `bytes` back to the free lists (a slot table chunk of 256 records of 76 bytes
// would otherwise leave 13 KiB of its 32 KiB class unused for good).
void arena_keep_only(Arena* arena, void* block, size_t bytes);

template <class T>
T* arena_new_array(Arena* arena, size_t count) {
  return static_cast<T*>(arena_alloc(arena, sizeof(T) * count));
}
template <class T>
void arena_free_array(Arena* arena, T* array, size_t count) {
  arena_free(arena, array, sizeof(T) * count);
}

// Small copies without libc (the wasm build links no libc).
inline void copy_bytes(void* to, const void* from, size_t bytes) {
  auto* d = static_cast<unsigned char*>(to);
  auto* s = static_cast<const unsigned char*>(from);
  for (size_t i = 0; i < bytes; i++) d[i] = s[i];
}

}  // namespace wl
