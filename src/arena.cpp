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

// The largest class whose blocks fit in `bytes` (at least class_bytes(0)).
unsigned largest_class_within(size_t bytes) {
  unsigned cls = 0;
  while (cls + 1 < Arena::kClasses && class_bytes(cls + 1) <= bytes) cls++;
  return cls;
}

FreeBlock*& spare_link(Arena* arena, FreeBlock* block) { return block->next[arena->link ^ 1]; }
uintptr_t address(const FreeBlock* block) { return reinterpret_cast<uintptr_t>(block); }

// The mark of a block freed by the current call, in its spare link: never a block's address (those
// are multiples of 16) nor null.
FreeBlock* freed_by_this_call(const Arena* arena) {
  return reinterpret_cast<FreeBlock*>(uintptr_t{arena->call_epoch} * 16 + 8);
}

// The first block of the list of `cls`, unless the current call freed it (then it and the blocks
// after it wait for the next call: the most recently freed come first).
FreeBlock* usable_head(Arena* arena, unsigned cls) {
  FreeBlock* block = arena->free_lists[cls];
  if (block && spare_link(arena, block) == freed_by_this_call(arena)) return nullptr;
  return block;
}

void push_free(Arena* arena, unsigned cls, void* block) {
  auto* free_block = static_cast<FreeBlock*>(block);
  put(free_block->next[arena->link], arena->free_lists[cls]);
  put(arena->free_lists[cls], free_block);
  // (A block of 64 KiB or more makes a merge due by itself: few such frees are worth a pass.)
  uint64_t weight = cls + Arena::kMinShift >= 16 ? Arena::kMergeAfterFrees : 1;
  // Not recorded: only a hint of when to merge, which a rollback may leave a little high.
  arena->freed_since_merge += static_cast<uint32_t>(weight);
}

// Takes the first block of a free list (usable_head must have found one). The caller overwrites the block:
// its link is recorded, so that a rollback finds the list as it was. (The other link matters to
// no rollback: merge passes are committed on their own, before a call's writes.)
FreeBlock* pop_free(Arena* arena, unsigned cls) {
  FreeBlock* block = arena->free_lists[cls];
  put(arena->free_lists[cls], block->next[arena->link]);
  undo_record(&block->next[arena->link]);
  return block;
}

// Hands the memory [at, end) to the free lists, largest blocks first.
void free_range(Arena* arena, unsigned char* at, unsigned char* end) {
  while (end - at >= static_cast<ptrdiff_t>(class_bytes(0))) {
    unsigned cls = largest_class_within(static_cast<size_t>(end - at));
    push_free(arena, cls, at);
    at += class_bytes(cls);
  }
}

// Hands the unused rest of the bump chunk to the free lists.
void retire_bump(Arena* arena) {
  free_range(arena, arena->bump, arena->bump_end);
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
  auto* chunk = static_cast<unsigned char*>(platform_obtain(&arena->platform_chunks, bytes));
  if (!chunk) return false;
  // (A rollback forgets the chunk: it stays obtained, unused.)
  put(arena->obtained_bytes, arena->obtained_bytes + static_cast<double>(bytes));
  if (chunk == arena->bump_end && arena->bump) {
    put(arena->bump_end, chunk + bytes);  // right after the newest chunk (wasm memory): one run
    return true;
  }
  retire_bump(arena);
  put(arena->bump, chunk);
  put(arena->bump_end, chunk + bytes);
  return true;
}

// ---- merging adjacent free blocks ----
// A pass (arena_merge_free_blocks) reads every free list, sorts each by address through the links the lists do not use
// (writes no live state: nothing to record), walks all of them in address order joining
// adjacent blocks into runs (with the rest of the newest chunk where it touches one), cuts each
// run into the largest blocks that fit, and builds the new lists, again through the
// unused links. Only then does it switch: the list heads, the link in use and the counts are
// recorded writes, so an agent that dies anywhere in the pass leaves the old lists as they were.
// A pass runs at the start of an engine call, before the call's own writes, and is committed on
// its own (c_api.cpp): once the switch is done nothing needs the old lists, whose links the
// blocks handed out later overwrite without records.


