// The engine mutex: a futex word (layout.h: unlocked / locked / contended). Entry points never
// block: they try, spin briefly, then mark the word contended and report busy, so that a caller
// that may not block (a browser main thread) can wait with Atomics.waitAsync and call again.
#pragma once
#include <stdint.h>

#include "platform.h"
#include "weblocks/layout.h"

namespace wl {

inline bool try_lock_engine(uint32_t* word) {
  constexpr int kSpins = 64;
  for (int i = 0; i < kSpins; i++) {
    uint32_t expected = WL_MUTEX_UNLOCKED;
    if (__atomic_compare_exchange_n(word, &expected, WL_MUTEX_LOCKED, false, __ATOMIC_ACQUIRE,
                                    __ATOMIC_RELAXED))
      return true;
    if (expected == WL_MUTEX_CONTENDED) break;  // others already sleep: join them
  }
  // Ask the holder to wake us. If the word was unlocked meanwhile, it is ours (as contended).
  return __atomic_exchange_n(word, WL_MUTEX_CONTENDED, __ATOMIC_ACQUIRE) == WL_MUTEX_UNLOCKED;
}

inline void unlock_engine(uint32_t* word) {
  // Wake all: a woken waiter retries with compare-exchange (which may leave the word "locked"
  // rather than "contended"), so waking just one could strand the others.
  if (__atomic_exchange_n(word, WL_MUTEX_UNLOCKED, __ATOMIC_RELEASE) == WL_MUTEX_CONTENDED)
    platform_notify_all(word);
}

}  // namespace wl
