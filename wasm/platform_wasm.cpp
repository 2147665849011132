// The wasm platform: chunks from memory.grow (never assumed contiguous: other instances grow the
// same memory for their stacks), wake-ups with memory.atomic.notify (shared build only).
#include "../src/platform.h"

#include "weblocks/layout.h"

namespace wl {

void* platform_obtain(void** /*chunks*/, size_t bytes) {
  size_t pages = bytes / kPlatformPage;
  size_t old_pages = __builtin_wasm_memory_grow(0, pages);
  if (old_pages == static_cast<size_t>(-1)) return nullptr;
  return reinterpret_cast<void*>(old_pages * kPlatformPage);
}

void platform_release_all(void** /*chunks*/) {}

void platform_notify_all(uint32_t* word) {
#ifdef __wasm_atomics__
  __builtin_wasm_memory_atomic_notify(reinterpret_cast<int*>(word), 0xffffffffu);
#else
  (void)word;  // ordinary memory: one agent only, nobody can be waiting
#endif
}

uint32_t platform_current_owner_tag() {
  // This instance's stack page holds its owner tag at its base; the frame is inside the page.
  volatile uint32_t marker = 0;
  uintptr_t page = reinterpret_cast<uintptr_t>(&marker) & ~uintptr_t{WL_STACK_PAGE_BYTES - 1};
  const auto* header = reinterpret_cast<const wl_stack_page_header*>(page);
  return header->magic == WL_STACK_PAGE_MAGIC ? header->owner_tag : 0;
}

}  // namespace wl
