// The engine's allocator: power-of-two size classes with free lists, fed by platform chunks.
// Not thread-safe: only called while holding the engine mutex. Sized free (the caller knows
// the size), so blocks carry no header.
#pragma once
#include <stddef.h>
#include <stdint.h>

namespace wl {

struct FreeBlock {
  FreeBlock* next;
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
};

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
