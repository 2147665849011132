// The engine mutex: entry points never block; a busy engine answers WL_BUSY with no effect.
#include <thread>

#include "../../src/mutex.h"
#include "test_support.h"

using namespace wltest;

TEST(EngineMutex, AnEntryPointReturnsBusyWithoutEffectWhileTheMutexIsHeld) {
  EngineHandle engine;
  double a = engine.open(u"a");
  auto* word = reinterpret_cast<uint32_t*>(engine.get());
  __atomic_store_n(word, WL_MUTEX_LOCKED, __ATOMIC_SEQ_CST);  // as if another thread held it
  double id = 0;
  const uint16_t name[] = {'n'};
  EXPECT_EQ(wl_request(engine.get(), a, name, 1, WL_EXCLUSIVE, WL_WAIT, &id), WL_BUSY);
  EXPECT_EQ(__atomic_load_n(word, __ATOMIC_SEQ_CST), static_cast<uint32_t>(WL_MUTEX_CONTENDED))
      << "a busy caller marks the mutex contended so the holder wakes it";
  __atomic_store_n(word, WL_MUTEX_UNLOCKED, __ATOMIC_SEQ_CST);
  EXPECT_EQ(engine.stats().entries, 0u);
  EXPECT_EQ(engine.request(a, u"n").status, WL_GRANTED);
}

TEST(EngineMutex, AWaiterSleepingOnTheContendedWordIsWokenByTheUnlock) {
  EngineHandle engine;
  double a = engine.open(u"a");
  auto* word = reinterpret_cast<uint32_t*>(engine.get());
  __atomic_store_n(word, WL_MUTEX_LOCKED, __ATOMIC_SEQ_CST);
  std::thread waiter([&] {
    RequestResult result = engine.request(a, u"n");  // busy, sleeps, retries
    EXPECT_EQ(result.status, WL_GRANTED);
  });
  while (__atomic_load_n(word, __ATOMIC_SEQ_CST) != WL_MUTEX_CONTENDED) std::this_thread::yield();
  wl::unlock_engine(word);  // the holder's unlock: contended -> wake every waiter
  waiter.join();
  EXPECT_EQ(engine.snapshot().held.size(), 1u);
}
