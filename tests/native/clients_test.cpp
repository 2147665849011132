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

// 2.6 step 2 "for each lock lock with agent equal to the terminating agent": the held lock set
// is ordered (4.4 step 2.1.10 appends), so the locks are released in grant order across names,
// and the grants that follow are appended (and told) in that order. The minimal sequence the
// differential tester found: the closing client was granted "resource/1" (shared) after it
// stole "\uD800", but had requested it before.
TEST(AgentTermination, ReleasesTheLocksInGrantOrderAcrossNames) {
  EngineHandle engine;
  const u16string lone = u"\xD800", resource = u"resource/1";
  double c0 = engine.open(u"0"), c3 = engine.open(u"3");
  RequestResult r301 = engine.request(c0, lone, WL_SHARED);
  RequestResult r307 = engine.request(c0, lone, WL_EXCLUSIVE);
  RequestResult r308 = engine.request(c3, resource, WL_EXCLUSIVE);
  RequestResult r314 = engine.request(c3, resource, WL_SHARED);
  RequestResult r315 = engine.request(c3, lone, WL_EXCLUSIVE, WL_PREEMPT);
  RequestResult r335 = engine.request(c0, resource, WL_EXCLUSIVE);
  ASSERT_EQ(r301.status, WL_GRANTED);
  ASSERT_EQ(r307.status, WL_QUEUED);
  ASSERT_EQ(r308.status, WL_GRANTED);
  ASSERT_EQ(r314.status, WL_QUEUED);
  ASSERT_EQ(r315.status, WL_GRANTED);
  ASSERT_EQ(r335.status, WL_QUEUED);
  EXPECT_EQ(engine.events(c0), (std::vector<Event>{{WL_EVENT_STOLEN, r301.id}}));
  EXPECT_EQ(engine.release(c3, r308.id), 1);
  EXPECT_EQ(engine.events(c3), (std::vector<Event>{{WL_EVENT_GRANTED, r314.id}}));
  // c3 now holds "\uD800" (granted first) and "resource/1" (granted second).
  EXPECT_EQ(engine.snapshot().held,
            (std::vector<LockInfo>{{lone, WL_EXCLUSIVE, u"3"}, {resource, WL_SHARED, u"3"}}));
  EXPECT_EQ(engine.close(c3), 0);
  EXPECT_EQ(engine.snapshot().held,
            (std::vector<LockInfo>{{lone, WL_EXCLUSIVE, u"0"}, {resource, WL_EXCLUSIVE, u"0"}}));
  EXPECT_EQ(engine.events(c0), (std::vector<Event>{{WL_EVENT_GRANTED, r307.id}, {WL_EVENT_GRANTED, r335.id}}));
}

// 2.6 step 1 names no order for the agent's lock requests; the engine (and the reference model)
// aborts them in request order, the order snapshot() lists pending requests in. Each abort
// processes its queue (4.3 step 7), so the order shows in the grants that follow.
TEST(AgentTermination, AbortsTheRequestsInRequestOrderAcrossNames) {
  EngineHandle engine;
  double a = engine.open(u"a"), t = engine.open(u"t"), w = engine.open(u"w");
  engine.request(a, u"p", WL_SHARED);
  engine.request(a, u"q", WL_SHARED);
  ASSERT_EQ(engine.request(t, u"q", WL_EXCLUSIVE).status, WL_QUEUED);  // requested first
  ASSERT_EQ(engine.request(t, u"p", WL_EXCLUSIVE).status, WL_QUEUED);
  RequestResult wp = engine.request(w, u"p", WL_SHARED);
  RequestResult wq = engine.request(w, u"q", WL_SHARED);
  ASSERT_EQ(wp.status, WL_QUEUED);
  ASSERT_EQ(wq.status, WL_QUEUED);
  EXPECT_EQ(engine.close(t), 0);
  EXPECT_EQ(engine.events(w), (std::vector<Event>{{WL_EVENT_GRANTED, wq.id}, {WL_EVENT_GRANTED, wp.id}}));
  EXPECT_EQ(engine.snapshot().held, (std::vector<LockInfo>{{u"p", WL_SHARED, u"a"},
                                                           {u"q", WL_SHARED, u"a"},
                                                           {u"q", WL_SHARED, u"w"},
                                                           {u"p", WL_SHARED, u"w"}}));
}

// Closing the clients of an owner terminates them one after another, in the order they opened
// (not in the order of their slots: here the later client reuses the lower slot).
TEST(AgentTermination, ClosingTheClientsOfAnOwnerGoesInOpenOrder) {
  EngineHandle engine;
  double z = engine.open(u"z", 1);
  double first = engine.open(u"first", 1);
  EXPECT_EQ(engine.close(z), 0);
  double second = engine.open(u"second", 1);  // takes z's slot, below first's
  double w = engine.open(u"w", 2);
  engine.request(first, u"x");
  engine.request(second, u"y");
  RequestResult wy = engine.request(w, u"y");
  RequestResult wx = engine.request(w, u"x");
  EXPECT_EQ(engine.close_owner(1), 2);
  EXPECT_EQ(engine.events(w), (std::vector<Event>{{WL_EVENT_GRANTED, wx.id}, {WL_EVENT_GRANTED, wy.id}}));
  EXPECT_EQ(engine.snapshot().held,
            (std::vector<LockInfo>{{u"x", WL_EXCLUSIVE, u"w"}, {u"y", WL_EXCLUSIVE, u"w"}}));
}
