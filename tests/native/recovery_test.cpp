// An agent that dies inside an engine call (a thread terminate()d in the middle of a wasm call,
// holding the engine mutex) must not take the engine down: closing the clients of its owner
// takes the mutex over and undoes the half-done call (src/undo.h), and the engine goes on as if
// the call had never been made. Each scenario is cut at every one of its writes in turn.
#include <setjmp.h>

#include <cstdio>

#include <algorithm>

#include <functional>
#include <string>

#include "../../src/state.h"
#include "../../src/testing_hooks.h"
#include "test_support.h"

using namespace wltest;

namespace {

constexpr uint32_t kDeadOwner = 7;

struct World {
  double a = 0, b = 0, d = 0;  // d belongs to the owner that dies
  std::vector<double> ids;     // ids of interest, by setup order
};

u16string name_of(const std::string& text) { return u16string(text.begin(), text.end()); }

// The state every scenario starts from: locks held and waited for on several names, by the
// dying owner's client and by others, and an undelivered event in d's inbox.
void common_setup(EngineHandle& engine, World& w) {
  w.a = engine.open(u"client-a");
  w.b = engine.open(u"client-b");
  w.d = engine.open(u"client-d", kDeadOwner);
  w.ids.push_back(engine.request(w.a, u"x").id);              // 0: a holds x
  w.ids.push_back(engine.request(w.b, u"x").id);              // 1: b waits x
  w.ids.push_back(engine.request(w.d, u"y", WL_SHARED).id);   // 2: d holds y
  w.ids.push_back(engine.request(w.a, u"y", WL_SHARED).id);   // 3: a holds y
  w.ids.push_back(engine.request(w.b, u"y").id);              // 4: b waits y
  w.ids.push_back(engine.request(w.d, u"x").id);              // 5: d waits x
  w.ids.push_back(engine.request(w.d, u"w").id);              // 6: d holds w
  w.ids.push_back(engine.request(w.a, u"w", WL_SHARED).id);   // 7: a waits w
  w.ids.push_back(engine.request(w.b, u"w", WL_SHARED).id);   // 8: b waits w
  double stolen = engine.request(w.d, u"v").id;
  engine.request(w.a, u"v", WL_EXCLUSIVE, WL_PREEMPT);        // d gets a "stolen" event
  (void)stolen;
}

struct Scenario {
  const char* name;
  std::function<void(EngineHandle&, World&)> extra_setup;
  std::function<int32_t(wl_engine*, World&)> call;  // made by the dying owner's agent
};

// Everything observable: lock state, counts, each surviving client's events, and the outcome of
// a fixed sequence of further calls (which also exercises the allocator's free lists).
std::vector<std::string> observe(EngineHandle& engine, World& w) {
  std::vector<std::string> seen;
  auto add = [&](const std::string& line) { seen.push_back(line); };
  auto dump = [&]() {
    Snapshot s = engine.snapshot();
    std::string line = "held:";
    for (auto& l : s.held) line += " " + std::string(l.name.begin(), l.name.end()) + "/" + std::to_string(l.mode) + "/" + std::string(l.client_id.begin(), l.client_id.end());
    line += " pending:";
    for (auto& l : s.pending) line += " " + std::string(l.name.begin(), l.name.end()) + "/" + std::to_string(l.mode) + "/" + std::string(l.client_id.begin(), l.client_id.end());
    add(line);
    wl_stats stats = engine.stats();
    add("clients " + std::to_string(stats.clients) + " entries " + std::to_string(stats.entries) + " names " + std::to_string(stats.names));
  };
  auto events = [&](double client, const char* who) {
    std::string line = std::string(who) + " events:";
    for (const Event& e : engine.events(client)) line += " " + std::to_string(e.type) + "@" + std::to_string(static_cast<uint64_t>(e.id));
    add(line);
  };
  dump();
  events(w.a, "a");
  events(w.b, "b");
  // Further calls: release what a and b hold, make new requests, open and close a client.
  for (double id : w.ids) {
    add("release a " + std::to_string(engine.release(w.a, id)));
    add("release b " + std::to_string(engine.release(w.b, id)));
  }
  events(w.a, "a");
  events(w.b, "b");
  for (int i = 0; i < 40; i++) {
    RequestResult r = engine.request(i % 2 ? w.a : w.b, name_of("after-" + std::to_string(i % 7) + std::string(i, '.')), i % 3 ? WL_SHARED : WL_EXCLUSIVE);
    add("request " + std::to_string(r.status) + " " + std::to_string(static_cast<uint64_t>(r.id)));
  }
  double e = engine.open(u"client-e");
  add("open e " + std::to_string(static_cast<uint64_t>(e)));
  engine.request(e, u"x", WL_EXCLUSIVE, WL_PREEMPT);
  engine.close(w.a);
  events(w.b, "b");
  dump();
  return seen;
}

// Structural checks that a half-undone write would break (list walks are bounded, so that a
// cycle fails the test instead of hanging it).
constexpr uint32_t kWalkLimit = 100000;

void check_invariants(wl_engine* handle) {
  auto* engine = reinterpret_cast<wl::Engine*>(handle);
  uint32_t held = 0, pending = 0, queues = 0;
  for (uint32_t bucket = 0; bucket < engine->names.bucket_count; bucket++) {
    for (wl::Queue* q = engine->names.buckets[bucket]; q; q = q->hash_next) {
      ASSERT_LT(++queues, kWalkLimit);
      ASSERT_EQ(q->hash & (engine->names.bucket_count - 1), bucket);
      uint32_t count = 0, exclusive = 0;
      wl::Entry* prev = nullptr;
      for (wl::Entry* e = q->held.head; e; prev = e, e = e->queue_link.next) {
        ASSERT_EQ(e->queue_link.prev, prev);
        ASSERT_EQ(e->state, wl::EntryState::kHeld);
        ASSERT_EQ(e->queue, q);
        ASSERT_LT(++count, kWalkLimit);
        exclusive += e->mode == WL_EXCLUSIVE;
      }
      ASSERT_EQ(q->held.tail, prev);
      ASSERT_EQ(q->held_count, count);
      ASSERT_EQ(q->exclusive_held_count, exclusive);
      ASSERT_TRUE(exclusive == 0 || count == 1) << "an exclusive holder never shares";
      prev = nullptr;
      for (wl::Entry* e = q->pending.head; e; prev = e, e = e->queue_link.next) {
        ASSERT_EQ(e->queue_link.prev, prev);
        ASSERT_EQ(e->state, wl::EntryState::kPending);
        ASSERT_LT(++pending, kWalkLimit);
      }
      ASSERT_EQ(q->pending.tail, prev);
      held += count;
      ASSERT_TRUE(count || q->pending.head) << "no empty queue is kept";
    }
  }
  ASSERT_EQ(engine->names.count, queues);
  uint32_t global = 0;
  wl::Entry* prev = nullptr;
  for (wl::Entry* e = engine->held.head; e; prev = e, e = e->global_link.next, global++) {
    ASSERT_EQ(e->global_link.prev, prev);
    ASSERT_LT(global, kWalkLimit);
  }
  ASSERT_EQ(engine->held.tail, prev);
  ASSERT_EQ(global, held);
  global = 0;
  prev = nullptr;
  for (wl::Entry* e = engine->pending.head; e; prev = e, e = e->global_link.next, global++) {
    ASSERT_EQ(e->global_link.prev, prev);
    ASSERT_LT(global, kWalkLimit);
  }
  ASSERT_EQ(engine->pending.tail, prev);
  ASSERT_EQ(global, pending);
  ASSERT_EQ(engine->entries.live_count, held + pending);
  uint32_t free_slots = 0;
  for (uint32_t slot = engine->entries.free_head; slot; slot = engine->entries.at(slot - 1)->next_free) {
    ASSERT_FALSE(engine->entries.at(slot - 1)->live);
    ASSERT_LT(++free_slots, 1u << 24);
  }
  ASSERT_EQ(free_slots + engine->entries.live_count, engine->entries.chunk_count * 256u);
  ASSERT_EQ(__atomic_load_n(&engine->header.mutex, __ATOMIC_SEQ_CST), 0u);
  ASSERT_EQ(engine->undo.count, 0u);
  // The allocator's free lists: whole, each block in one list once, none overlapping.
  std::vector<std::pair<uintptr_t, uintptr_t>> blocks;
  double free_bytes = 0;
  for (unsigned cls = 0; cls < wl::Arena::kClasses; cls++) {
    for (wl::FreeBlock* b = engine->arena.free_lists[cls]; b; b = b->next[engine->arena.link]) {
      ASSERT_LT(blocks.size(), kWalkLimit);
      uintptr_t start = reinterpret_cast<uintptr_t>(b);
      blocks.push_back({start, start + (uintptr_t{16} << cls)});
      free_bytes += static_cast<double>(uintptr_t{16} << cls);
    }
  }
  ASSERT_EQ(engine->arena.obtained_bytes - free_bytes - static_cast<double>(engine->arena.bump_end - engine->arena.bump),
            wl::arena_in_use_bytes(&engine->arena));
  // Each open client's inbox: its chain holds exactly the undelivered events, its spare list is as
  // long as counted, its room covers every event its entries may still cause, and none of its
  // segments is also free.
  constexpr uint32_t kEvents = wl::InboxSegment::kEvents;
  uint32_t open = 0;
  for (wl::Client* c = engine->open_clients.head; c; c = c->open_link.next) {
    ASSERT_LT(++open, kWalkLimit);
    auto add_segment = [&](wl::InboxSegment* segment) {
      uintptr_t start = reinterpret_cast<uintptr_t>(segment);
      blocks.push_back({start, start + sizeof(wl::InboxSegment)});
    };
    uint32_t events = 0;
    if (!c->inbox_head) {
      ASSERT_EQ(c->inbox_tail, nullptr);
    } else {
      ASSERT_NE(c->inbox_tail, nullptr);
      ASSERT_EQ(c->inbox_tail->next, nullptr);
      ASSERT_LE(c->inbox_tail_index, kEvents);
      uint32_t from = c->inbox_head_index, segments = 0;
      for (wl::InboxSegment* s = c->inbox_head;; s = s->next, from = 0) {
        ASSERT_NE(s, nullptr) << "the tail is on the chain";
        ASSERT_LT(++segments, kWalkLimit);
        add_segment(s);
        uint32_t to = s == c->inbox_tail ? c->inbox_tail_index : kEvents;
        ASSERT_LE(from, to);
        events += to - from;
        if (s == c->inbox_tail) break;
      }
    }
    ASSERT_EQ(events, c->header.inbox_count);
    uint32_t spares = 0;
    for (wl::InboxSegment* s = c->inbox_spare; s; s = s->next) {
      ASSERT_LT(++spares, kWalkLimit);
      add_segment(s);
    }
    ASSERT_EQ(spares, c->inbox_spare_count);
    uint32_t owed = 0;  // a pending request may be granted and stolen, a held lock stolen
    for (wl::Entry* e = c->pending.head; e; e = e->client_link.next) owed += 2;
    for (wl::Entry* e = c->held.head; e; e = e->client_link.next) owed += 1;
    uint32_t room = (c->inbox_tail ? kEvents - c->inbox_tail_index : 0) + spares * kEvents;
    ASSERT_GE(room, owed) << "posting an event never needs memory";
  }
  ASSERT_EQ(open, engine->clients.live_count);
  std::sort(blocks.begin(), blocks.end());
  for (size_t i = 1; i < blocks.size(); i++) ASSERT_LE(blocks[i - 1].second, blocks[i].first) << "free blocks or inbox segments overlap";
}

// Runs `call` as the dying owner, dying before its `writes`-th recorded write. Returns true if
// it died (false: the call completed first).
bool call_and_die(wl_engine* engine, World& w, const Scenario& scenario, long writes) {
  jmp_buf jump;
  wl_set_thread_owner_tag(kDeadOwner);
  wl::death_simulation.jump = &jump;
  wl::death_simulation.writes_left = writes;
  bool died = true;
  if (setjmp(jump) == 0) {
    scenario.call(engine, w);
    died = false;
  }
  wl::death_simulation.jump = nullptr;
  wl_set_thread_owner_tag(0);
  if (died) wl::set_active_undo_log(nullptr);  // the dead agent's thread-local, not the engine's
  return died;
}

// How the dead agent's mutex is freed: by closing its owner's clients (the host that learned of
// its death), or first by a waiter that learned it from the platform and frees the mutex alone
// (wl_free_mutex_of_dead_owner), the owner's clients closed later.
enum class Recovery { kCloseOwner, kWaiterFreesMutexFirst };

void run(const Scenario& scenario, Recovery recovery = Recovery::kCloseOwner) {
  SCOPED_TRACE(scenario.name);
  // What the survivors must see: the call never happened, then the owner's clients closed.
  EngineHandle expected_engine;
  World expected_world;
  common_setup(expected_engine, expected_world);
  scenario.extra_setup(expected_engine, expected_world);
  EXPECT_EQ(expected_engine.close_owner(kDeadOwner), 1);
  std::vector<std::string> expected = observe(expected_engine, expected_world);

  long cut = 1;
  for (;; cut++) {
    EngineHandle engine;
    World w;
    common_setup(engine, w);
    scenario.extra_setup(engine, w);
    if (!call_and_die(engine.get(), w, scenario, cut)) break;
    auto* state = reinterpret_cast<wl::Engine*>(engine.get());
    ASSERT_NE(__atomic_load_n(&state->header.mutex, __ATOMIC_SEQ_CST), 0u) << "the dead agent holds the mutex";
    ASSERT_EQ(state->header.holder_tag, kDeadOwner);
    wl_stats stats;
    ASSERT_EQ(wl_get_stats(engine.get(), &stats), WL_BUSY) << "others wait for the dead holder";
    if (recovery == Recovery::kWaiterFreesMutexFirst) {
      ASSERT_EQ(wl_free_mutex_of_dead_owner(engine.get(), kDeadOwner + 1), 0) << "not the holder";
      ASSERT_EQ(wl_free_mutex_of_dead_owner(engine.get(), kDeadOwner), 1) << "cut before write " << cut;
      ASSERT_EQ(__atomic_load_n(&state->header.mutex, __ATOMIC_SEQ_CST), 0u);
      ASSERT_EQ(wl_free_mutex_of_dead_owner(engine.get(), kDeadOwner), 0) << "already free";
      check_invariants(engine.get());
      if (::testing::Test::HasFatalFailure()) return;
      ASSERT_EQ(engine.stats().clients, 3u) << "the dead owner's client is still open";
    }
    ASSERT_EQ(engine.close_owner(kDeadOwner), 1) << "cut before write " << cut;
    check_invariants(engine.get());
    if (::testing::Test::HasFatalFailure()) return;
    ASSERT_EQ(observe(engine, w), expected) << "cut before write " << cut;
    check_invariants(engine.get());
  }
  EXPECT_GT(cut, 2) << "the call made several writes";
  std::printf("[ recovery ] %s%s: cut at each of %ld writes\n", scenario.name,
              recovery == Recovery::kCloseOwner ? "" : " (mutex freed by a waiter first)", cut - 1);
}

}  // namespace