// Sorts the list starting at `head` (linked through the spare links) by address, in place, with
// no recursion and no memory: merge sort in passes of doubling run lengths.
FreeBlock* sort_by_address(Arena* arena, FreeBlock* head) {
  if (!head) return head;
  for (size_t width = 1;; width *= 2) {
    FreeBlock* remaining = head;
    FreeBlock* sorted_head = nullptr;
    FreeBlock* sorted_tail = nullptr;
    size_t merges = 0;
    while (remaining) {
      merges++;
      FreeBlock* left = remaining;
      size_t left_size = 0;
      FreeBlock* right = remaining;
      while (right && left_size < width) {
        right = spare_link(arena, right);
        left_size++;
      }
      size_t right_size = width;
      while (left_size > 0 || (right_size > 0 && right)) {
        FreeBlock* next;
        if (left_size == 0) {
          next = right;
          right = spare_link(arena, right);
          right_size--;
        } else if (right_size == 0 || !right || address(left) < address(right)) {
          next = left;
          left = spare_link(arena, left);
          left_size--;
        } else {
          next = right;
          right = spare_link(arena, right);
          right_size--;
        }
        if (sorted_tail) spare_link(arena, sorted_tail) = next;
        else sorted_head = next;
        sorted_tail = next;
      }
      remaining = right;
    }
    spare_link(arena, sorted_tail) = nullptr;
    head = sorted_head;
    if (merges <= 1) return head;
  }
}

struct MergedLists {
  FreeBlock* heads[Arena::kClasses];
  uint32_t blocks;
  unsigned char* bump;      // the newest chunk's unused rest, null once a run took it in
  unsigned char* bump_end;
};

// A run [start, end) of free memory, cut into the largest blocks that fit (spare links). A run
// that took in the rest of the newest chunk becomes that rest (the top of the arena, free, is
// one block again).
void add_run(Arena* arena, MergedLists* lists, unsigned char* start, unsigned char* end, bool with_rest) {
  if (with_rest) {
    lists->bump = start;
    lists->bump_end = end;
    return;
  }
  while (end - start >= static_cast<ptrdiff_t>(class_bytes(0))) {
    unsigned cls = largest_class_within(static_cast<size_t>(end - start));
    auto* block = reinterpret_cast<FreeBlock*>(start);
    spare_link(arena, block) = lists->heads[cls];
    lists->heads[cls] = block;
    lists->blocks++;
    start += class_bytes(cls);
  }
}

}  // namespace

