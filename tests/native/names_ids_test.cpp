// Names are sequences of UTF-16 code units compared as such; ids never repeat.
#include <set>

#include "../../src/state.h"
#include "test_support.h"

using namespace wltest;

TEST(Names, LoneSurrogatesNulsAndTheEmptyNameAreDistinctResources) {
  EngineHandle engine;
  double a = engine.open(u"a");
  std::vector<u16string> names{u"", u16string(1, u'\0'), u16string(2, u'\0'), u16string(1, char16_t(0xD800)),
                               u16string(1, char16_t(0xDC00)), u"\xD83D\xDE00", u16string{u'a', u'\0', u'b'}};
  for (const u16string& name : names) EXPECT_EQ(engine.request(a, name).status, WL_GRANTED);
  Snapshot snapshot = engine.snapshot();
  ASSERT_EQ(snapshot.held.size(), names.size());
  for (size_t i = 0; i < names.size(); i++) EXPECT_EQ(snapshot.held[i].name, names[i]);
  for (const u16string& name : names)
    EXPECT_EQ(engine.request(a, name, WL_EXCLUSIVE, WL_NO_WAIT).status, WL_NOT_AVAILABLE);
}

TEST(Names, AOneMegabyteNameWorksAndDiffersFromItsPrefix) {
  EngineHandle engine;
  double a = engine.open(u"a");
  u16string huge(1 << 20, u'x');
  huge.back() = char16_t(0xDFFF);
  EXPECT_EQ(engine.request(a, huge).status, WL_GRANTED);
  EXPECT_EQ(engine.request(a, huge.substr(0, huge.size() - 1), WL_EXCLUSIVE, WL_NO_WAIT).status, WL_GRANTED);
  EXPECT_EQ(engine.request(a, huge, WL_EXCLUSIVE, WL_NO_WAIT).status, WL_NOT_AVAILABLE);
  EXPECT_EQ(engine.snapshot().held[0].name, huge);
}

TEST(Names, ManyNamesGrowTheNameTableAndAreAllFound) {
  EngineHandle engine;
  double a = engine.open(u"a");
  for (int i = 0; i < 5000; i++) {
    std::u16string name = u"name-";
    for (char c : std::to_string(i)) name += static_cast<char16_t>(c);
    ASSERT_EQ(engine.request(a, name).status, WL_GRANTED);
  }
  EXPECT_EQ(engine.stats().names, 5000u);
  for (int i = 0; i < 5000; i += 97) {
    std::u16string name = u"name-";
    for (char c : std::to_string(i)) name += static_cast<char16_t>(c);
    EXPECT_EQ(engine.request(a, name, WL_SHARED, WL_NO_WAIT).status, WL_NOT_AVAILABLE);
  }
}

TEST(Ids, IdsAreUniqueAcrossReuseOfSlotsAndClients) {
  EngineHandle engine;
  std::set<double> ids;
  for (int round = 0; round < 50; round++) {
    double client = engine.open(u"c");
    std::vector<double> mine;
    for (int i = 0; i < 40; i++) {
      RequestResult result = engine.request(client, u"n", WL_SHARED);
      ASSERT_EQ(result.status, WL_GRANTED);
      ASSERT_TRUE(ids.insert(result.id).second) << "id " << result.id << " repeated";
      ASSERT_LT(result.id, 9007199254740992.0);
    }
    engine.close(client);
  }
}

TEST(Ids, ASlotWhoseGenerationWouldWrapIsRetired) {
  EngineHandle engine;
  double a = engine.open(u"a");
  RequestResult first = engine.request(a, u"n");
  // Age the slot to its last generation (reaching it by 2^29 requests would take minutes).
  auto* state = reinterpret_cast<wl::Engine*>(engine.get());
  wl::Entry* entry = state->entries.find(first.id);
  ASSERT_NE(entry, nullptr);
  entry->generation = WL_GENERATION_LIMIT;
  double last_id = wl::SlotTable<wl::Entry>::name_of(entry);
  EXPECT_EQ(engine.release(a, last_id), 1);
  RequestResult next = engine.request(a, u"n");
  EXPECT_NE(next.id, last_id);
  EXPECT_NE(static_cast<uint64_t>(next.id) % (1u << 24), static_cast<uint64_t>(last_id) % (1u << 24))
      << "the retired slot is not handed out again";
  EXPECT_LT(last_id, 9007199254740992.0) << "the last id of a slot is still a safe integer";
}