TEST(DeadHolderRecovery, ARequestThatCreatesANameIsUndoneAtEveryCut) {
  run({"request new name", [](EngineHandle&, World&) {},
       [](wl_engine* e, World& w) { double id; const uint16_t n[] = {'z'}; return wl_request(e, w.d, n, 1, WL_EXCLUSIVE, WL_WAIT, &id); }});
}

TEST(DeadHolderRecovery, AQueuedRequestIsUndoneAtEveryCut) {
  run({"queued request", [](EngineHandle&, World&) {},
       [](wl_engine* e, World& w) { double id; const uint16_t n[] = {'x'}; return wl_request(e, w.d, n, 1, WL_SHARED, WL_WAIT, &id); }});
}

TEST(DeadHolderRecovery, AStealIsUndoneAtEveryCut) {
  run({"steal", [](EngineHandle&, World&) {},
       [](wl_engine* e, World& w) { double id; const uint16_t n[] = {'y'}; return wl_request(e, w.d, n, 1, WL_EXCLUSIVE, WL_PREEMPT, &id); }});
}

TEST(DeadHolderRecovery, AReleaseThatGrantsOthersIsUndoneAtEveryCut) {
  run({"release with grants", [](EngineHandle&, World&) {},
       [](wl_engine* e, World& w) { return wl_release(e, w.d, w.ids[6]); }});
}

