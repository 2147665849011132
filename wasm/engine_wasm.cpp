// The wasm module's one engine per memory, and its exports beyond the C ABI.
#include "../src/state.h"

namespace {
// Zero-initialized (in .bss): no static constructor, and a memory shared by many instances
// holds exactly one engine. Aligned for the atomic mutex word.
alignas(16) wl::Engine shared_engine;
// 0 until some instance claims the one-time initialization of this memory.
uint32_t initialization_claimed;
}  // namespace

extern "C" {

__attribute__((export_name("wl_engine_shared"))) wl_engine* wl_engine_shared(void) {
  return reinterpret_cast<wl_engine*>(&shared_engine);
}

__attribute__((export_name("wl_claim_initialization"))) uint32_t wl_claim_initialization(void) {
  uint32_t expected = 0;
  return __atomic_compare_exchange_n(&initialization_claimed, &expected, 1u, false, __ATOMIC_SEQ_CST,
                                     __ATOMIC_SEQ_CST) ? 1u : 0u;
}

}
