// A chunked table of records with stable addresses. A record is named by slot + generation
// (a JS-safe integer: generation * 2^24 + slot), so a stale name never finds a reused record,
// and a slot whose generation would wrap is retired: names never repeat.
// T must have: uint32_t slot, generation, next_free; bool live.
#pragma once
#include <stdint.h>

#include "arena.h"
#include "undo.h"
#include "weblocks/layout.h"

namespace wl {

template <class T, unsigned kChunkShift = 8>
struct SlotTable {
  static constexpr uint32_t kChunkSize = 1u << kChunkShift;
  static constexpr uint32_t kMaxSlots = 1u << 24;

  T** chunks;
  uint32_t chunk_count;
  uint32_t chunk_capacity;
  uint32_t free_head;  // slot + 1; 0 = no free slot
  uint32_t live_count;

  T* at(uint32_t slot) { return &chunks[slot >> kChunkShift][slot & (kChunkSize - 1)]; }

  // Makes sure take() will succeed. Allocation only; no visible change. False: no memory.
  // *too_many: every one of the 2^24 slots is live or retired.
  bool reserve(Arena* arena, bool* too_many) {
    *too_many = false;
    if (free_head) return true;
    if ((chunk_count + 1) * uint64_t{kChunkSize} > kMaxSlots) {
      *too_many = true;
      return false;
    }
    if (chunk_count == chunk_capacity) {
      uint32_t capacity = chunk_capacity ? chunk_capacity * 2 : 8;
      T** grown = arena_new_array<T*>(arena, capacity);
      if (!grown) return false;
      for (uint32_t i = 0; i < chunk_count; i++) grown[i] = chunks[i];  // a fresh block
      if (chunk_capacity) arena_free_array(arena, chunks, chunk_capacity);
      put(chunks, grown);
      put(chunk_capacity, capacity);
    }
    T* chunk = arena_new_array<T>(arena, kChunkSize);
    if (!chunk) return false;
    arena_keep_only(arena, chunk, sizeof(T) * kChunkSize);  // chunks are never freed
    uint32_t first = chunk_count * kChunkSize;
    // The new records are a fresh block: written without undo records.
    uint32_t next_free = free_head;  // 0 here
    for (uint32_t i = kChunkSize; i-- > 0;) {
      T* record = &chunk[i];
      *record = T{};
      record->slot = first + i;
      record->generation = 1;
      record->live = false;
      record->next_free = next_free;
      next_free = first + i + 1;
    }
    put(chunks[chunk_count], chunk);
    put(chunk_count, chunk_count + 1);
    put(free_head, next_free);
    return true;
  }

  // Takes a free record (after a successful reserve()).
  T* take() {
    T* record = at(free_head - 1);
    put(free_head, record->next_free);
    put(record->next_free, 0u);
    put(record->live, true);
    put(live_count, live_count + 1);
    return record;
  }

  void give_back(T* record) {
    put(record->live, false);
    put(live_count, live_count - 1);
    if (record->generation >= WL_GENERATION_LIMIT) return;  // retired for good
    put(record->generation, record->generation + 1);
    put(record->next_free, free_head);
    put(free_head, record->slot + 1);
  }

  // The live record named by `name`, or nullptr.
  T* find(double name) {
    if (!(name >= WL_SLOT_LIMIT && name < 9007199254740992.0)) return nullptr;
    uint64_t value = static_cast<uint64_t>(name);
    if (static_cast<double>(value) != name) return nullptr;  // not an integer
    uint32_t slot = static_cast<uint32_t>(value & (kMaxSlots - 1));
    uint32_t generation = static_cast<uint32_t>(value >> 24);
    if (slot >= chunk_count * kChunkSize) return nullptr;
    T* record = at(slot);
    if (!record->live || record->generation != generation) return nullptr;
    return record;
  }

  static double name_of(const T* record) {
    return static_cast<double>((uint64_t{record->generation} << 24) | record->slot);
  }
};

}  // namespace wl