TEST(DeadHolderRecovery, AnAbortIsUndoneAtEveryCut) {
  run({"abort", [](EngineHandle&, World&) {},
       [](wl_engine* e, World& w) { return wl_abort(e, w.d, w.ids[5]); }});
}

TEST(DeadHolderRecovery, AClientCloseIsUndoneAtEveryCut) {
  run({"close client", [](EngineHandle&, World&) {},
       [](wl_engine* e, World& w) { return wl_close_client(e, w.d); }});
}

TEST(DeadHolderRecovery, ClosingAnotherOwnersClientsIsUndoneAtEveryCut) {
  run({"close clients of owner 0", [](EngineHandle&, World&) {},
       [](wl_engine* e, World&) { return wl_close_clients_of_owner(e, 0); }});
}

TEST(DeadHolderRecovery, TakingEventsIsUndoneAtEveryCut) {
  run({"take events", [](EngineHandle&, World&) {},
       [](wl_engine* e, World& w) { wl_event_record out[4]; return wl_take_events(e, w.d, out, 4); }});
}

TEST(DeadHolderRecovery, OpeningAClientIsUndoneAtEveryCut) {
  run({"open client", [](EngineHandle&, World&) {},
       [](wl_engine* e, World&) { double h; const uint16_t id[] = {'n', 'e', 'w'}; return wl_open_client(e, id, 3, kDeadOwner, &h); }});
}

