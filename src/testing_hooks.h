// Native test builds only (WL_TESTING): simulates an agent that dies in the middle of an engine
// call, right before its n-th recorded write, by jumping out of the call (the mutex stays held
// and the state half-written, as when a thread is terminated inside wasm).
#pragma once
#include <setjmp.h>
#include <stddef.h>

namespace wl {

struct DeathSimulation {
  jmp_buf* jump;      // where the "dead" agent's stack ends
  long writes_left;   // die when this reaches zero
};

extern thread_local DeathSimulation death_simulation;

// Native chunks laid out one after another in one area, as memory.grow lays them out in wasm
// (platform_native.cpp); off while base is null.
struct ContiguousChunks {
  unsigned char* base;
  size_t size;
  size_t used;
};
extern ContiguousChunks testing_contiguous_chunks;

inline void testing_before_write() {
  if (death_simulation.jump && --death_simulation.writes_left == 0) {
    jmp_buf* jump = death_simulation.jump;
    death_simulation.jump = nullptr;
    longjmp(*jump, 1);
  }
}

}  // namespace wl
