// When memory cannot grow, the failing call returns WL_NO_MEMORY and the state stays intact.
#include "test_support.h"

#include <cstdlib>

#include "../../src/state.h"
#include "../../src/testing_hooks.h"

using namespace wltest;

namespace {
u16string numbered(const char* prefix, int i, size_t padding) {
  u16string name;
  for (const char* p = prefix; *p; p++) name += static_cast<char16_t>(*p);
  for (char c : std::to_string(i)) name += static_cast<char16_t>(c);
  name += u16string(padding, u'.');
  return name;
}
}  // namespace

TEST(OutOfMemory, ARequestThatCannotAllocateFailsAndLeavesEveryOtherClientUntouched) {
  EngineHandle engine;
  double a = engine.open(u"a"), b = engine.open(u"b");
  RequestResult held = engine.request(a, u"kept");
  RequestResult waiting = engine.request(b, u"kept");
  ASSERT_EQ(wl_set_memory_limit(engine.get(), engine.stats().memory_bytes), 0);
  Snapshot before = engine.snapshot();
  int failed_at = -1;
  for (int i = 0; i < 100000 && failed_at < 0; i++) {
    RequestResult result = engine.request(a, numbered("n", i, 500), WL_SHARED);
    if (result.status == WL_NO_MEMORY) failed_at = i;
    else ASSERT_EQ(result.status, WL_GRANTED);
  }
  ASSERT_GE(failed_at, 0) << "the limit was reached";
  Snapshot after = engine.snapshot();
  EXPECT_EQ(after.held.size(), before.held.size() + failed_at) << "the failed request left no trace";
  EXPECT_EQ(after.pending, before.pending);
  EXPECT_EQ(engine.stats().names, 1u + failed_at);
  // Everything else still works: release, grant, events.
  EXPECT_EQ(engine.release(a, held.id), 1);
  EXPECT_EQ(engine.events(b), (std::vector<Event>{{WL_EVENT_GRANTED, waiting.id}}));
}

TEST(OutOfMemory, FreedMemoryIsReusedWhenMemoryCannotGrow) {
  EngineHandle engine;
  double a = engine.open(u"a");
  ASSERT_EQ(wl_set_memory_limit(engine.get(), 4 * 65536), 0);
  std::vector<double> ids;
  for (int i = 0;; i++) {
    RequestResult result = engine.request(a, numbered("big", i, 5000));
    if (result.status == WL_NO_MEMORY) break;
    ASSERT_EQ(result.status, WL_GRANTED);
    ids.push_back(result.id);
  }
  ASSERT_GT(ids.size(), 2u);
  for (double id : ids) EXPECT_EQ(engine.release(a, id), 1);
  // Larger blocks freed above are split for smaller requests.
  for (int i = 0; i < 200; i++) EXPECT_EQ(engine.request(a, numbered("small", i, 10)).status, WL_GRANTED) << i;
}

TEST(OutOfMemory, OpeningAClientThatCannotAllocateFailsCleanly) {
  EngineHandle engine;
  double a = engine.open(u"a");
  engine.request(a, u"n");
  ASSERT_EQ(wl_set_memory_limit(engine.get(), engine.stats().memory_bytes), 0);
  u16string huge_id(1 << 20, u'i');
  double client = 0;
  EXPECT_EQ(wl_open_client(engine.get(), reinterpret_cast<const uint16_t*>(huge_id.data()),
                           static_cast<uint32_t>(huge_id.size()), 0, &client), WL_NO_MEMORY);
  EXPECT_EQ(engine.stats().clients, 1u);
  EXPECT_EQ(engine.snapshot().held.size(), 1u);
}

