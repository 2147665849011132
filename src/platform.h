// What the engine needs from the platform it runs on: memory in chunks, and waking waiters on a
// word. Two implementations: wasm/platform_wasm.cpp (memory.grow, memory.atomic.notify) and
// src/platform_native.cpp (C heap, futex).
#pragma once
#include <stddef.h>
#include <stdint.h>

namespace wl {

constexpr size_t kPlatformPage = 65536;

// Returns `bytes` (a multiple of kPlatformPage) of fresh memory, or nullptr if it cannot grow.
// `chunks` is the engine's per-platform bookkeeping (the native build frees the chunks with it).
void* platform_obtain(void** chunks, size_t bytes);
// Returns every chunk obtained through `chunks` (native only; wasm memory never shrinks).
void platform_release_all(void** chunks);
// Wakes every agent waiting on `word` (Atomics.wait / waitAsync, memory.atomic.wait32, futex).
void platform_notify_all(uint32_t* word);

// The owner tag of the calling agent: wasm reads its instance's stack page header (layout.h),
// native code a thread-local set with wl_set_thread_owner_tag().
uint32_t platform_current_owner_tag();

}  // namespace wl