TEST(DeadHolderRecovery, GrowingTheTablesIsUndoneAtEveryCut) {
  // Setup fills the entry table's first chunk and the name table's first bucket array, so the
  // call allocates a new chunk, a larger directory and rehashes the names.
  run({"table growth",
       [](EngineHandle& engine, World& w) {
         wl_stats stats = engine.stats();
         for (uint32_t i = stats.names; i < 16; i++) engine.request(w.b, name_of("fill-" + std::to_string(i)), WL_SHARED);
         for (uint32_t i = engine.stats().entries; i < 256; i++) engine.request(w.b, u"fill-0", WL_SHARED);
       },
       [](wl_engine* e, World& w) { double id; const uint16_t n[] = {'g', 'r', 'o', 'w'}; return wl_request(e, w.d, n, 4, WL_EXCLUSIVE, WL_WAIT, &id); }});
}

TEST(DeadHolderRecovery, AnUntaggedHolderIsNeverTakenOver) {
  EngineHandle engine;
  auto* word = reinterpret_cast<uint32_t*>(engine.get());
  __atomic_store_n(word, WL_MUTEX_LOCKED, __ATOMIC_SEQ_CST);  // held by some live agent (tag 0)
  EXPECT_EQ(wl_close_clients_of_owner(engine.get(), kDeadOwner), WL_BUSY);
  EXPECT_EQ(wl_close_clients_of_owner(engine.get(), 0), WL_BUSY) << "owner 0 is never declared dead";
  __atomic_store_n(word, WL_MUTEX_UNLOCKED, __ATOMIC_SEQ_CST);
}

