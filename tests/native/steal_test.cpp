// Spec 4.1 step 2.4: steal (wait mode preempt).
#include "test_support.h"

using namespace wltest;

TEST(Steal, StealingReleasesEveryHolderOfTheNameAndTellsEachOne) {
  EngineHandle engine;
  double a = engine.open(u"a"), b = engine.open(u"b"), c = engine.open(u"c");
  RequestResult held_a = engine.request(a, u"n", WL_SHARED);
  RequestResult held_b = engine.request(b, u"n", WL_SHARED);
  RequestResult other_name = engine.request(a, u"other");
  RequestResult steal = engine.request(c, u"n", WL_EXCLUSIVE, WL_PREEMPT);
  EXPECT_EQ(steal.status, WL_GRANTED);
  EXPECT_EQ(engine.events(a), (std::vector<Event>{{WL_EVENT_STOLEN, held_a.id}}));
  EXPECT_EQ(engine.events(b), (std::vector<Event>{{WL_EVENT_STOLEN, held_b.id}}));
  EXPECT_EQ(engine.release(a, held_a.id), 0) << "a stolen lock is no longer held";
  Snapshot snapshot = engine.snapshot();
  ASSERT_EQ(snapshot.held.size(), 2u);
  EXPECT_EQ(snapshot.held[0], (LockInfo{u"other", WL_EXCLUSIVE, u"a"})) << "other names are untouched";
  EXPECT_EQ(snapshot.held[1], (LockInfo{u"n", WL_EXCLUSIVE, u"c"}));
  (void)other_name;
}

TEST(Steal, AStealPreemptsQueuedRequestsWhichStayQueuedInOrder) {
  // Step 2.4.2: the request is prepended to the queue, so it goes before the waiting ones.
  EngineHandle engine;
  double a = engine.open(u"a"), b = engine.open(u"b"), c = engine.open(u"c");
  RequestResult held = engine.request(a, u"n");
  RequestResult waiting = engine.request(b, u"n");
  RequestResult steal = engine.request(c, u"n", WL_EXCLUSIVE, WL_PREEMPT);
  EXPECT_EQ(steal.status, WL_GRANTED);
  EXPECT_TRUE(engine.events(b).empty());
  EXPECT_EQ(engine.events(a), (std::vector<Event>{{WL_EVENT_STOLEN, held.id}}));
  EXPECT_EQ(engine.release(c, steal.id), 1);
  EXPECT_EQ(engine.events(b), (std::vector<Event>{{WL_EVENT_GRANTED, waiting.id}}));
}

TEST(Steal, StealingAFreeNameIsASimpleGrant) {
  EngineHandle engine;
  double a = engine.open(u"a");
  EXPECT_EQ(engine.request(a, u"n", WL_EXCLUSIVE, WL_PREEMPT).status, WL_GRANTED);
  EXPECT_TRUE(engine.events(a).empty());
}

TEST(Steal, AClientMayStealFromItself) {
  EngineHandle engine;
  double a = engine.open(u"a");
  RequestResult held = engine.request(a, u"n");
  RequestResult steal = engine.request(a, u"n", WL_EXCLUSIVE, WL_PREEMPT);
  EXPECT_EQ(steal.status, WL_GRANTED);
  EXPECT_EQ(engine.events(a), (std::vector<Event>{{WL_EVENT_STOLEN, held.id}}));
}

TEST(Steal, TheStolenHoldersDoorbellIsRung) {
  EngineHandle engine;
  double a = engine.open(u"a"), b = engine.open(u"b");
  engine.request(a, u"n");
  const wl_client_header* header = engine.header(a);
  uint32_t before = __atomic_load_n(&header->doorbell, __ATOMIC_SEQ_CST);
  engine.request(b, u"n", WL_EXCLUSIVE, WL_PREEMPT);
  EXPECT_EQ(__atomic_load_n(&header->doorbell, __ATOMIC_SEQ_CST), before + 1);
  EXPECT_EQ(__atomic_load_n(&header->inbox_count, __ATOMIC_SEQ_CST), 1u);
}
