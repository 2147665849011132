// A multi-thread stress of the native engine, built with ThreadSanitizer (ctest:
// engine_stress_under_thread_sanitizer). Threads make random requests (wait / no-wait / steal,
// exclusive / shared), releases, aborts and client closes on a few names. After every step the
// thread checks the invariant on a snapshot: no exclusive holder coexists with another holder of
// its name. At the end every request must have been granted, aborted, reported not available,
// stolen, or dropped with its closed client; nothing may be left pending or held.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "weblocks/engine.h"

namespace {

constexpr int kThreads = 4;
constexpr int kStepsPerThread = 20000;
constexpr int kNames = 3;

std::atomic<int> failures{0};

void fail(const char* what, long detail = 0) {
  std::fprintf(stderr, "stress: %s (%ld)\n", what, detail);
  failures.fetch_add(1);
}

template <class Call>
int32_t retry(wl_engine* engine, Call call) {
  int32_t result;
  while ((result = call()) == WL_BUSY) wl_wait_for_mutex(engine);
  return result;
}

// Checks the invariant on a consistent snapshot (taken under the engine mutex).
void check_snapshot(wl_engine* engine, std::vector<unsigned char>& buffer) {
  int32_t size;
  for (;;) {
    size = retry(engine, [&] { return wl_snapshot(engine, buffer.data(), static_cast<uint32_t>(buffer.size())); });
    if (size < 0) return fail("snapshot failed", size);
    if (static_cast<size_t>(size) <= buffer.size()) break;
    buffer.resize(size * 2);
  }
  wl_snapshot_header header;
  std::memcpy(&header, buffer.data(), sizeof header);
  std::map<std::u16string, std::pair<int, int>> holders;  // name -> (exclusive, shared)
  size_t at = sizeof header;
  for (uint32_t i = 0; i < header.held_count; i++) {
    wl_snapshot_record record;
    std::memcpy(&record, buffer.data() + at, sizeof record);
    at += sizeof record;
    std::u16string name(record.name_length, u'\0');
    std::memcpy(name.data(), buffer.data() + at, 2 * record.name_length);
    at += ((record.name_length + record.client_id_length) * 2 + 3) / 4 * 4;
    auto& count = holders[name];
    (record.mode == WL_EXCLUSIVE ? count.first : count.second)++;
  }
  for (auto& [name, count] : holders)
    if (count.first > 1 || (count.first == 1 && count.second > 0))
      fail("an exclusive holder coexists with another holder", count.first * 100 + count.second);
}

struct Request {
  double id;
  bool held;
};

struct Tally {
  long granted_now = 0, granted_later = 0, not_available = 0, aborted = 0, released = 0, stolen = 0,
       dropped_by_close = 0, made = 0;
};

class Agent {
 public:
  Agent(wl_engine* engine, int index) : engine_(engine), index_(index), random_(1234 + index) { open(); }

  void open() {
    std::u16string id = u"thread-";
    id += static_cast<char16_t>(u'0' + index_);
    if (retry(engine_, [&] {
          return wl_open_client(engine_, reinterpret_cast<const uint16_t*>(id.data()),
                                static_cast<uint32_t>(id.size()), static_cast<uint32_t>(index_), &client_);
        }) != 0)
      fail("open failed");
  }

  void take_events() {
    wl_event_record records[16];
    for (;;) {
      int32_t count = retry(engine_, [&] { return wl_take_events(engine_, client_, records, 16); });
      if (count < 0) return fail("take events failed", count);
      for (int32_t i = 0; i < count; i++) apply(records[i]);
      if (count < 16) return;
    }
  }

  void apply(const wl_event_record& event) {
    auto it = requests_.find(event.id);
    if (it == requests_.end()) return fail("event for an unknown id", event.type);
    if (event.type == WL_EVENT_GRANTED) {
      if (it->second.held) fail("granted twice");
      it->second.held = true;
      tally.granted_later++;
    } else if (event.type == WL_EVENT_STOLEN) {
      if (!it->second.held) fail("stolen while not held");
      requests_.erase(it);
      tally.stolen++;
    }
  }

  void step() {
    take_events();
    int choice = static_cast<int>(random_() % 100);
    if (choice < 45 || requests_.empty()) {
      make_request();
    } else if (choice < 75) {
      release_one();
    } else if (choice < 93) {
      abort_one();
    } else if (choice < 98) {
      std::this_thread::yield();
    } else {
      close_and_reopen();
    }
  }

  void make_request() {
    char16_t name[] = {u'n', static_cast<char16_t>(u'0' + random_() % kNames)};
    uint32_t mode = random_() % 2 ? WL_SHARED : WL_EXCLUSIVE;
    uint32_t wait = random_() % 10 < 7 ? WL_WAIT : (random_() % 2 ? WL_NO_WAIT : WL_PREEMPT);
    if (wait == WL_PREEMPT) mode = WL_EXCLUSIVE;
    double id = 0;
    int32_t status = retry(engine_, [&] {
      return wl_request(engine_, client_, reinterpret_cast<const uint16_t*>(name), 2, mode, wait, &id);
    });
    tally.made++;
    if (status == WL_GRANTED) {
      requests_[id] = {id, true};
      tally.granted_now++;
    } else if (status == WL_QUEUED) {
      if (wait != WL_WAIT) fail("a no-wait or steal request was queued");
      requests_[id] = {id, false};
    } else if (status == WL_NOT_AVAILABLE) {
      if (wait != WL_NO_WAIT) fail("not available without no-wait");
      tally.not_available++;
    } else {
      fail("request failed", status);
    }
  }