TEST(OutOfMemory, AGrantOrStealNeverNeedsMemory) {
  // Inbox room for every event a request may still cause is reserved when it is made.
  EngineHandle engine;
  double a = engine.open(u"a"), b = engine.open(u"b");
  RequestResult held = engine.request(a, u"n");
  std::vector<double> waiting;
  for (int i = 0; i < 300; i++) waiting.push_back(engine.request(b, u"n", WL_SHARED).id);
  ASSERT_EQ(wl_set_memory_limit(engine.get(), engine.stats().memory_bytes), 0);
  EXPECT_EQ(engine.release(a, held.id), 1);
  EXPECT_EQ(engine.events(b).size(), 300u);
  RequestResult steal = engine.request(a, u"n", WL_EXCLUSIVE, WL_PREEMPT);
  EXPECT_EQ(steal.status, WL_GRANTED);
  EXPECT_EQ(engine.events(b).size(), 300u) << "every shared holder is told";
}

namespace {
// The snapshot from wl_snapshot_pieces, concatenated; returns the status (size or error) and
// gives the pieces back.
int32_t snapshot_via_pieces(EngineHandle& engine, std::vector<unsigned char>* bytes, size_t* pieces) {
  wl_snapshot_piece* first = nullptr;
  int32_t size = wl_snapshot_pieces(engine.get(), &first);
  if (size < 0) return size;
  bytes->clear();
  *pieces = 0;
  for (wl_snapshot_piece* piece = first; piece;
       piece = reinterpret_cast<wl_snapshot_piece*>(static_cast<uintptr_t>(piece->next))) {
    const unsigned char* payload = reinterpret_cast<const unsigned char*>(piece + 1);
    bytes->insert(bytes->end(), payload, payload + piece->bytes);
    ++*pieces;
  }
  EXPECT_EQ(wl_free_snapshot(engine.get(), first), 0);
  EXPECT_EQ(bytes->size(), static_cast<size_t>(size));
  return size;
}

std::vector<unsigned char> snapshot_bytes(EngineHandle& engine) {
  std::vector<unsigned char> bytes(wl_snapshot(engine.get(), nullptr, 0));
  EXPECT_EQ(wl_snapshot(engine.get(), bytes.data(), static_cast<uint32_t>(bytes.size())), static_cast<int32_t>(bytes.size()));
  return bytes;
}
}  // namespace

// Spec 4.5 at exhaustion: the snapshot is taken from the engine's own memory, so what released
// locks freed holds it even when memory cannot grow and no single free block is large enough.
TEST(OutOfMemory, ASnapshotUsesTheMemoryReleasedLocksFreed) {
  EngineHandle engine;
  double a = engine.open(u"a");
  ASSERT_EQ(wl_set_memory_limit(engine.get(), 6 * 65536), 0);
  std::vector<double> ids;
  for (int i = 0;; i++) {
    RequestResult result = engine.request(a, numbered("n", i, 100));
    if (result.status == WL_NO_MEMORY) break;
    ASSERT_EQ(result.status, WL_GRANTED);
    ids.push_back(result.id);
  }
  ASSERT_GT(ids.size(), 600u);
  std::vector<unsigned char> bytes;
  size_t pieces = 0;
  wl_stats before = engine.stats();
  std::vector<unsigned char> expected = snapshot_bytes(engine);
  // Everything held: the snapshot is larger than all free memory.
  EXPECT_EQ(snapshot_via_pieces(engine, &bytes, &pieces), WL_NO_MEMORY);
  EXPECT_EQ(snapshot_bytes(engine), expected) << "the failed snapshot changed nothing";
  EXPECT_EQ(engine.stats().entries, before.entries);
  EXPECT_EQ(engine.request(a, numbered("n", -1, 100)).status, WL_NO_MEMORY) << "nor freed or lost memory";
  // Release every other lock: the freed memory is in pieces of a few hundred bytes.
  for (size_t i = 0; i < ids.size(); i += 2) ASSERT_EQ(engine.release(a, ids[i]), 1);
  expected = snapshot_bytes(engine);
  ASSERT_GT(expected.size(), 40000u);
  EXPECT_EQ(snapshot_via_pieces(engine, &bytes, &pieces), static_cast<int32_t>(expected.size()));
  EXPECT_EQ(bytes, expected);
  EXPECT_GT(pieces, 1u) << "no single free block could hold it";
  // The pieces went back: the freed memory serves requests again.
  for (size_t i = 0; i < ids.size() / 4; i++) EXPECT_EQ(engine.request(a, numbered("m", int(i), 100)).status, WL_GRANTED) << i;
}

