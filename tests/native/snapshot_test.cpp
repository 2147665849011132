// Spec 4.5: snapshot the lock state.
#include "test_support.h"

using namespace wltest;

TEST(SnapshotTheLockState, AnEmptyEngineHasNothingHeldOrPending) {
  EngineHandle engine;
  Snapshot snapshot = engine.snapshot();
  EXPECT_TRUE(snapshot.held.empty());
  EXPECT_TRUE(snapshot.pending.empty());
}

TEST(SnapshotTheLockState, HeldLocksAreListedInGrantOrderWithNameModeAndClientId) {
  EngineHandle engine;
  double a = engine.open(u"client-a"), b = engine.open(u"client-b");
  RequestResult first = engine.request(a, u"z");
  engine.request(b, u"y", WL_SHARED);
  RequestResult later = engine.request(b, u"z");
  engine.request(a, u"x", WL_SHARED);
  engine.release(a, first.id);  // grants b's "z" last
  Snapshot snapshot = engine.snapshot();
  std::vector<LockInfo> expected{{u"y", WL_SHARED, u"client-b"},
                                 {u"x", WL_SHARED, u"client-a"},
                                 {u"z", WL_EXCLUSIVE, u"client-b"}};
  EXPECT_EQ(snapshot.held, expected);
  (void)later;
}

TEST(SnapshotTheLockState, PendingRequestsAreListedInRequestOrderAcrossNames) {
  EngineHandle engine;
  double a = engine.open(u"a"), b = engine.open(u"b");
  engine.request(a, u"p");
  engine.request(a, u"q");
  engine.request(b, u"q", WL_SHARED);
  engine.request(b, u"p");
  engine.request(b, u"q");
  Snapshot snapshot = engine.snapshot();
  std::vector<LockInfo> expected{{u"q", WL_SHARED, u"b"}, {u"p", WL_EXCLUSIVE, u"b"}, {u"q", WL_EXCLUSIVE, u"b"}};
  EXPECT_EQ(snapshot.pending, expected);
}

TEST(SnapshotTheLockState, ASnapshotTooLargeForTheBufferWritesNothingAndReportsItsSize) {
  EngineHandle engine;
  double a = engine.open(u"a");
  engine.request(a, u"a-name-longer-than-the-buffer");
  unsigned char buffer[16];
  for (unsigned char& byte : buffer) byte = 0xAB;
  int32_t size;
  while ((size = wl_snapshot(engine.get(), buffer, sizeof buffer)) == WL_BUSY) {}
  EXPECT_EQ(size, static_cast<int32_t>(sizeof(wl_snapshot_header) + sizeof(wl_snapshot_record) + 2 * (29 + 1)));
  for (unsigned char byte : buffer) EXPECT_EQ(byte, 0xAB);
}
