// Certain deadlocks: a cycle of waits made inside held locks. A request made inside the callback
// of a lock its client holds (Entry::under) keeps that lock held while it waits; if what it waits
// for is held by a client whose callback waits, inside that lock, for something held ... by the
// first lock, no lock of the cycle is ever released. Searched when such a request would wait.
#include "algorithms.h"

namespace wl {

namespace {

double id_of(const Entry* entry) { return SlotTable<Entry>::name_of(entry); }

// Spec 2.5: a held lock blocks a request of `mode` if either is exclusive.
bool blocks(const Entry* held, uint32_t mode) { return mode == WL_EXCLUSIVE || held->mode == WL_EXCLUSIVE; }

// The search's state: the held locks visited, in the order found, each with the index of the one
// whose holder's inner request it blocks (-1: it blocks the new request) and that request.
struct Search {
  uint32_t count = 0;
  Entry* held[Cycle::kMaxHeld];
  int32_t parent[Cycle::kMaxHeld];
  Entry* via[Cycle::kMaxHeld];

  bool visited(const Entry* entry) const {
    for (uint32_t i = 0; i < count; i++)
      if (held[i] == entry) return true;
    return false;
  }
  // False when the search is full (it stops: no cycle reported).
  bool add(Entry* entry, int32_t from, Entry* request) {
    if (visited(entry)) return true;
    if (count == Cycle::kMaxHeld) return false;
    held[count] = entry;
    parent[count] = from;
    via[count] = request;
    count++;
    return true;
  }
};

// The cycle closes at held[at], whose holder's inner request `wait` waits for `under`.
void close_cycle(const Search& search, uint32_t at, Entry* wait, Cycle* cycle) {
  uint32_t length = 0;
  for (int32_t i = static_cast<int32_t>(at); i >= 0; i = search.parent[i]) length++;
  cycle->count = length + 1;
  int32_t i = static_cast<int32_t>(at);
  for (uint32_t k = length; k >= 1; k--) {
    cycle->holds[k] = search.held[i];
    cycle->waits[k] = wait;
    wait = search.via[i];
    i = search.parent[i];
  }
}

}  // namespace

// Breadth-first over held locks: from the holders of what the request waits for, to the holders
// of what their own inner requests wait for, until `under` is reached.
bool find_deadlock(Engine* engine, const Queue* queue, uint32_t mode, Entry* under, Cycle* cycle) {
  if (!queue || !under) return false;
  cycle->queue = queue;
  cycle->mode = mode;
  cycle->holds[0] = under;
  cycle->waits[0] = nullptr;
  Search search;
  for (Entry* held = queue->held.head; held; held = QueueList::next(held)) {
    if (!blocks(held, mode)) continue;
    if (held == under) {  // waits inside its own lock for what that lock blocks
      cycle->count = 1;
      return true;
    }
    if (!search.add(held, -1, nullptr)) return false;
  }
  for (uint32_t at = 0; at < search.count; at++) {
    double holder_id = id_of(search.held[at]);
    for (Entry* wait = engine->pending.head; wait; wait = GlobalList::next(wait)) {
      if (wait->under != holder_id) continue;
      for (Entry* held = wait->queue->held.head; held; held = QueueList::next(held)) {
        if (!blocks(held, wait->mode)) continue;
        if (held == under) {
          close_cycle(search, at, wait, cycle);
          return true;
        }
        if (!search.add(held, static_cast<int32_t>(at), wait)) return false;
      }
    }
  }
  return false;
}

namespace {
uint32_t member_bytes(const Client* client, const Queue* holds, const Queue* waits) {
  uint64_t units = uint64_t{client->id_length} + holds->name_length + waits->name_length;
  return static_cast<uint32_t>(sizeof(wl_cycle_member) + (units * 2 + 3) / 4 * 4);
}

void write_member(Emit emit, void* context, const Client* client, const Queue* holds, const Queue* waits,
                  uint32_t waits_mode) {
  wl_cycle_member member{waits_mode, client->id_length, holds->name_length, waits->name_length};
  emit(context, &member, sizeof member);
  emit(context, client->id, client->id_length * 2);
  emit(context, holds->name, holds->name_length * 2);
  emit(context, waits->name, waits->name_length * 2);
  static const uint16_t kPadding = 0;
  if ((client->id_length + holds->name_length + waits->name_length) & 1) emit(context, &kPadding, 2);
}
}  // namespace

uint32_t cycle_bytes(const Cycle& cycle) {
  uint32_t bytes = 4 + member_bytes(cycle.holds[0]->client, cycle.holds[0]->queue, cycle.queue);
  for (uint32_t k = 1; k < cycle.count; k++)
    bytes += member_bytes(cycle.holds[k]->client, cycle.holds[k]->queue, cycle.waits[k]->queue);
  return bytes;
}

void write_cycle(Emit emit, void* context, const Cycle& cycle) {
  emit(context, &cycle.count, 4);
  write_member(emit, context, cycle.holds[0]->client, cycle.holds[0]->queue, cycle.queue, cycle.mode);
  for (uint32_t k = 1; k < cycle.count; k++)
    write_member(emit, context, cycle.holds[k]->client, cycle.holds[k]->queue, cycle.waits[k]->queue,
                 cycle.waits[k]->mode);
}

}  // namespace wl
