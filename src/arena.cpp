#include "arena.h"

#include "platform.h"
#include "undo.h"

namespace wl {

namespace {

constexpr size_t kMinChunk = 4 * kPlatformPage;

unsigned size_class(size_t bytes) {
  unsigned shift = Arena::kMinShift;
  while ((size_t{1} << shift) < bytes) shift++;
  return shift - Arena::kMinShift;
}

size_t class_bytes(unsigned cls) { return size_t{1} << (cls + Arena::kMinShift); }

void push_free(Arena* arena, unsigned cls, void* block) {
  auto* free_block = static_cast<FreeBlock*>(block);
  put(free_block->next, arena->free_lists[cls]);
  put(arena->free_lists[cls], free_block);
}

// Hands the unused rest of the bump chunk to the free lists, largest blocks first.
void retire_bump(Arena* arena) {
  while (arena->bump_end - arena->bump >= static_cast<ptrdiff_t>(class_bytes(0))) {
    size_t left = static_cast<size_t>(arena->bump_end - arena->bump);
    unsigned cls = 0;
    while (cls + 1 < Arena::kClasses && class_bytes(cls + 1) <= left) cls++;
    push_free(arena, cls, arena->bump);
    put(arena->bump, arena->bump + class_bytes(cls));
  }
  put(arena->bump, static_cast<unsigned char*>(nullptr));
  put(arena->bump_end, static_cast<unsigned char*>(nullptr));
}

bool grow(Arena* arena, size_t at_least) {
  size_t bytes = at_least < kMinChunk ? kMinChunk : at_least;
  bytes = (bytes + kPlatformPage - 1) / kPlatformPage * kPlatformPage;
  if (arena->limit_bytes > 0 && arena->obtained_bytes + static_cast<double>(bytes) > arena->limit_bytes) {
    // Within our own limit, take just what is needed rather than a whole chunk.
    bytes = (at_least + kPlatformPage - 1) / kPlatformPage * kPlatformPage;
    if (arena->obtained_bytes + static_cast<double>(bytes) > arena->limit_bytes) return false;
  }
  void* chunk = platform_obtain(&arena->platform_chunks, bytes);
  if (!chunk) return false;
  // (A rollback forgets the chunk: it stays obtained, unused.)
  put(arena->obtained_bytes, arena->obtained_bytes + static_cast<double>(bytes));
  retire_bump(arena);
  put(arena->bump, static_cast<unsigned char*>(chunk));
  put(arena->bump_end, static_cast<unsigned char*>(chunk) + bytes);
  return true;
}

// When memory cannot grow: split a larger free block down to the wanted class.
void* split_larger(Arena* arena, unsigned cls) {
  for (unsigned larger = cls + 1; larger < Arena::kClasses; larger++) {
    FreeBlock* block = arena->free_lists[larger];
    if (!block) continue;
    put(arena->free_lists[larger], block->next);
    undo_record(&block->next);  // the caller overwrites the link
    unsigned char* base = reinterpret_cast<unsigned char*>(block);
    while (larger > cls) {  // keep the lower half, free the upper half, one class down
      larger--;
      push_free(arena, larger, base + class_bytes(larger));
    }
    return base;
  }
  return nullptr;
}

}  // namespace

void* arena_alloc(Arena* arena, size_t bytes) {
  if (bytes == 0) bytes = 1;
  if (bytes > class_bytes(Arena::kClasses - 1)) return nullptr;
  unsigned cls = size_class(bytes);
  if (FreeBlock* block = arena->free_lists[cls]) {
    put(arena->free_lists[cls], block->next);
    undo_record(&block->next);  // the caller overwrites the link
    return block;
  }
  size_t want = class_bytes(cls);
  if (arena->bump_end - arena->bump < static_cast<ptrdiff_t>(want) && !grow(arena, want)) {
    return split_larger(arena, cls);
  }
  void* block = arena->bump;
  put(arena->bump, arena->bump + want);
  return block;
}

void* arena_take_largest(Arena* arena, size_t min_bytes, size_t* bytes) {
  unsigned min_cls = size_class(min_bytes);
  size_t left = static_cast<size_t>(arena->bump_end - arena->bump);
  for (unsigned cls = Arena::kClasses; cls-- > min_cls;) {
    if (class_bytes(cls) <= left) {  // the newest chunk's rest is at least as large
      void* block = arena->bump;
      put(arena->bump, arena->bump + class_bytes(cls));
      *bytes = class_bytes(cls);
      return block;
    }
    if (FreeBlock* block = arena->free_lists[cls]) {
      put(arena->free_lists[cls], block->next);
      undo_record(&block->next);  // the caller overwrites the link
      *bytes = class_bytes(cls);
      return block;
    }
  }
  return nullptr;
}

void arena_keep_only(Arena* arena, void* block, size_t bytes) {
  if (bytes == 0) bytes = 1;
  size_t used = (bytes + class_bytes(0) - 1) / class_bytes(0) * class_bytes(0);
  size_t rest = class_bytes(size_class(bytes)) - used;  // a multiple of 16
  unsigned char* at = static_cast<unsigned char*>(block) + used;
  for (unsigned cls = Arena::kClasses; cls-- > 0;) {
    if (rest & class_bytes(cls)) {
      push_free(arena, cls, at);
      at += class_bytes(cls);
    }
  }
}

void arena_free(Arena* arena, void* block, size_t bytes) {
  if (!block) return;
  if (bytes == 0) bytes = 1;
  push_free(arena, size_class(bytes), block);
}

}  // namespace wl
