// Native engines: each on the C heap, its chunks freed with it (tests make many).
#include <stdlib.h>

#include "platform.h"
#include "state.h"

extern "C" wl_engine* wl_engine_create(void) {
  void* memory = aligned_alloc(64, (sizeof(wl::Engine) + 63) / 64 * 64);
  if (!memory) return nullptr;
  auto* engine = static_cast<wl::Engine*>(memory);
  *engine = wl::Engine{};  // all zero: an empty engine (initialized on first use)
  return reinterpret_cast<wl_engine*>(engine);
}

extern "C" void wl_engine_destroy(wl_engine* handle) {
  if (!handle) return;
  auto* engine = reinterpret_cast<wl::Engine*>(handle);
  wl::platform_release_all(&engine->arena.platform_chunks);
  wl::platform_release_all(&engine->undo.platform_chunks);
  free(engine);
}