// Finding 4 (docs/reliability.md): freed blocks used to stay the size they were freed at, so memory
// freed in small pieces never served a larger block again. Adjacent free blocks are now merged
// before memory grows (src/arena.cpp, merge_free_blocks).
namespace {
// Requests names of `padding` units with `client` until memory runs out; returns their ids.
std::vector<double> fill(EngineHandle& engine, double client, const char* prefix, size_t padding) {
  std::vector<double> ids;
  for (int i = 0;; i++) {
    RequestResult result = engine.request(client, numbered(prefix, i, padding));
    if (result.status == WL_NO_MEMORY) return ids;
    EXPECT_EQ(result.status, WL_GRANTED);
    ids.push_back(result.id);
  }
}
}  // namespace

TEST(Merging, MemoryFreedInSmallPiecesServesALargeBlockWhenMemoryCannotGrow) {
  EngineHandle engine;
  double a = engine.open(u"a");
  ASSERT_EQ(wl_set_memory_limit(engine.get(), 8 * 65536), 0);
  std::vector<double> ids = fill(engine, a, "small", 100);
  ASSERT_GT(ids.size(), 1000u);
  for (double id : ids) ASSERT_EQ(engine.release(a, id), 1);
  // 16,000 units: a 32 KiB block, twice the largest free block before merging (the free lists
  // held 64- and 256-byte blocks and a few of 16 KiB at most).
  EXPECT_EQ(engine.request(a, numbered("large", 0, 16000)).status, WL_GRANTED);
}

TEST(Merging, ANewClientTakesAsManyNamesAsAClosedOneDid) {
  // The exhaustion case of Finding 4: the new client's event inbox needs ever larger blocks
  // (32 bytes per live entry, doubling), which only merged memory can give.
  EngineHandle engine;
  double a = engine.open(u"a");
  ASSERT_EQ(wl_set_memory_limit(engine.get(), 14 * 65536), 0);
  std::vector<double> first = fill(engine, a, "n", 8);
  for (double id : first) ASSERT_EQ(engine.release(a, id), 1);
  engine.close(a);
  double b = engine.open(u"b");
  std::vector<double> second = fill(engine, b, "m", 8);
  EXPECT_GE(second.size(), first.size());
}

TEST(Merging, MemoryInUseTracksWhatIsLiveAndMemoryStaysFlatOverFillAndReleaseCycles) {
  // Each cycle locks 2,000 names of lengths mixed differently from the last cycle's, then releases
  // them. What stays in use after a release is what the engine keeps for good (id table chunks,
  // the client's inbox, the name table's buckets): the same after every cycle.
  EngineHandle engine;
  double a = engine.open(u"a");
  double kept_after_first = 0, obtained_after_second = 0;
  for (int cycle = 0; cycle < 20; cycle++) {
    std::vector<double> ids;
    for (int i = 0; i < 2000; i++) ids.push_back(engine.request(a, numbered("c", i, (i * 37 + cycle * 11) % 700)).id);
    double in_use = engine.stats().in_use_bytes;
    for (double id : ids) ASSERT_EQ(engine.release(a, id), 1);
    wl_stats stats = engine.stats();
    if (cycle == 0) kept_after_first = stats.in_use_bytes;
    EXPECT_GT(in_use, kept_after_first + 2000 * 64) << "cycle " << cycle;
    EXPECT_EQ(stats.in_use_bytes, kept_after_first) << "cycle " << cycle << ": freed memory counted as in use";
    if (cycle == 1) obtained_after_second = stats.memory_bytes;
    if (cycle > 1) EXPECT_EQ(stats.memory_bytes, obtained_after_second) << "cycle " << cycle << ": memory grew";
  }
}

