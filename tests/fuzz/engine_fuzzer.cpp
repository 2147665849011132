// libFuzzer target on the engine's C ABI (include/weblocks/engine.h): the input bytes are decoded
// into operations (clients opening and closing, requests with every mode and wait mode, releases,
// aborts, snapshots, a memory cap, huge names) applied to the engine and to a small reference
// model of the spec written here (not the engine's code). After every operation the harness
// asserts what the spec and the ABI promise:
//   - each return value, request status and the events each client receives match the model;
//   - mutual exclusion per name and no request waiting for nothing (from the engine's snapshot);
//   - the snapshot matches the model per name (holders in grant order, pending in queue order);
//   - stats (clients, entries, names) match the model;
//   - an error (WL_NO_MEMORY) leaves the engine exactly as it was: same snapshot, no events;
//   - at the end, with every client closed, the engine is empty.
// Any failed assertion prints what differed and aborts (libFuzzer saves the input as a crash).
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <deque>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "weblocks/engine.h"
#include "weblocks/layout.h"

namespace {

#define CHECK(cond, ...)                                   \
  do {                                                     \
    if (!(cond)) {                                         \
      fprintf(stderr, "INVARIANT BROKEN: %s\n  ", #cond);  \
      fprintf(stderr, __VA_ARGS__);                        \
      fprintf(stderr, "\n");                               \
      abort();                                             \
    }                                                      \
  } while (0)

using Name = std::u16string;
const uint16_t* units(const Name& s) { return reinterpret_cast<const uint16_t*>(s.data()); }
constexpr int kSlots = 8;

// Names that break naive code: empty, NUL, lone surrogates, prefixes of each other, long.
const std::vector<Name>& name_pool() {
  static const std::vector<Name> pool = {
      u"a", u"b", u"", Name(1, u'\0'), Name(1, char16_t(0xD800)), u"a ", u"ab", Name(300, u'x'),
  };
  return pool;
}

class Input {
 public:
  Input(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  bool empty() const { return pos_ >= size_; }
  uint8_t byte() { return pos_ < size_ ? data_[pos_++] : 0; }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

// ---- the reference model: the spec's queue map and held lock set, per name ----
struct Item {
  double id;
  int slot;
  uint32_t mode;
};
struct ModelQueue {
  std::vector<Item> held;     // grant order
  std::deque<Item> pending;   // the spec's lock request queue
};
using Event = std::pair<uint32_t, double>;

struct Model {
  std::map<Name, ModelQueue> queues;
  std::vector<Event> expected[kSlots];
  int terminating = -1;
  double granted_now = -1;

  static bool compatible(const ModelQueue& q, uint32_t mode) {
    if (mode == WL_EXCLUSIVE) return q.held.empty();
    return std::none_of(q.held.begin(), q.held.end(), [](const Item& i) { return i.mode == WL_EXCLUSIVE; });
  }
  // 4.4: grant from the front while the first request is grantable (2.5 step 7).
  void process(ModelQueue& q) {
    while (!q.pending.empty() && compatible(q, q.pending.front().mode)) {
      Item item = q.pending.front();
      q.pending.pop_front();
      q.held.push_back(item);
      if (item.id != granted_now && item.slot != terminating) expected[item.slot].push_back({WL_EVENT_GRANTED, item.id});
    }
  }
  // 4.1 (steal: 2.4, ifAvailable: 2.5.1); returns the status.
  int32_t request(int slot, const Name& name, uint32_t mode, uint32_t wait, double id) {
    ModelQueue& q = queues[name];
    if (wait == WL_PREEMPT) {
      for (const Item& h : q.held) expected[h.slot].push_back({WL_EVENT_STOLEN, h.id});
      q.held.clear();
      q.pending.push_front({id, slot, mode});
    } else {
      if (wait == WL_NO_WAIT && !(q.pending.empty() && compatible(q, mode))) return WL_NOT_AVAILABLE;
      q.pending.push_back({id, slot, mode});
    }
    granted_now = id;
    process(q);
    granted_now = -1;
    for (const Item& h : q.held)
      if (h.id == id) return WL_GRANTED;
    return WL_QUEUED;
  }
  int32_t release(int slot, double id) {  // 4.2
    for (auto& [name, q] : queues)
      for (size_t i = 0; i < q.held.size(); i++)
        if (q.held[i].id == id && q.held[i].slot == slot) {
          q.held.erase(q.held.begin() + i);
          process(q);
          return 1;
        }
    return 0;
  }
  int32_t abort_request(int slot, double id) {  // 4.3
    for (auto& [name, q] : queues)
      for (size_t i = 0; i < q.pending.size(); i++)
        if (q.pending[i].id == id && q.pending[i].slot == slot) {
          q.pending.erase(q.pending.begin() + i);
          process(q);
          return 1;
        }
    return 0;
  }
  // 2.6: abort the agent's requests, then release its locks (per name the effects are independent).
  void terminate(int slot) {
    terminating = slot;
    for (auto& [name, q] : queues) {
      for (size_t i = 0; i < q.pending.size();)
        if (q.pending[i].slot == slot) {
          q.pending.erase(q.pending.begin() + i);
          process(q);
          i = 0;
        } else {
          i++;
        }
      for (size_t i = 0; i < q.held.size();)
        if (q.held[i].slot == slot) {
          q.held.erase(q.held.begin() + i);
          process(q);
          i = 0;
        } else {
          i++;
        }
    }
    terminating = -1;
    expected[slot].clear();
  }
  uint32_t entries() const {
    uint32_t n = 0;
    for (auto& [name, q] : queues) n += q.held.size() + q.pending.size();
    return n;
  }
  uint32_t live_names() const {
    uint32_t n = 0;
    for (auto& [name, q] : queues) n += (!q.held.empty() || !q.pending.empty());
    return n;
  }
};

// ---- a decoded engine snapshot, per name ----
struct SnapshotEntry {
  uint32_t mode;
  Name client_id;
  bool operator==(const SnapshotEntry& o) const { return mode == o.mode && client_id == o.client_id; }
};
struct SnapshotName {
  std::vector<SnapshotEntry> held, pending;
  bool operator==(const SnapshotName& o) const { return held == o.held && pending == o.pending; }
};

std::vector<uint8_t> raw_snapshot(wl_engine* engine) {
  static std::vector<uint8_t> scratch(4096);
  int32_t size;
  for (;;) {
    size = wl_snapshot(engine, scratch.data(), scratch.size());
    CHECK(size >= 8, "wl_snapshot returned %d", size);
    if (size_t(size) <= scratch.size()) break;
    scratch.resize(size);
  }
  std::vector<uint8_t> raw(scratch.begin(), scratch.begin() + size);
  // The same snapshot in engine memory (wl_snapshot_pieces, one block or a chain of free blocks):
  // byte-identical, or NO_MEMORY under a memory cap. Given back at once.
  wl_snapshot_piece* first = nullptr;
  int32_t pieces_size = wl_snapshot_pieces(engine, &first);
  if (pieces_size != WL_NO_MEMORY) {
    CHECK(pieces_size == size, "wl_snapshot_pieces returned %d, wl_snapshot %d", pieces_size, size);
    std::vector<uint8_t> joined;
    for (wl_snapshot_piece* piece = first; piece;
         piece = reinterpret_cast<wl_snapshot_piece*>(static_cast<uintptr_t>(piece->next))) {
      const uint8_t* payload = reinterpret_cast<const uint8_t*>(piece + 1);
      joined.insert(joined.end(), payload, payload + piece->bytes);
    }
    CHECK(joined == raw, "snapshot pieces differ from wl_snapshot (%zu bytes vs %zu)", joined.size(), raw.size());
    CHECK(wl_free_snapshot(engine, first) == 0, "wl_free_snapshot failed");
  }
  return raw;
}

std::map<Name, SnapshotName> decode(const std::vector<uint8_t>& raw) {
  std::map<Name, SnapshotName> out;
  wl_snapshot_header header;
  memcpy(&header, raw.data(), sizeof header);
  size_t pos = sizeof header;
  for (uint32_t i = 0; i < header.held_count + header.pending_count; i++) {
    CHECK(pos + sizeof(wl_snapshot_record) <= raw.size(), "snapshot record %u out of bounds", i);
    wl_snapshot_record record;
    memcpy(&record, raw.data() + pos, sizeof record);
    pos += sizeof record;
    size_t units = size_t(record.name_length) + record.client_id_length;
    CHECK(pos + units * 2 <= raw.size(), "snapshot strings of record %u out of bounds", i);
    Name name(record.name_length, u'\0'), client(record.client_id_length, u'\0');
    memcpy(name.data(), raw.data() + pos, record.name_length * 2);
    memcpy(client.data(), raw.data() + pos + record.name_length * 2, record.client_id_length * 2);
    pos += units * 2;
    pos = (pos + 3) & ~size_t(3);
    CHECK(record.mode == WL_EXCLUSIVE || record.mode == WL_SHARED, "snapshot mode %u", record.mode);
    auto& entry = out[name];
    (i < header.held_count ? entry.held : entry.pending).push_back({record.mode, client});
  }
  return out;
}

struct Slot {
  bool open = false;
  double handle = 0;
  Name client_id;
};

class Harness {
 public:
  Harness() : engine_(wl_engine_create()) { CHECK(engine_, "wl_engine_create failed"); }
  ~Harness() { wl_engine_destroy(engine_); }

  void run(Input& in) {
    if (in.byte() & 1) {
      // A tight memory cap: exhaustion paths (WL_NO_MEMORY) get exercised.
      double cap = 65536.0 * (1 + (in.byte() % 8));
      CHECK(wl_set_memory_limit(engine_, cap) == 0, "wl_set_memory_limit");
      capped_ = true;
    }
    while (!in.empty()) {
      step(in);
      check_events();
      check_state();
    }
    if (capped_) wl_set_memory_limit(engine_, 0);
    for (int s = 0; s < kSlots; s++)
      if (slots_[s].open) close(s);
    check_events();
    check_state();
    wl_stats stats;
    wl_get_stats(engine_, &stats);
    CHECK(stats.clients == 0 && stats.entries == 0 && stats.names == 0, "not empty at the end: %u clients, %u entries, %u names",
          stats.clients, stats.entries, stats.names);
  }

 private:
  void step(Input& in) {
    uint8_t op = in.byte(), arg = in.byte();
    int s = arg % kSlots;
    switch (op % 12) {
      case 0: open(s, in.byte()); break;
      case 1: if (slots_[s].open) close(s); break;
      case 2: close_owner(1 + (arg >> 3) % 3); break;
      case 3: case 4: case 5: case 6:
        if (slots_[s].open) request(s, name_pool()[in.byte() % name_pool().size()], (arg >> 3) & 1, (arg >> 4) % 3);
        break;
      case 7: case 8: if (slots_[s].open) release_or_abort(s, pick_id(in.byte()), true); break;
      case 9: if (slots_[s].open) release_or_abort(s, pick_id(in.byte()), false); break;
      case 10:
        if (slots_[s].open) {  // a fuzzed name, sometimes a huge one
          uint8_t length = in.byte();
          Name name;
          if (length == 255) name.assign(size_t(1) << 12, char16_t(0x41 + in.byte() % 3));
          for (int i = 0; i < length % 24 && !in.empty(); i++) name.push_back(char16_t(in.byte() | (in.byte() << 8)));
          request(s, name, (arg >> 3) & 1, (arg >> 4) % 3);
        }
        break;
      default: break;  // a snapshot: check_state runs after every operation anyway
    }
  }

  double pick_id(uint8_t b) {
    if (ids_.empty() || b == 255) return 12345678.0 + b;  // an id that was never issued
    return ids_[b % ids_.size()];
  }

  void open(int s, uint8_t b) {
    if (slots_[s].open) return;
    Name client_id = u"client-";
    client_id.push_back(char16_t(u'0' + s));
    if (b & 1) client_id.push_back(char16_t(0xDC00));  // a lone surrogate in a clientId
    uint32_t owner = 1 + (b >> 1) % 3;
    auto before = raw_snapshot(engine_);
    double handle = -1;
    int32_t r = wl_open_client(engine_, units(client_id), client_id.size(), owner, &handle);
    if (r == WL_NO_MEMORY) return expect_unchanged(before, "wl_open_client");
    CHECK(r == 0, "wl_open_client returned %d", r);
    for (int t = 0; t < kSlots; t++) CHECK(!slots_[t].open || slots_[t].handle != handle, "handle %.0f reused while open", handle);
    CHECK(std::find(handles_.begin(), handles_.end(), handle) == handles_.end(), "handle %.0f reused", handle);
    handles_.push_back(handle);
    slots_[s] = {true, handle, client_id};
    owners_[s] = owner;
  }

  void close(int s) {
    CHECK(wl_close_client(engine_, slots_[s].handle) == 0, "wl_close_client");
    model_.terminate(s);
    drain(s);  // its inbox is gone: nothing must be delivered to the closed handle
    slots_[s].open = false;
    double probe = 0;
    CHECK(wl_release(engine_, slots_[s].handle, probe) <= 0, "a closed client can still release");
  }

  void close_owner(uint32_t owner) {
    int expected = 0;
    for (int s = 0; s < kSlots; s++)
      if (slots_[s].open && owners_[s] == owner) expected++;
    int32_t closed = wl_close_clients_of_owner(engine_, owner);
    CHECK(closed == expected, "wl_close_clients_of_owner(%u) closed %d, expected %d", owner, closed, expected);
    for (int s = 0; s < kSlots; s++)
      if (slots_[s].open && owners_[s] == owner) {
        model_.terminate(s);
        slots_[s].open = false;
      }
  }

  void request(int s, const Name& name, uint32_t mode, uint32_t wait) {
    if (wait == WL_PREEMPT && mode == WL_SHARED) {
      double id = -1;
      auto before = raw_snapshot(engine_);
      int32_t r = wl_request(engine_, slots_[s].handle, units(name), name.size(), mode, wait, &id);
      CHECK(r == WL_BAD_ARGUMENT, "steal with shared mode returned %d, expected WL_BAD_ARGUMENT", r);
      return expect_unchanged(before, "a rejected steal");
    }
    auto before = capped_ || name.size() > 1000 ? raw_snapshot(engine_) : std::vector<uint8_t>();
    double id = -1;
    int32_t r = wl_request(engine_, slots_[s].handle, units(name), name.size(), mode, wait, &id);
    if (r == WL_NO_MEMORY) {
      CHECK(capped_ || name.size() > 1000, "WL_NO_MEMORY without a memory cap");
      return expect_unchanged(before, "wl_request");
    }
    CHECK(r == WL_GRANTED || r == WL_QUEUED || r == WL_NOT_AVAILABLE, "wl_request returned %d", r);
    if (r != WL_NOT_AVAILABLE) {
      CHECK(std::find(ids_.begin(), ids_.end(), id) == ids_.end(), "request id %.0f reused", id);
      ids_.push_back(id);
    }
    int32_t expected = model_.request(s, name, mode, wait, id);
    CHECK(r == expected, "request (mode %u wait %u, name length %zu) status %d, model says %d", mode, wait, name.size(), r, expected);
  }

  void release_or_abort(int s, double id, bool release) {
    int32_t r = release ? wl_release(engine_, slots_[s].handle, id) : wl_abort(engine_, slots_[s].handle, id);
    int32_t expected = release ? model_.release(s, id) : model_.abort_request(s, id);
    CHECK(r == expected, "%s(slot %d, id %.0f) returned %d, model says %d", release ? "release" : "abort", s, id, r, expected);
  }

  std::vector<Event> drain(int s) {
    std::vector<Event> events;
    wl_event_record records[4];
    for (;;) {
      int32_t n = wl_take_events(engine_, slots_[s].handle, records, 4);
      if (n <= 0) break;
      for (int i = 0; i < n; i++) events.push_back({records[i].type, records[i].id});
      if (n < 4) break;
    }
    return events;
  }

  void check_events() {
    for (int s = 0; s < kSlots; s++) {
      if (!slots_[s].open) continue;
      auto actual = drain(s);
      auto expected = std::move(model_.expected[s]);
      model_.expected[s].clear();
      std::sort(actual.begin(), actual.end());
      std::sort(expected.begin(), expected.end());
      if (actual != expected) {
        fprintf(stderr, "events of slot %d:\n  engine:", s);
        for (auto& [t, id] : actual) fprintf(stderr, " %s:%.0f", t == WL_EVENT_GRANTED ? "granted" : "stolen", id);
        fprintf(stderr, "\n  model: ");
        for (auto& [t, id] : expected) fprintf(stderr, " %s:%.0f", t == WL_EVENT_GRANTED ? "granted" : "stolen", id);
        fprintf(stderr, "\n");
        CHECK(false, "events differ");
      }
    }
  }

  void check_state() {
    auto snapshot = decode(raw_snapshot(engine_));
    for (auto& [name, entry] : snapshot) {
      // Mutual exclusion, from the engine's own report.
      size_t exclusive = std::count_if(entry.held.begin(), entry.held.end(), [](auto& e) { return e.mode == WL_EXCLUSIVE; });
      CHECK(exclusive == 0 || entry.held.size() == 1, "name of length %zu held by %zu locks, %zu exclusive", name.size(), entry.held.size(), exclusive);
    }
    std::map<Name, SnapshotName> expected;
    for (auto& [name, q] : model_.queues) {
      if (q.held.empty() && q.pending.empty()) continue;
      auto& e = expected[name];
      for (auto& i : q.held) e.held.push_back({i.mode, slots_[i.slot].client_id});
      for (auto& i : q.pending) e.pending.push_back({i.mode, slots_[i.slot].client_id});
    }
    CHECK(snapshot == expected, "snapshot differs from the model (%zu names vs %zu)", snapshot.size(), expected.size());
    wl_stats stats;
    CHECK(wl_get_stats(engine_, &stats) == 0, "wl_get_stats");
    uint32_t open = 0;
    for (auto& slot : slots_) open += slot.open;
    CHECK(stats.clients == open, "stats: %u clients, model %u", stats.clients, open);
    CHECK(stats.entries == model_.entries(), "stats: %u entries, model %u", stats.entries, model_.entries());
    CHECK(stats.names == model_.live_names(), "stats: %u names, model %u", stats.names, model_.live_names());
  }

  void expect_unchanged(const std::vector<uint8_t>& before, const char* what) {
    CHECK(raw_snapshot(engine_) == before, "%s failed but changed the lock state", what);
    for (int s = 0; s < kSlots; s++)
      if (slots_[s].open) CHECK(drain(s).empty(), "%s failed but delivered events", what);
  }

  wl_engine* engine_;
  Model model_;
  Slot slots_[kSlots];
  uint32_t owners_[kSlots] = {};
  std::vector<double> ids_, handles_;
  bool capped_ = false;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Input in(data, size);
  Harness harness;
  harness.run(in);
  return 0;
}