TEST(DeadHolderRecovery, ASnapshotInPiecesIsUndoneAtEveryCut) {
  // Setup leaves memory at its limit with every other large name released, so the snapshot is
  // gathered from many free blocks (a write for each).
  run({"snapshot in pieces",
       [](EngineHandle& engine, World& w) {
         ASSERT_EQ(wl_set_memory_limit(engine.get(), engine.stats().memory_bytes), 0);
         std::vector<double> ids;
         for (int i = 0;; i++) {
           RequestResult result = engine.request(w.b, name_of("piece-" + std::to_string(i) + std::string(300, '.')));
           if (result.status != WL_GRANTED) break;
           ids.push_back(result.id);
         }
         for (size_t i = 0; i < ids.size(); i += 2) engine.release(w.b, ids[i]);
       },
       [](wl_engine* e, World&) {
         wl_snapshot_piece* first = nullptr;
         int32_t size = wl_snapshot_pieces(e, &first);
         return size < 0 ? size : wl_free_snapshot(e, first);
       }});
}

// A waiter that learns from its platform that the holder is dead frees the mutex at once; the
// half-done call is undone and the owner's clients are closed later, with the same outcome.
TEST(DeadHolderRecovery, AWaiterFreesTheMutexOfADeadHolderAtEveryCut) {
  run({"release with grants", [](EngineHandle&, World&) {},
       [](wl_engine* e, World& w) { return wl_release(e, w.d, w.ids[6]); }},
      Recovery::kWaiterFreesMutexFirst);
  run({"request new name", [](EngineHandle&, World&) {},
       [](wl_engine* e, World& w) { double id; const uint16_t n[] = {'z'}; return wl_request(e, w.d, n, 1, WL_EXCLUSIVE, WL_WAIT, &id); }},
      Recovery::kWaiterFreesMutexFirst);
  run({"close client", [](EngineHandle&, World&) {},
       [](wl_engine* e, World& w) { return wl_close_client(e, w.d); }},
      Recovery::kWaiterFreesMutexFirst);
}

