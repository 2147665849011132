// Spec 4.1 (request a lock), 2.5 (grantable) and 4.4 (process the lock request queue).
#include "test_support.h"

using namespace wltest;

TEST(RequestALock, AnExclusiveRequestOnAFreeNameIsGrantedAtOnce) {
  EngineHandle engine;
  double a = engine.open(u"a");
  RequestResult result = engine.request(a, u"n");
  EXPECT_EQ(result.status, WL_GRANTED);
  EXPECT_TRUE(engine.events(a).empty()) << "an immediate grant is the return value, not an event";
}

TEST(RequestALock, ASecondExclusiveRequestWaitsAndIsGrantedWhenTheFirstIsReleased) {
  EngineHandle engine;
  double a = engine.open(u"a"), b = engine.open(u"b");
  RequestResult first = engine.request(a, u"n");
  RequestResult second = engine.request(b, u"n");
  EXPECT_EQ(second.status, WL_QUEUED);
  EXPECT_EQ(engine.release(a, first.id), 1);
  EXPECT_EQ(engine.events(b), (std::vector<Event>{{WL_EVENT_GRANTED, second.id}}));
}

TEST(RequestALock, SharedRequestsAreGrantedTogether) {
  EngineHandle engine;
  double a = engine.open(u"a"), b = engine.open(u"b");
  EXPECT_EQ(engine.request(a, u"n", WL_SHARED).status, WL_GRANTED);
  EXPECT_EQ(engine.request(b, u"n", WL_SHARED).status, WL_GRANTED);
  EXPECT_EQ(engine.snapshot().held.size(), 2u);
}

TEST(RequestALock, ASharedRequestWaitsBehindAQueuedExclusiveOne) {
  // Grantable step 7: only the first request in the queue can be grantable.
  EngineHandle engine;
  double a = engine.open(u"a"), b = engine.open(u"b"), c = engine.open(u"c");
  RequestResult shared_held = engine.request(a, u"n", WL_SHARED);
  RequestResult exclusive = engine.request(b, u"n", WL_EXCLUSIVE);
  RequestResult late_shared = engine.request(c, u"n", WL_SHARED);
  EXPECT_EQ(shared_held.status, WL_GRANTED);
  EXPECT_EQ(exclusive.status, WL_QUEUED);
  EXPECT_EQ(late_shared.status, WL_QUEUED) << "must not overtake the queued exclusive request";
  EXPECT_EQ(engine.release(a, shared_held.id), 1);
  EXPECT_EQ(engine.events(b), (std::vector<Event>{{WL_EVENT_GRANTED, exclusive.id}}));
  EXPECT_TRUE(engine.events(c).empty());
  EXPECT_EQ(engine.release(b, exclusive.id), 1);
  EXPECT_EQ(engine.events(c), (std::vector<Event>{{WL_EVENT_GRANTED, late_shared.id}}));
}

TEST(ProcessTheLockRequestQueue, ReleasingAnExclusiveLockGrantsEveryLeadingSharedRequestInOrder) {
  EngineHandle engine;
  double a = engine.open(u"a"), b = engine.open(u"b");
  RequestResult held = engine.request(a, u"n");
  RequestResult s1 = engine.request(b, u"n", WL_SHARED);
  RequestResult s2 = engine.request(b, u"n", WL_SHARED);
  RequestResult x = engine.request(a, u"n", WL_EXCLUSIVE);
  RequestResult s3 = engine.request(b, u"n", WL_SHARED);
  EXPECT_EQ(engine.release(a, held.id), 1);
  EXPECT_EQ(engine.events(b), (std::vector<Event>{{WL_EVENT_GRANTED, s1.id}, {WL_EVENT_GRANTED, s2.id}}));
  Snapshot snapshot = engine.snapshot();
  ASSERT_EQ(snapshot.pending.size(), 2u);
  EXPECT_EQ(snapshot.pending[0], (LockInfo{u"n", WL_EXCLUSIVE, u"a"}));
  EXPECT_EQ(snapshot.pending[1], (LockInfo{u"n", WL_SHARED, u"b"}));
  (void)x;
  (void)s3;
}

