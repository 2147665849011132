// The journal of observed changes (wl_observe, wl_read_journal) and certain deadlocks
// (wl_request_within, wl_deadlock_cycle).
#include <cstring>

#include "test_support.h"

using namespace wltest;

namespace {

struct Change {
  uint32_t type;
  u16string name;
  u16string client_id;
  bool operator==(const Change& other) const {
    return type == other.type && name == other.name && client_id == other.client_id;
  }
};

std::ostream& operator<<(std::ostream& out, const Change& change) {
  return out << "{" << change.type << ", " << change.name.size() << " units, " << change.client_id.size() << " units}";
}

// Reads every record from *position on (the cycle of a deadlock is left out).
std::vector<Change> read(wl_engine* engine, double* position) {
  std::vector<unsigned char> out(65536);
  int32_t bytes;
  while ((bytes = wl_read_journal(engine, position, out.data(), static_cast<uint32_t>(out.size()))) == WL_BUSY) {}
  std::vector<Change> changes;
  for (int32_t at = 0; at < bytes;) {
    wl_journal_record header;
    std::memcpy(&header, out.data() + at, sizeof header);
    Change change{header.type, u"", u""};
    if (header.type != WL_CHANGE_DEADLOCK && header.type != WL_CHANGE_LOST) {
      const unsigned char* units = out.data() + at + sizeof header;
      change.name.assign(reinterpret_cast<const char16_t*>(units), header.count);
      change.client_id.assign(reinterpret_cast<const char16_t*>(units) + header.count, header.client_id_length);
    }
    changes.push_back(change);
    at += header.bytes;
  }
  return changes;
}

double observe(wl_engine* engine) {
  double out[2];
  EXPECT_EQ(wl_observe(engine, 1, out), 0);
  return out[0];
}

RequestResult request_within(wl_engine* engine, double client, const u16string& name, double under, uint32_t flags,
                             std::vector<unsigned char>* cycle) {
  cycle->assign(4096, 0xff);
  RequestResult result{0, 0};
  result.status = wl_request_within(engine, client, reinterpret_cast<const uint16_t*>(name.data()),
                                    static_cast<uint32_t>(name.size()), WL_EXCLUSIVE, WL_WAIT, under, flags, &result.id,
                                    cycle->data(), static_cast<uint32_t>(cycle->size()));
  return result;
}

uint32_t cycle_count(const std::vector<unsigned char>& cycle) {
  uint32_t count;
  std::memcpy(&count, cycle.data(), 4);
  return count;
}

}  // namespace

TEST(Observe, NothingIsRecordedWhileNobodyObserves) {
  EngineHandle engine;
  double a = engine.open(u"a");
  engine.request(a, u"n");
  double position = observe(engine.get());
  EXPECT_TRUE(read(engine.get(), &position).empty());
}

TEST(Observe, EveryChangeIsRecordedInTheOrderTheEngineMadeIt) {
  EngineHandle engine;
  double a = engine.open(u"a"), b = engine.open(u"b"), c = engine.open(u"c");
  double position = observe(engine.get());
  RequestResult held = engine.request(a, u"n");
  RequestResult waiting = engine.request(b, u"n");
  RequestResult aborted = engine.request(c, u"n");
  EXPECT_EQ(engine.abort(c, aborted.id), 1);
  EXPECT_EQ(engine.release(a, held.id), 1);
  RequestResult steal = engine.request(c, u"n", WL_EXCLUSIVE, WL_PREEMPT);
  EXPECT_EQ(engine.release(c, steal.id), 1);
  (void)waiting;
  EXPECT_EQ(read(engine.get(), &position), (std::vector<Change>{
      {WL_CHANGE_REQUESTED, u"n", u"a"}, {WL_CHANGE_GRANTED, u"n", u"a"},
      {WL_CHANGE_REQUESTED, u"n", u"b"}, {WL_CHANGE_REQUESTED, u"n", u"c"},
      {WL_CHANGE_ABORTED, u"n", u"c"}, {WL_CHANGE_RELEASED, u"n", u"a"}, {WL_CHANGE_GRANTED, u"n", u"b"},
      {WL_CHANGE_STOLEN, u"n", u"b"}, {WL_CHANGE_REQUESTED, u"n", u"c"}, {WL_CHANGE_GRANTED, u"n", u"c"},
      {WL_CHANGE_RELEASED, u"n", u"c"}}));
}