TEST(DeadHolderRecovery, AWaiterNeverFreesAMutexHeldByAnUntaggedOrLiveAgent) {
  EngineHandle engine;
  auto* word = reinterpret_cast<uint32_t*>(engine.get());
  __atomic_store_n(word, WL_MUTEX_LOCKED, __ATOMIC_SEQ_CST);  // held by an agent with tag 0
  EXPECT_EQ(wl_free_mutex_of_dead_owner(engine.get(), 0), 0) << "owner 0 is never declared dead";
  EXPECT_EQ(wl_free_mutex_of_dead_owner(engine.get(), kDeadOwner), 0);
  EXPECT_NE(__atomic_load_n(word, __ATOMIC_SEQ_CST), 0u);
  __atomic_store_n(word, WL_MUTEX_UNLOCKED, __ATOMIC_SEQ_CST);
  EXPECT_EQ(wl_free_mutex_of_dead_owner(engine.get(), kDeadOwner), 0) << "free: nothing to do";
  EXPECT_EQ(__atomic_load_n(word, __ATOMIC_SEQ_CST), 0u);
}

TEST(DeadHolderRecovery, AnAllocationThatMergesFreeBlocksIsUndoneAtEveryCut) {
  // Setup frees many small neighbouring blocks (names and queue records) under a memory limit, so
  // the call's long name is only found by merging them (src/arena.cpp, merge_free_blocks).
  run({"request merging free blocks",
       [](EngineHandle& engine, World&) {
         ASSERT_EQ(wl_set_memory_limit(engine.get(), engine.stats().memory_bytes + 4 * 65536), 0);
         double filler = engine.open(u"filler");
         for (int i = 0;; i++) {
           RequestResult result = engine.request(filler, name_of("m-" + std::to_string(i) + std::string(100, '.')));
           if (result.status != WL_GRANTED) break;
         }
         engine.close(filler);  // one call frees them all: the next call begins with a merge pass
         ASSERT_TRUE(wl::arena_merge_due(&reinterpret_cast<wl::Engine*>(engine.get())->arena));
       },
       [](wl_engine* e, World& w) {
         std::vector<uint16_t> name(16000, 'L');
         double id;
         return wl_request(e, w.d, name.data(), static_cast<uint32_t>(name.size()), WL_EXCLUSIVE, WL_WAIT, &id);
       }});
}

TEST(DeadHolderRecovery, ABlockTheCallFreedIsNotReusedByItBeforeItEnds) {
  // The name table grows (16 to 32 buckets: the old 128-byte bucket array is freed) in a request
  // whose new name is 64 units, also 128 bytes. Had the call reused the old array for the name, a
  // cut after the name was copied would leave the restored table pointing at the name's bytes.
  run({"table growth, name the size of the old buckets",
       [](EngineHandle& engine, World& w) {
         wl_stats stats = engine.stats();
         for (uint32_t i = stats.names; i < 16; i++) engine.request(w.b, name_of("fill-" + std::to_string(i)), WL_SHARED);
         ASSERT_EQ(reinterpret_cast<wl::Engine*>(engine.get())->names.bucket_count, 16u);
       },
       [](wl_engine* e, World& w) {
         std::vector<uint16_t> name(16 * sizeof(void*) / 2, 'n');
         double id;
         return wl_request(e, w.d, name.data(), static_cast<uint32_t>(name.size()), WL_EXCLUSIVE, WL_WAIT, &id);
       }});
}

TEST(DeadHolderRecovery, ReplacingANameBufferIsUndoneAtEveryCut) {
  run({"name buffer",
       [](EngineHandle& engine, World& w) {
         uint16_t* buffer = nullptr;
         ASSERT_EQ(wl_name_buffer(engine.get(), w.d, 100, &buffer), 0);
       },
       [](wl_engine* e, World& w) { uint16_t* buffer = nullptr; return wl_name_buffer(e, w.d, 5000, &buffer); }});
}

// The event inbox is a chain of segments (src/state.h, InboxSegment): a call that takes a new
// segment, posts across a segment's end, or gives read and surplus segments back.
namespace {
wl::Client* client_of(EngineHandle& engine, double handle) {
  return reinterpret_cast<wl::Engine*>(engine.get())->clients.find(handle);
}
uint32_t room_of(const wl::Client* client) {
  constexpr uint32_t kEvents = wl::InboxSegment::kEvents;
  return (client->inbox_tail ? kEvents - client->inbox_tail_index : 0) + client->inbox_spare_count * kEvents;
}
// The dying owner's client stays open when a waiter frees the mutex first: its inbox is checked
// as the rollback left it, before its owner's clients are closed.
void run_both(const Scenario& scenario) {
  run(scenario);
  if (!::testing::Test::HasFatalFailure()) run(scenario, Recovery::kWaiterFreesMutexFirst);
}
}  // namespace

