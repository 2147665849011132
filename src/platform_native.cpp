// The native platform: chunks from the C heap (so tests can cap them), futex wake-ups.
#include "platform.h"

#include <linux/futex.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <climits>

#include "weblocks/engine.h"

#ifdef WL_TESTING
#include "testing_hooks.h"
#endif

namespace wl {

namespace {
// Each chunk is preceded by a header linking it to the previous one, for platform_release_all.
struct alignas(64) ChunkHeader {
  ChunkHeader* next;
};
static_assert(sizeof(ChunkHeader) == 64, "chunks stay 64-aligned");
}  // namespace

#ifdef WL_TESTING
ContiguousChunks testing_contiguous_chunks;
#endif

void* platform_obtain(void** chunks, size_t bytes) {
#ifdef WL_TESTING
  // Like wasm memory: each chunk right after the last one (chunks are never freed in this mode).
  ContiguousChunks& area = testing_contiguous_chunks;
  if (area.base) {
    if (area.used + bytes > area.size) return nullptr;
    void* chunk = area.base + area.used;
    area.used += bytes;
    return chunk;
  }
#endif
  auto* header = static_cast<ChunkHeader*>(aligned_alloc(64, sizeof(ChunkHeader) + bytes));
  if (!header) return nullptr;
  header->next = static_cast<ChunkHeader*>(*chunks);
  *chunks = header;
  return header + 1;
}

void platform_release_all(void** chunks) {
  auto* header = static_cast<ChunkHeader*>(*chunks);
  while (header) {
    ChunkHeader* next = header->next;
    free(header);
    header = next;
  }
  *chunks = nullptr;
}

namespace {
thread_local uint32_t thread_owner_tag;
}  // namespace

uint32_t platform_current_owner_tag() { return thread_owner_tag; }

void platform_notify_all(uint32_t* word) {
  syscall(SYS_futex, word, FUTEX_WAKE, INT_MAX, nullptr, nullptr, 0);
}

}  // namespace wl

extern "C" void wl_set_thread_owner_tag(uint32_t owner_tag) { wl::thread_owner_tag = owner_tag; }

extern "C" void wl_wait_for_mutex(wl_engine* engine) {
  // The engine address is its mutex word (layout.h). Sleep only while it is still "contended".
  auto* word = reinterpret_cast<uint32_t*>(engine);
  if (__atomic_load_n(word, __ATOMIC_SEQ_CST) == WL_MUTEX_CONTENDED)
    syscall(SYS_futex, word, FUTEX_WAIT, WL_MUTEX_CONTENDED, nullptr, nullptr, 0);
}

extern "C" void wl_wait_for_doorbell(const wl_client_header* header, uint32_t seen) {
  const uint32_t* word = &header->doorbell;
  if (__atomic_load_n(word, __ATOMIC_SEQ_CST) == seen)
    syscall(SYS_futex, word, FUTEX_WAIT, seen, nullptr, nullptr, 0);
}