TEST(Merging, WithChunksOneAfterAnotherAsInWasmLongNamesFillAsMuchEveryTime) {
  // Chunks laid out as memory.grow lays them out (the wasm build): a chunk that follows the
  // newest one extends it, and merged runs may span chunks.
  constexpr size_t kArea = size_t{80} << 20;
  auto* area = static_cast<unsigned char*>(aligned_alloc(65536, kArea));
  ASSERT_NE(area, nullptr);
  wl::testing_contiguous_chunks = {area, kArea, 0};
  {
    EngineHandle engine;
    double a = engine.open(u"a");
    ASSERT_EQ(wl_set_memory_limit(engine.get(), 64.0 * (1 << 20)), 0);
    std::vector<size_t> fills;
    double obtained_after_first = 0, in_use_after_first = 0;
    for (int cycle = 0; cycle < 5; cycle++) {
      std::vector<double> ids = fill(engine, a, "long", (size_t{1} << 20) - 8);  // 2 MiB blocks
      fills.push_back(ids.size());
      for (double id : ids) ASSERT_EQ(engine.release(a, id), 1);
      wl_stats stats = engine.stats();
      if (cycle == 0) {
        obtained_after_first = stats.memory_bytes;
        in_use_after_first = stats.in_use_bytes;
      }
      EXPECT_EQ(stats.memory_bytes, obtained_after_first) << "cycle " << cycle;
      EXPECT_EQ(stats.in_use_bytes, in_use_after_first) << "cycle " << cycle;
    }
    EXPECT_GT(fills[0], 25u) << "2 MiB names under a 64 MiB cap";
    for (size_t count : fills) EXPECT_EQ(count, fills[0]);
  }
  wl::testing_contiguous_chunks = {};
  free(area);
}

// wl_name_buffer: a long name written straight into the engine's memory (the binding's path for
// names longer than its scratch page), so that the name and the engine's copy share one allocator.
TEST(NameBuffer, ALongNameWrittenIntoTheClientsBufferIsLockedAndTheBufferGoesWithTheClient) {
  EngineHandle engine;
  double a = engine.open(u"a");
  const double before = engine.stats().in_use_bytes;
  double b = engine.open(u"b");
  uint16_t* buffer = nullptr;
  const uint32_t length = 100000;
  ASSERT_EQ(wl_name_buffer(engine.get(), b, length, &buffer), 0);
  ASSERT_NE(buffer, nullptr);
  for (uint32_t i = 0; i < length; i++) buffer[i] = static_cast<uint16_t>(i % 2 ? 0xd800 : 'n');  // lone surrogates too
  double id = 0;
  ASSERT_EQ(wl_request(engine.get(), b, buffer, length, WL_EXCLUSIVE, WL_WAIT, &id), WL_GRANTED);
  u16string name(reinterpret_cast<const char16_t*>(buffer), length);
  EXPECT_EQ(engine.request(a, name, WL_EXCLUSIVE, WL_NO_WAIT).status, WL_NOT_AVAILABLE) << "the same name";
  uint16_t* none = buffer;
  ASSERT_EQ(wl_name_buffer(engine.get(), b, 0, &none), 0);
  EXPECT_EQ(none, nullptr);
  Snapshot snapshot = engine.snapshot();
  ASSERT_EQ(snapshot.held.size(), 1u);
  EXPECT_EQ(snapshot.held[0].name, name) << "the engine kept its own copy";
  // A buffer left with the client is freed when it closes.
  ASSERT_EQ(wl_name_buffer(engine.get(), b, length, &buffer), 0);
  const double with_buffer = engine.stats().in_use_bytes;
  engine.close(b);
  EXPECT_LE(engine.stats().in_use_bytes, with_buffer - 2.0 * length * 2) << "the buffer and the name's copy went back";
  EXPECT_LT(engine.stats().in_use_bytes, before + 64 * 1024) << "(the id tables and a's inbox stay)";
  EXPECT_EQ(wl_name_buffer(engine.get(), b, 10, &buffer), WL_BAD_CLIENT);
}