void arena_merge_free_blocks(Arena* arena) {
  FreeBlock* sorted[Arena::kClasses];
  for (unsigned cls = 0; cls < Arena::kClasses; cls++) {
    FreeBlock* copy = nullptr;  // the list, copied into the spare links (reversed)
    for (FreeBlock* block = arena->free_lists[cls]; block; block = block->next[arena->link]) {
      spare_link(arena, block) = copy;
      copy = block;
    }
    sorted[cls] = sort_by_address(arena, copy);
  }
  MergedLists lists = {};
  lists.bump = arena->bump;
  lists.bump_end = arena->bump_end;
  // Every free block and the rest of the newest chunk, in address order, joined where adjacent.
  bool rest_left = arena->bump != arena->bump_end;
  unsigned char* run_start = nullptr;
  unsigned char* run_end = nullptr;
  bool run_with_rest = false;
  for (;;) {
    unsigned lowest = Arena::kClasses;  // the class whose next block has the lowest address
    for (unsigned cls = 0; cls < Arena::kClasses; cls++) {
      if (sorted[cls] && (lowest == Arena::kClasses || address(sorted[cls]) < address(sorted[lowest]))) lowest = cls;
    }
    unsigned char* start;
    unsigned char* end;
    bool is_rest = rest_left && (lowest == Arena::kClasses || arena->bump < reinterpret_cast<unsigned char*>(sorted[lowest]));
    if (is_rest) {
      start = arena->bump;
      end = arena->bump_end;
      rest_left = false;
    } else if (lowest == Arena::kClasses) {
      break;
    } else {
      FreeBlock* block = sorted[lowest];
      sorted[lowest] = spare_link(arena, block);  // read before add_run may overwrite it
      start = reinterpret_cast<unsigned char*>(block);
      end = start + class_bytes(lowest);
    }
    if (start != run_end) {
      if (run_start) add_run(arena, &lists, run_start, run_end, run_with_rest);
      run_start = start;
      run_with_rest = false;
    }
    run_end = end;
    run_with_rest |= is_rest;
  }
  if (run_start) add_run(arena, &lists, run_start, run_end, run_with_rest);
  // The switch: recorded writes only from here.
  put(arena->link, arena->link ^ 1);
  for (unsigned cls = 0; cls < Arena::kClasses; cls++) {
    if (arena->free_lists[cls] != lists.heads[cls]) put(arena->free_lists[cls], lists.heads[cls]);
  }
  put(arena->freed_since_merge, 0u);
  put(arena->blocks_after_merge, lists.blocks);
  put(arena->bump, lists.bump);
  put(arena->bump_end, lists.bump_end);
}


namespace {

void* from_lists_or_bump(Arena* arena, unsigned cls) {
  if (usable_head(arena, cls)) return pop_free(arena, cls);
  size_t want = class_bytes(cls);
  if (arena->bump_end - arena->bump < static_cast<ptrdiff_t>(want)) return nullptr;
  void* block = arena->bump;
  put(arena->bump, arena->bump + want);
  return block;
}

// Splits the smallest larger free block down to the wanted class.
void* split_larger(Arena* arena, unsigned cls) {
  for (unsigned larger = cls + 1; larger < Arena::kClasses; larger++) {
    if (!usable_head(arena, larger)) continue;
    unsigned char* base = reinterpret_cast<unsigned char*>(pop_free(arena, larger));
    while (larger > cls) {  // keep the lower half, free the upper half, one class down
      larger--;
      push_free(arena, larger, base + class_bytes(larger));
    }
    return base;
  }
  return nullptr;
}

}  // namespace

double arena_in_use_bytes(const Arena* arena) {
  double free_bytes = 0;
  for (unsigned cls = 0; cls < Arena::kClasses; cls++) {
    for (FreeBlock* block = arena->free_lists[cls]; block; block = block->next[arena->link]) {
      free_bytes += static_cast<double>(class_bytes(cls));
    }
  }
  return arena->obtained_bytes - free_bytes - static_cast<double>(arena->bump_end - arena->bump);
}

void* arena_alloc(Arena* arena, size_t bytes) {
  if (bytes == 0) bytes = 1;
  if (bytes > class_bytes(Arena::kClasses - 1)) return nullptr;
  unsigned cls = size_class(bytes);
  // A free block of the class, else the rest of the newest chunk (where a merge put the free top
  // of the arena), else a part of a larger free block (merged memory is in large blocks), and
  // only then more memory.
  if (void* block = from_lists_or_bump(arena, cls)) return block;
  if (void* block = split_larger(arena, cls)) return block;
  if (arena->may_ask_merge && arena->freed_since_merge > 0) {
    arena->want_merge = 1;  // merged, the freed blocks may hold it: fail, merge, try again
    return nullptr;
  }
  if (grow(arena, class_bytes(cls))) return from_lists_or_bump(arena, cls);
  return nullptr;
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
    if (usable_head(arena, cls)) {
      *bytes = class_bytes(cls);
      return pop_free(arena, cls);
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
  // Recorded: if the call is undone, the block holds state again (its second word included).
  put(spare_link(arena, static_cast<FreeBlock*>(block)), freed_by_this_call(arena));
}

}  // namespace wl