TEST(ProcessTheLockRequestQueue, GrantsFollowRequestOrderForExclusiveRequests) {
  EngineHandle engine;
  double a = engine.open(u"a"), b = engine.open(u"b"), c = engine.open(u"c");
  RequestResult held = engine.request(a, u"n");
  RequestResult from_c = engine.request(c, u"n");
  RequestResult from_b = engine.request(b, u"n");
  engine.release(a, held.id);
  EXPECT_EQ(engine.events(c), (std::vector<Event>{{WL_EVENT_GRANTED, from_c.id}}));
  EXPECT_TRUE(engine.events(b).empty());
  engine.release(c, from_c.id);
  EXPECT_EQ(engine.events(b), (std::vector<Event>{{WL_EVENT_GRANTED, from_b.id}}));
}

TEST(ProcessTheLockRequestQueue, DifferentNamesDoNotBlockEachOther) {
  EngineHandle engine;
  double a = engine.open(u"a"), b = engine.open(u"b");
  engine.request(a, u"x");
  EXPECT_EQ(engine.request(b, u"y").status, WL_GRANTED);
}

TEST(IfAvailable, AGrantableNoWaitRequestIsGranted) {
  EngineHandle engine;
  double a = engine.open(u"a");
  EXPECT_EQ(engine.request(a, u"n", WL_EXCLUSIVE, WL_NO_WAIT).status, WL_GRANTED);
  EXPECT_EQ(engine.request(a, u"m", WL_SHARED, WL_NO_WAIT).status, WL_GRANTED);
  EXPECT_EQ(engine.request(a, u"m", WL_SHARED, WL_NO_WAIT).status, WL_GRANTED);
}

TEST(IfAvailable, ANotGrantableNoWaitRequestIsNotAvailableAndTheQueueIsUntouched) {
  // Spec 4.1 step 2.5.1.
  EngineHandle engine;
  double a = engine.open(u"a"), b = engine.open(u"b");
  engine.request(a, u"n", WL_SHARED);
  RequestResult queued = engine.request(a, u"n", WL_EXCLUSIVE);
  wl_stats before = engine.stats();
  EXPECT_EQ(engine.request(b, u"n", WL_EXCLUSIVE, WL_NO_WAIT).status, WL_NOT_AVAILABLE);
  EXPECT_EQ(engine.request(b, u"n", WL_SHARED, WL_NO_WAIT).status, WL_NOT_AVAILABLE)
      << "a shared no-wait request is not grantable behind a queued exclusive one";
  EXPECT_EQ(engine.stats().entries, before.entries);
  EXPECT_EQ(engine.snapshot().pending.size(), 1u);
  EXPECT_TRUE(engine.events(b).empty());
  (void)queued;
}

TEST(IfAvailable, ANoWaitRequestOnAnExclusivelyHeldNameIsNotAvailable) {
  EngineHandle engine;
  double a = engine.open(u"a"), b = engine.open(u"b");
  engine.request(a, u"n");
  EXPECT_EQ(engine.request(b, u"n", WL_SHARED, WL_NO_WAIT).status, WL_NOT_AVAILABLE);
  EXPECT_EQ(engine.stats().names, 1u);
}

TEST(RequestALock, BadModesAndWaitModesAreRejectedWithoutEffect) {
  EngineHandle engine;
  double a = engine.open(u"a");
  EXPECT_EQ(engine.request(a, u"n", 2).status, WL_BAD_ARGUMENT);
  EXPECT_EQ(engine.request(a, u"n", WL_EXCLUSIVE, 3).status, WL_BAD_ARGUMENT);
  EXPECT_EQ(engine.request(a, u"n", WL_SHARED, WL_PREEMPT).status, WL_BAD_ARGUMENT)
      << "steal is exclusive only";
  EXPECT_EQ(engine.request(a + 1, u"n").status, WL_BAD_CLIENT);
  EXPECT_EQ(engine.stats().entries, 0u);
}