TEST(NameBuffer, ABufferThatCannotBeHadFailsWithNoMemoryAndChangesNothing) {
  EngineHandle engine;
  double a = engine.open(u"a");
  uint16_t* buffer = nullptr;
  ASSERT_EQ(wl_name_buffer(engine.get(), a, 10, &buffer), 0);
  uint16_t* kept = buffer;
  ASSERT_EQ(wl_set_memory_limit(engine.get(), engine.stats().memory_bytes), 0);
  EXPECT_EQ(wl_name_buffer(engine.get(), a, 1u << 22, &buffer), WL_NO_MEMORY);
  EXPECT_EQ(reinterpret_cast<wl::Engine*>(engine.get())->clients.find(a)->name_buffer, kept) << "the old buffer is still the client's";
}

// The event inbox is a chain of fixed-size segments (src/state.h, InboxSegment), so it never
// needs one large block, and gives back what its entries no longer need.
TEST(Inbox, AClientThatKeepsItsLocksTakesAboutAsManyNewNamesAsAnotherReleased) {
  // Finding 4's last case: the filler releases all but 100 of its names; the bystander, which
  // kept its lock all along, takes new names in the freed memory. Its inbox used to double in one
  // block, which the merged pieces could not hold past about half of them.
  EngineHandle engine;
  double bystander = engine.open(u"bystander"), filler = engine.open(u"filler");
  RequestResult kept = engine.request(bystander, u"kept");
  ASSERT_EQ(engine.request(filler, u"kept").status, WL_QUEUED);
  ASSERT_EQ(wl_set_memory_limit(engine.get(), 14 * 65536), 0);
  std::vector<double> ids = fill(engine, filler, "name-", 0);
  ASSERT_GT(ids.size(), 1000u);
  size_t released = ids.size() - 100;
  for (size_t i = 0; i < released; i++) ASSERT_EQ(engine.release(filler, ids[i]), 1);
  ASSERT_EQ(engine.release(bystander, kept.id), 1);
  EXPECT_EQ(engine.events(filler).size(), 1u);
  std::vector<double> again = fill(engine, bystander, "again-", 0);
  EXPECT_GE(again.size(), released * 9 / 10) << "of " << released << " released";
}

TEST(Inbox, SegmentsItsEntriesNoLongerNeedAreGivenBack) {
  EngineHandle engine;
  double holder = engine.open(u"holder");
  RequestResult held = engine.request(holder, u"n");
  // A first client queues and goes, so that the id tables are as large as the second one needs.
  double first = engine.open(u"first");
  for (int i = 0; i < 1000; i++) engine.request(first, u"n", WL_SHARED);
  engine.close(first);
  double waiter = engine.open(u"waiter");
  const double before = engine.stats().in_use_bytes;
  std::vector<double> ids;
  for (int i = 0; i < 1000; i++) ids.push_back(engine.request(waiter, u"n", WL_SHARED).id);
  EXPECT_GT(engine.stats().in_use_bytes, before + 1000 * 2 * sizeof(wl_event_record)) << "room for 2 events each";
  for (double id : ids) ASSERT_EQ(engine.abort(waiter, id), 1);
  EXPECT_LE(engine.stats().in_use_bytes, before + 2 * sizeof(wl::InboxSegment)) << "at most two segments stay";
  // And after events were delivered through many segments.
  ids.clear();
  for (int i = 0; i < 1000; i++) ids.push_back(engine.request(waiter, u"n", WL_SHARED).id);
  ASSERT_EQ(engine.release(holder, held.id), 1);
  EXPECT_EQ(engine.events(waiter).size(), 1000u);
  for (double id : ids) ASSERT_EQ(engine.release(waiter, id), 1);
  EXPECT_LE(engine.stats().in_use_bytes, before + 2 * sizeof(wl::InboxSegment)) << "at most two segments stay";
}