  Request* pick(bool held) {
    std::vector<Request*> matching;
    for (auto& [id, request] : requests_)
      if (request.held == held) matching.push_back(&request);
    if (matching.empty()) return nullptr;
    return matching[random_() % matching.size()];
  }

  void release_one() {
    Request* request = pick(true);
    if (!request) return;
    double id = request->id;
    int32_t released = retry(engine_, [&] { return wl_release(engine_, client_, id); });
    if (released == 1) {
      tally.released++;
      requests_.erase(id);
    } else if (released == 0) {
      // Stolen meanwhile: the stolen event must be in the inbox.
      take_events();
      if (requests_.count(id)) fail("release found nothing but no stolen event came");
    } else {
      fail("release failed", released);
    }
  }

  void abort_one() {
    Request* request = pick(false);
    if (!request) return;
    double id = request->id;
    int32_t aborted = retry(engine_, [&] { return wl_abort(engine_, client_, id); });
    if (aborted == 1) {
      tally.aborted++;
      requests_.erase(id);
    } else if (aborted == 0) {
      take_events();  // granted meanwhile: the grant event must be there
      auto it = requests_.find(id);
      if (it != requests_.end() && !it->second.held) fail("abort found nothing but no grant event came");
    } else {
      fail("abort failed", aborted);
    }
  }

  void close_and_reopen() {
    if (retry(engine_, [&] { return wl_close_client(engine_, client_); }) != 0) fail("close failed");
    tally.dropped_by_close += static_cast<long>(requests_.size());
    requests_.clear();
    open();
  }

  // The end: stop requesting; release what is held, wait (doorbell) for what is pending.
  void drain() {
    wl_client_header* header = nullptr;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (!requests_.empty()) {
      if (retry(engine_, [&] { return wl_client_header_address(engine_, client_, &header); }) != 0)
        return fail("header failed");
      uint32_t seen = __atomic_load_n(&header->doorbell, __ATOMIC_SEQ_CST);
      take_events();
      for (auto it = requests_.begin(); it != requests_.end();) {
        if (!it->second.held) {
          ++it;
          continue;
        }
        double id = it->first;
        int32_t released = retry(engine_, [&] { return wl_release(engine_, client_, id); });
        if (released == 1) tally.released++;
        it = released == 1 ? requests_.erase(it) : std::next(it);
      }
      if (requests_.empty()) break;
      bool any_pending = false;
      for (auto& entry : requests_) any_pending |= !entry.second.held;
      if (any_pending) wl_wait_for_doorbell(header, seen);
      if (std::chrono::steady_clock::now() > deadline) return fail("a request was never granted", static_cast<long>(requests_.size()));
    }
  }

  void close() {
    if (retry(engine_, [&] { return wl_close_client(engine_, client_); }) != 0) fail("final close failed");
  }

  Tally tally;

 private:
  wl_engine* engine_;
  int index_;
  std::mt19937 random_;
  double client_ = 0;
  std::map<double, Request> requests_;
};

}  // namespace

int main() {
  wl_engine* engine = wl_engine_create();
  std::atomic<int> drained{0};
  std::vector<Tally> tallies(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; t++) {
    threads.emplace_back([&, t] {
      Agent agent(engine, t);
      std::vector<unsigned char> buffer(4096);
      for (int i = 0; i < kStepsPerThread && failures.load() == 0; i++) {
        agent.step();
        check_snapshot(engine, buffer);
      }
      agent.drain();
      check_snapshot(engine, buffer);
      // Keep the client open until everyone has drained: a closing client would grant others
      // without them asking, which is fine, but the count below wants each thread's own story.
      drained.fetch_add(1);
      while (drained.load() < kThreads) {
        agent.take_events();  // late grants after others' releases are released at once
        agent.drain();
        std::this_thread::yield();
      }
      agent.close();
      tallies[t] = agent.tally;
    });
  }
  for (auto& thread : threads) thread.join();

  wl_stats stats{};
  retry(engine, [&] { return wl_get_stats(engine, &stats); });
  if (stats.entries != 0) fail("entries left behind", stats.entries);
  if (stats.clients != 0) fail("clients left open", stats.clients);
  if (stats.names != 0) fail("names left behind", stats.names);

  Tally total;
  for (const Tally& t : tallies) {
    total.made += t.made;
    total.granted_now += t.granted_now;
    total.granted_later += t.granted_later;
    total.not_available += t.not_available;
    total.aborted += t.aborted;
    total.released += t.released;
    total.stolen += t.stolen;
    total.dropped_by_close += t.dropped_by_close;
  }
  // Every request ended in exactly one way.
  long pending_ended = total.aborted;
  long outcomes = total.not_available + total.granted_now + total.granted_later + pending_ended;
  long granted = total.granted_now + total.granted_later;
  long held_ended = total.released + total.stolen;
  std::printf(
      "stress: %d threads, %ld requests: %ld granted at once, %ld granted later, %ld not available, "
      "%ld aborted, %ld released, %ld stolen, %ld dropped by close\n",
      kThreads, total.made, total.granted_now, total.granted_later, total.not_available, total.aborted,
      total.released, total.stolen, total.dropped_by_close);
  // Requests dropped by a close were either held or pending; everything else is accounted for.
  if (outcomes + total.dropped_by_close < total.made) fail("requests without an outcome", total.made - outcomes);
  if (held_ended > granted) fail("more locks ended than were granted", held_ended - granted);
  if (total.granted_later == 0 || total.stolen == 0 || total.not_available == 0 || total.aborted == 0)
    fail("the stress did not exercise every path");
  wl_engine_destroy(engine);
  if (failures.load()) {
    std::printf("stress: %d failures\n", failures.load());
    return 1;
  }
  std::printf("stress: 1 passed, 0 failed\n");
  return 0;
}
