// Spec 2.6: when an agent terminates (closing a client), and owner tags.
#include "test_support.h"

using namespace wltest;

TEST(AgentTermination, ClosingAHolderReleasesItsLocksAndGrantsTheWaiters) {
  EngineHandle engine;
  double a = engine.open(u"a"), b = engine.open(u"b");
  engine.request(a, u"x");
  engine.request(a, u"y", WL_SHARED);
  RequestResult waits_x = engine.request(b, u"x");
  RequestResult waits_y = engine.request(b, u"y");
  EXPECT_EQ(engine.close(a), 0);
  EXPECT_EQ(engine.events(b), (std::vector<Event>{{WL_EVENT_GRANTED, waits_x.id}, {WL_EVENT_GRANTED, waits_y.id}}));
  EXPECT_EQ(engine.snapshot().held.size(), 2u);
}

TEST(AgentTermination, ClosingAWaiterDropsItsRequestsSoTheyAreNeverGranted) {
  EngineHandle engine;
  double a = engine.open(u"a"), b = engine.open(u"b"), c = engine.open(u"c");
  RequestResult held = engine.request(a, u"n");
  engine.request(b, u"n");
  RequestResult from_c = engine.request(c, u"n");
  EXPECT_EQ(engine.close(b), 0);
  Snapshot snapshot = engine.snapshot();
  ASSERT_EQ(snapshot.pending.size(), 1u);
  EXPECT_EQ(snapshot.pending[0].client_id, u"c");
  engine.release(a, held.id);
  EXPECT_EQ(engine.events(c), (std::vector<Event>{{WL_EVENT_GRANTED, from_c.id}}));
}

TEST(AgentTermination, ClosingAClientThatHoldsAndWaitsOnOneNameLeavesNothingBehind) {
  EngineHandle engine;
  double a = engine.open(u"a"), b = engine.open(u"b");
  engine.request(a, u"n", WL_SHARED);
  engine.request(b, u"n", WL_EXCLUSIVE);
  engine.request(a, u"n", WL_SHARED);
  engine.request(a, u"n", WL_EXCLUSIVE);
  EXPECT_EQ(engine.close(a), 0);
  Snapshot snapshot = engine.snapshot();
  ASSERT_EQ(snapshot.held.size(), 1u);
  EXPECT_EQ(snapshot.held[0], (LockInfo{u"n", WL_EXCLUSIVE, u"b"}));
  EXPECT_TRUE(snapshot.pending.empty());
  EXPECT_EQ(engine.stats().entries, 1u);
}

TEST(AgentTermination, AClosedClientHandleIsRejectedAndNeverReused) {
  EngineHandle engine;
  double a = engine.open(u"a");
  EXPECT_EQ(engine.close(a), 0);
  EXPECT_EQ(engine.close(a), WL_BAD_CLIENT);
  EXPECT_EQ(engine.request(a, u"n").status, WL_BAD_CLIENT);
  double again = engine.open(u"a");
  EXPECT_NE(again, a) << "the slot is reused under a new generation";
  EXPECT_EQ(engine.request(a, u"n").status, WL_BAD_CLIENT);
}

TEST(AgentTermination, ClosingAClientRingsItsDoorbell) {
  EngineHandle engine;
  double a = engine.open(u"a");
  const wl_client_header* header = engine.header(a);
  uint32_t before = __atomic_load_n(&header->doorbell, __ATOMIC_SEQ_CST);
  engine.close(a);
  EXPECT_EQ(__atomic_load_n(&header->doorbell, __ATOMIC_SEQ_CST), before + 1)
      << "a waiter wakes and finds its client gone (the record stays valid memory)";
}

TEST(AgentTermination, ClosingTheClientsOfAnOwnerClosesExactlyThose) {
  EngineHandle engine;
  double a = engine.open(u"a", 1), b = engine.open(u"b", 1), c = engine.open(u"c", 2);
  engine.request(a, u"n");
  RequestResult from_c = engine.request(c, u"n");
  engine.request(b, u"n");
  EXPECT_EQ(engine.close_owner(1), 2);
  EXPECT_EQ(engine.close_owner(1), 0);
  EXPECT_EQ(engine.stats().clients, 1u);
  EXPECT_EQ(engine.events(c), (std::vector<Event>{{WL_EVENT_GRANTED, from_c.id}}));
  EXPECT_EQ(engine.request(b, u"m").status, WL_BAD_CLIENT);
}

TEST(Doorbell, EveryEventBumpsTheDoorbellOnce) {
  EngineHandle engine;
  double a = engine.open(u"a"), b = engine.open(u"b");
  const wl_client_header* header = engine.header(b);
  RequestResult held = engine.request(a, u"n", WL_EXCLUSIVE);
  engine.request(b, u"n", WL_SHARED);
  engine.request(b, u"n", WL_SHARED);
  uint32_t before = __atomic_load_n(&header->doorbell, __ATOMIC_SEQ_CST);
  engine.release(a, held.id);
  EXPECT_EQ(__atomic_load_n(&header->doorbell, __ATOMIC_SEQ_CST), before + 2);
  EXPECT_EQ(__atomic_load_n(&header->inbox_count, __ATOMIC_SEQ_CST), 2u);
  EXPECT_EQ(engine.events(b).size(), 2u);
  EXPECT_EQ(__atomic_load_n(&header->inbox_count, __ATOMIC_SEQ_CST), 0u);
}

TEST(Doorbell, ManyQueuedGrantsFitTheInboxWithoutLoss) {
  EngineHandle engine;
  double a = engine.open(u"a"), b = engine.open(u"b");
  RequestResult held = engine.request(a, u"n");
  std::vector<Event> expected;
  for (int i = 0; i < 1000; i++) expected.push_back({WL_EVENT_GRANTED, engine.request(b, u"n", WL_SHARED).id});
  engine.release(a, held.id);
  EXPECT_EQ(engine.events(b), expected);
}
