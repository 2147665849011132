// Spec 4.2 (release the lock) and 4.3 (abort the request).
#include "test_support.h"

using namespace wltest;

TEST(ReleaseALock, ReleasingAHeldLockFreesTheName) {
  EngineHandle engine;
  double a = engine.open(u"a");
  RequestResult held = engine.request(a, u"n");
  EXPECT_EQ(engine.release(a, held.id), 1);
  EXPECT_EQ(engine.stats().entries, 0u);
  EXPECT_EQ(engine.stats().names, 0u);
  EXPECT_EQ(engine.release(a, held.id), 0) << "a second release finds nothing";
}

TEST(ReleaseALock, ReleasingAPendingRequestDoesNothing) {
  EngineHandle engine;
  double a = engine.open(u"a"), b = engine.open(u"b");
  engine.request(a, u"n");
  RequestResult pending = engine.request(b, u"n");
  EXPECT_EQ(engine.release(b, pending.id), 0);
  EXPECT_EQ(engine.snapshot().pending.size(), 1u);
}

TEST(ReleaseALock, AnotherClientsIdHasNoEffect) {
  EngineHandle engine;
  double a = engine.open(u"a"), b = engine.open(u"b");
  RequestResult held = engine.request(a, u"n");
  EXPECT_EQ(engine.release(b, held.id), 0);
  EXPECT_EQ(engine.snapshot().held.size(), 1u);
}

TEST(ReleaseALock, MalformedIdsFindNothing) {
  EngineHandle engine;
  double a = engine.open(u"a");
  engine.request(a, u"n");
  for (double id : {0.0, -1.0, 0.5, 1e300, 16777216.5, 9007199254740992.0, 16777216.0 * 99 + 3})
    EXPECT_EQ(engine.release(a, id), 0) << id;
  EXPECT_EQ(engine.snapshot().held.size(), 1u);
}

TEST(AbortARequest, AbortingAPendingRequestRemovesIt) {
  EngineHandle engine;
  double a = engine.open(u"a"), b = engine.open(u"b");
  RequestResult held = engine.request(a, u"n");
  RequestResult pending = engine.request(b, u"n");
  EXPECT_EQ(engine.abort(b, pending.id), 1);
  EXPECT_TRUE(engine.snapshot().pending.empty());
  EXPECT_EQ(engine.release(a, held.id), 1);
  EXPECT_TRUE(engine.events(b).empty()) << "an aborted request is never granted";
}

TEST(AbortARequest, AbortingAfterTheGrantDoesNothing) {
  EngineHandle engine;
  double a = engine.open(u"a");
  RequestResult held = engine.request(a, u"n");
  EXPECT_EQ(engine.abort(a, held.id), 0);
  EXPECT_EQ(engine.snapshot().held.size(), 1u);
}

TEST(AbortARequest, AbortingTheQueuedExclusiveRequestGrantsTheSharedOnesBehindIt) {
  // Spec 4.3 step 7: the queue is processed after the removal.
  EngineHandle engine;
  double a = engine.open(u"a"), b = engine.open(u"b"), c = engine.open(u"c");
  engine.request(a, u"n", WL_SHARED);
  RequestResult exclusive = engine.request(b, u"n", WL_EXCLUSIVE);
  RequestResult shared = engine.request(c, u"n", WL_SHARED);
  EXPECT_EQ(engine.abort(b, exclusive.id), 1);
  EXPECT_EQ(engine.events(c), (std::vector<Event>{{WL_EVENT_GRANTED, shared.id}}));
}

TEST(AbortARequest, AnotherClientsIdHasNoEffect) {
  EngineHandle engine;
  double a = engine.open(u"a"), b = engine.open(u"b");
  engine.request(a, u"n");
  RequestResult pending = engine.request(a, u"n");
  EXPECT_EQ(engine.abort(b, pending.id), 0);
  EXPECT_EQ(engine.snapshot().pending.size(), 1u);
}

TEST(AbortARequest, AbortingTwiceReportsFalseTheSecondTime) {
  EngineHandle engine;
  double a = engine.open(u"a"), b = engine.open(u"b");
  engine.request(a, u"n");
  RequestResult pending = engine.request(b, u"n");
  EXPECT_EQ(engine.abort(b, pending.id), 1);
  EXPECT_EQ(engine.abort(b, pending.id), 0);
}