TEST(DeadHolderRecovery, ARequestWhoseInboxGrowsByASegmentIsUndoneAtEveryCut) {
  run_both({"request growing the inbox by a segment",
       [](EngineHandle& engine, World& w) {
         wl::Client* d = client_of(engine, w.d);
         for (int i = 0; room_of(d) >= 2 * (d->entry_count + 1); i++) engine.request(w.d, name_of("seg-" + std::to_string(i)));
         ASSERT_GT(d->inbox_spare_count + (d->inbox_tail != nullptr), 0u);
       },
       [](wl_engine* e, World& w) { double id; const uint16_t n[] = {'z'}; return wl_request(e, w.d, n, 1, WL_EXCLUSIVE, WL_WAIT, &id); }});
}

TEST(DeadHolderRecovery, AReleaseWhoseGrantsFillSeveralInboxSegmentsIsUndoneAtEveryCut) {
  // b waits with 40 shared requests behind a's lock: the release posts 40 events to b, after the
  // 4 it has not taken yet, across the ends of three segments (b's events are observed).
  run_both({"release posting across inbox segments",
       [](EngineHandle& engine, World& w) {
         double before = engine.request(w.a, u"before").id;
         for (int i = 0; i < 4; i++) ASSERT_EQ(engine.request(w.b, u"before", WL_SHARED).status, WL_QUEUED);
         ASSERT_EQ(engine.release(w.a, before), 1);
         ASSERT_EQ(client_of(engine, w.b)->header.inbox_count, 4u);
         w.ids.push_back(engine.request(w.a, u"many").id);  // 9
         for (int i = 0; i < 40; i++) ASSERT_EQ(engine.request(w.b, u"many", WL_SHARED).status, WL_QUEUED);
       },
       [](wl_engine* e, World& w) { return wl_release(e, w.a, w.ids[9]); }});
}

TEST(DeadHolderRecovery, TakingEventsThatGivesSegmentsBackIsUndoneAtEveryCut) {
  // d has 40 undelivered grants in three segments and holds only 10 locks once most are
  // released: taking the events moves the read segments to its spares and frees those beyond need.
  run_both({"take events across segments, freeing spares",
       [](EngineHandle& engine, World& w) {
         double many = engine.request(w.a, u"many").id;
         std::vector<double> ids;
         for (int i = 0; i < 40; i++) ids.push_back(engine.request(w.d, u"many", WL_SHARED).id);
         ASSERT_EQ(engine.release(w.a, many), 1);
         for (int i = 0; i < 30; i++) ASSERT_EQ(engine.release(w.d, ids[i]), 1);
         wl::Client* d = client_of(engine, w.d);
         ASSERT_NE(d->inbox_head, d->inbox_tail) << "the events span segments";
         ASSERT_GT(d->header.inbox_count, 30u);
       },
       [](wl_engine* e, World& w) { wl_event_record out[64]; return wl_take_events(e, w.d, out, 64); }});
}

TEST(DeadHolderRecovery, AReleaseThatGivesASpareInboxSegmentBackIsUndoneAtEveryCut) {
  // d holds 30 more locks, then releases them until its next release leaves more than two
  // segments of room beyond what its entries may still cause: that release frees a spare.
  run_both({"release freeing a spare inbox segment",
            [](EngineHandle& engine, World& w) {
              std::vector<double> ids;
              for (int i = 0; i < 30; i++) ids.push_back(engine.request(w.d, name_of("spare-" + std::to_string(i))).id);
              wl::Client* d = client_of(engine, w.d);
              constexpr uint32_t kEvents = wl::InboxSegment::kEvents;
              while (room_of(d) < 2 * (d->entry_count - 1) + 2 * kEvents) {
                ASSERT_EQ(engine.release(w.d, ids.back()), 1);
                ids.pop_back();
              }
              ASSERT_GT(d->inbox_spare_count, 0u);
              w.ids.push_back(ids.back());  // 9
            },
            [](wl_engine* e, World& w) { return wl_release(e, w.d, w.ids[9]); }});
}