TEST(Observe, AReaderLeftBehindByTheRingIsToldRecordsWereLost) {
  EngineHandle engine;
  double a = engine.open(u"a");
  double position = observe(engine.get());
  for (int i = 0; i < 2000; i++) engine.release(a, engine.request(a, u"a name of some length").id);
  std::vector<Change> changes = read(engine.get(), &position);
  ASSERT_FALSE(changes.empty());
  EXPECT_EQ(changes[0].type, static_cast<uint32_t>(WL_CHANGE_LOST));
}

TEST(Deadlock, TwoClientsWaitingInsideTheirLocksForEachOthersNameCloseACycle) {
  EngineHandle engine;
  double a = engine.open(u"a"), b = engine.open(u"b");
  RequestResult x = engine.request(a, u"x");
  RequestResult y = engine.request(b, u"y");
  std::vector<unsigned char> cycle;
  RequestResult a_waits = request_within(engine.get(), a, u"y", x.id, 0, &cycle);
  EXPECT_EQ(a_waits.status, WL_QUEUED);
  EXPECT_EQ(cycle_count(cycle), 0xffffffffu) << "no cycle yet";
  RequestResult b_waits = request_within(engine.get(), b, u"x", y.id, 0, &cycle);
  EXPECT_EQ(b_waits.status, WL_QUEUED);
  EXPECT_EQ(cycle_count(cycle), 2u);
  EXPECT_EQ(engine.events(a), (std::vector<Event>{{WL_EVENT_DEADLOCK, a_waits.id}}));
  EXPECT_EQ(engine.events(b), (std::vector<Event>{{WL_EVENT_DEADLOCK, b_waits.id}}));
  std::vector<unsigned char> described(4096);
  EXPECT_GT(wl_deadlock_cycle(engine.get(), a, a_waits.id, described.data(), 4096), 0);
  EXPECT_EQ(cycle_count(described), 2u);
}

TEST(Deadlock, TheRejectFlagLeavesTheClosingRequestUnqueued) {
  EngineHandle engine;
  double a = engine.open(u"a"), b = engine.open(u"b");
  RequestResult x = engine.request(a, u"x");
  RequestResult y = engine.request(b, u"y");
  std::vector<unsigned char> cycle;
  request_within(engine.get(), a, u"y", x.id, 0, &cycle);
  RequestResult rejected = request_within(engine.get(), b, u"x", y.id, WL_REJECT_DEADLOCK, &cycle);
  EXPECT_EQ(rejected.status, WL_DEADLOCK);
  EXPECT_EQ(cycle_count(cycle), 2u);
  EXPECT_EQ(engine.snapshot().pending.size(), 1u) << "only a's request waits";
}

TEST(Deadlock, ARequestMadeOutsideTheLockItWaitsBehindClosesNoCycle) {
  EngineHandle engine;
  double a = engine.open(u"a"), b = engine.open(u"b");
  RequestResult x = engine.request(a, u"x");
  RequestResult y = engine.request(b, u"y");
  engine.request(a, u"y");  // outside any callback
  std::vector<unsigned char> cycle;
  EXPECT_EQ(request_within(engine.get(), b, u"x", y.id, WL_REJECT_DEADLOCK, &cycle).status, WL_QUEUED);
  EXPECT_EQ(cycle_count(cycle), 0xffffffffu);
  (void)x;
}

TEST(Deadlock, ANestedRequestForTheNameItsOwnLockHoldsIsACycleOfOne) {
  EngineHandle engine;
  double a = engine.open(u"a");
  RequestResult x = engine.request(a, u"x");
  std::vector<unsigned char> cycle;
  EXPECT_EQ(request_within(engine.get(), a, u"x", x.id, 0, &cycle).status, WL_QUEUED);
  EXPECT_EQ(cycle_count(cycle), 1u);
}
