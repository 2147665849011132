// The Web Locks scheduling algorithms (spec section 4, and 2.6 for agent termination), with the
// spec's step numbers. Allocation always happens before the first change of state, so that
// WL_NO_MEMORY leaves everything as it was. Over 400 lines: the algorithms share the inbox's
// reservations and the queue's invariants, kept in this one unit's anonymous namespace.
#include "algorithms.h"

#include "platform.h"

namespace wl {

namespace {

// ---- client inbox: events to a client, and its doorbell ----
// The inbox is a chain of fixed-size segments (state.h, InboxSegment) plus spare ones. Room for
// every event a client's entries may still cause is reserved when an entry is made (a pending
// request may still be granted and stolen, a held lock stolen: two events each, counted for every
// entry), so that posting an event never allocates. Room grows and shrinks a segment at a time.

constexpr uint32_t kSegmentEvents = InboxSegment::kEvents;

// Events that can be posted without taking a new segment from the allocator.
uint32_t inbox_room(const Client* client) {
  uint32_t in_tail = client->inbox_tail ? kSegmentEvents - client->inbox_tail_index : 0;
  return in_tail + client->inbox_spare_count * kSegmentEvents;
}

uint32_t room_needed(const Client* client, uint32_t extra_entries) {
  return 2 * (client->entry_count + extra_entries);
}

void push_spare(Client* client, InboxSegment* segment) {
  put(segment->next, client->inbox_spare);
  put(client->inbox_spare, segment);
  put(client->inbox_spare_count, client->inbox_spare_count + 1);
}

void free_segments(Engine* engine, InboxSegment* chain) {
  while (chain) {
    InboxSegment* next = chain->next;
    arena_free(&engine->arena, chain, sizeof(InboxSegment));
    chain = next;
  }
}

// Makes room for the events of `extra_entries` more entries. *added: the segments it took, which
// give_back_reserved() returns if the call fails later.
bool reserve_inbox(Engine* engine, Client* client, uint32_t extra_entries, uint32_t* added) {
  *added = 0;
  uint32_t needed = room_needed(client, extra_entries);
  uint32_t room = inbox_room(client);
  if (room >= needed) return true;
  // The new segments are chained first (fresh blocks: no undo records) and given back if one
  // cannot be had, so that a failure leaves the client as it was.
  InboxSegment* first = nullptr;
  InboxSegment* last = nullptr;
  uint32_t count = 0;
  for (; room < needed; room += kSegmentEvents, count++) {
    auto* segment = static_cast<InboxSegment*>(arena_alloc(&engine->arena, sizeof(InboxSegment)));
    if (!segment) {
      free_segments(engine, first);
      return false;
    }
    segment->next = first;
    first = segment;
    if (!last) last = segment;
  }
  last->next = client->inbox_spare;
  put(client->inbox_spare, first);
  put(client->inbox_spare_count, client->inbox_spare_count + count);
  *added = count;
  return true;
}

// Frees the `added` segments reserve_inbox() just put at the front of the spares.
void give_back_reserved(Engine* engine, Client* client, uint32_t added) {
  for (; added; added--) {
    InboxSegment* segment = client->inbox_spare;
    put(client->inbox_spare, segment->next);
    put(client->inbox_spare_count, client->inbox_spare_count - 1);
    arena_free(&engine->arena, segment, sizeof(InboxSegment));
  }
}

// Gives back spare segments while more than a segment of room beyond the need would remain (the
// slack keeps a request and release in turn from taking and freeing a segment each time).
void trim_inbox(Engine* engine, Client* client) {
  uint32_t keep = room_needed(client, 0) + kSegmentEvents;
  uint32_t room = inbox_room(client);
  while (client->inbox_spare_count && room >= keep + kSegmentEvents) {
    InboxSegment* segment = client->inbox_spare;
    put(client->inbox_spare, segment->next);
    put(client->inbox_spare_count, client->inbox_spare_count - 1);
    arena_free(&engine->arena, segment, sizeof(InboxSegment));
    room -= kSegmentEvents;
  }
}

// An empty inbox: no segments, no spares (logged writes, as every engine write).
static void clear_inbox(Client* client) {
  put(client->inbox_head, static_cast<InboxSegment*>(nullptr));
  put(client->inbox_tail, static_cast<InboxSegment*>(nullptr));
  put(client->inbox_head_index, 0u);
  put(client->inbox_tail_index, 0u);
  put(client->inbox_spare, static_cast<InboxSegment*>(nullptr));
  put(client->inbox_spare_count, 0u);
}

void free_inbox(Engine* engine, Client* client) {
  free_segments(engine, client->inbox_head);
  free_segments(engine, client->inbox_spare);
  clear_inbox(client);
}

void set_inbox_count(Client* client, uint32_t count) {
  undo_record(&client->header.inbox_count);
  __atomic_store_n(&client->header.inbox_count, count, __ATOMIC_SEQ_CST);
}

// (Not undone by a rollback: a waiter woken for nothing looks and waits again.)
void ring_doorbell(Client* client) {
  __atomic_fetch_add(&client->header.doorbell, 1, __ATOMIC_SEQ_CST);
  platform_notify_all(&client->header.doorbell);
}

// Room is guaranteed by reserve_inbox() when the entry was created.
void post_event(Client* client, uint32_t type, double id) {
  InboxSegment* tail = client->inbox_tail;
  uint32_t at = client->inbox_tail_index;
  if (!tail || at == kSegmentEvents) {  // the next segment: a spare one
    InboxSegment* segment = client->inbox_spare;
    put(client->inbox_spare, segment->next);
    put(client->inbox_spare_count, client->inbox_spare_count - 1);
    put(segment->next, static_cast<InboxSegment*>(nullptr));
    if (tail) {
      put(tail->next, segment);
    } else {
      put(client->inbox_head, segment);
      put(client->inbox_head_index, 0u);
    }
    put(client->inbox_tail, segment);
    tail = segment;
    at = 0;
  }
  wl_event_record& record = tail->events[at];
  put(record.type, type);
  put(record.reserved, 0u);
  put(record.id, id);
  put(client->inbox_tail_index, at + 1);
  set_inbox_count(client, client->header.inbox_count + 1);
  ring_doorbell(client);
}

// ---- entries ----

double id_of(const Entry* entry) { return SlotTable<Entry>::name_of(entry); }

void remove_held(Engine* engine, Entry* lock) {
  Queue* queue = lock->queue;
  queue->held.remove(lock);
  put(queue->held_count, queue->held_count - 1);
  if (lock->mode == WL_EXCLUSIVE) put(queue->exclusive_held_count, queue->exclusive_held_count - 1);
  engine->held.remove(lock);
}

void forget_entry(Engine* engine, Entry* entry) {
  Client* client = entry->client;
  (entry->state == EntryState::kHeld ? client->held : client->pending).remove(entry);
  put(client->entry_count, client->entry_count - 1);
  engine->entries.give_back(entry);
  trim_inbox(engine, client);
}

// Drops a queue that has neither held locks nor pending requests (unobservable in the spec,
// whose queue map only grows; here it keeps memory bounded by what is live).
void drop_queue_if_empty(Engine* engine, Queue* queue) {
  if (queue->held_count || !queue->pending.empty()) return;
  remove_queue(engine, queue);
  free_queue(engine, queue);
}

// Spec 2.5 "grantable", for the request at the front of its queue (step 7 is the caller's:
// only the first pending request can be grantable).
bool grantable_at_front(const Queue* queue, uint32_t mode) {
  if (mode == WL_EXCLUSIVE) return queue->held_count == 0;  // step 8
  return queue->exclusive_held_count == 0;                  // step 9
}

// Spec 4.4: process the lock request queue. `requested` is the request being made by the
// caller right now: its grant is reported by the return value of request_a_lock, not an event.
void process_the_lock_request_queue(Engine* engine, Queue* queue, const Entry* requested) {
  // 2. For each request of queue: 1. if request is grantable (only ever the first, step 7)
  while (Entry* request = queue->pending.head) {
    if (!grantable_at_front(queue, request->mode)) break;
    queue->pending.remove(request);  // 2.1.1 remove request from queue
    engine->pending.remove(request);
    request->client->pending.remove(request);
    request->client->held.push_back(request);  // the client's locks stay in grant order
    put(request->state, EntryState::kHeld);  // 2.1.9 a new lock with the request's items
    queue->held.push_back(request);          // 2.1.10 append lock to the held lock set
    put(queue->held_count, queue->held_count + 1);
    if (request->mode == WL_EXCLUSIVE) put(queue->exclusive_held_count, queue->exclusive_held_count + 1);
    engine->held.push_back(request);
    journal_entry(engine, WL_CHANGE_GRANTED, request);
    // 2.1.11 the callback runs in the requesting agent: tell it
    if (request != requested) post_event(request->client, WL_EVENT_GRANTED, id_of(request));
  }
}

// 4.4 step 2.1 for a request made in this very call that is granted at once: it goes straight
// to the held lock set (appended: 2.1.10), and no event is posted (the caller returns GRANTED).
void grant_fresh(Engine* engine, Entry* request) {
  Queue* queue = request->queue;
  request->state = EntryState::kHeld;
  queue->held.push_back_fresh(request);
  put(queue->held_count, queue->held_count + 1);
  if (request->mode == WL_EXCLUSIVE) put(queue->exclusive_held_count, queue->exclusive_held_count + 1);
  engine->held.push_back_fresh(request);
  request->client->held.push_back_fresh(request);
  journal_entry(engine, WL_CHANGE_GRANTED, request);
}

// Each client of a certain deadlock gets WL_EVENT_DEADLOCK for its waiting request. The room for
// it is taken now, beyond what its entries reserve; a client for whom none can be had is not told.
void tell_one(Engine* engine, Entry* waiting) {
  uint32_t added = 0;
  if (reserve_inbox(engine, waiting->client, 1, &added)) post_event(waiting->client, WL_EVENT_DEADLOCK, id_of(waiting));
}

void tell_deadlock(Engine* engine, Entry* request, const Cycle& cycle) {
  tell_one(engine, request);
  for (uint32_t k = 1; k < cycle.count; k++) tell_one(engine, cycle.waits[k]);
}

void write_cycle_out(const RequestWithin& within, const Cycle& cycle) {
  if (!within.cycle_out || within.cycle_capacity < 4) return;
  struct Out {
    unsigned char* at;
  } out{within.cycle_out};
  if (cycle_bytes(cycle) > within.cycle_capacity) {
    static const uint32_t kNone = 0;
    copy_bytes(out.at, &kNone, 4);
    return;
  }
  write_cycle(
      [](void* context, const void* bytes, uint32_t length) {
        auto* out = static_cast<Out*>(context);
        copy_bytes(out->at, bytes, length);
        out->at += length;
      },
      &out, cycle);
}

}  // namespace

int32_t open_client(Engine* engine, const uint16_t* client_id, uint32_t length, uint32_t owner_tag,
                    double* handle) {
  bool too_many = false;
  if (!engine->clients.reserve(&engine->arena, &too_many)) return too_many ? WL_TOO_MANY : WL_NO_MEMORY;
  uint16_t* id = nullptr;
  if (length) {
    id = arena_new_array<uint16_t>(&engine->arena, length);
    if (!id) return WL_NO_MEMORY;
    copy_bytes(id, client_id, sizeof(uint16_t) * length);
  }
  Client* client = engine->clients.take();
  engine->open_clients.push_back(client);
  put(client->owner_tag, owner_tag);
  put(client->id, id);
  put(client->id_length, length);
  put(client->pending.head, static_cast<Entry*>(nullptr));
  put(client->pending.tail, static_cast<Entry*>(nullptr));
  put(client->held.head, static_cast<Entry*>(nullptr));
  put(client->held.tail, static_cast<Entry*>(nullptr));
  put(client->entry_count, 0u);
  clear_inbox(client);
  put(client->name_buffer, static_cast<uint16_t*>(nullptr));
  put(client->name_buffer_length, 0u);
  set_inbox_count(client, 0);
  // The doorbell keeps counting across reuses of the record: a stale waiter sees a change.
  *handle = SlotTable<Client>::name_of(client);
  return 0;
}

// Spec 4.1: request a lock.
int32_t request_a_lock(Engine* engine, Client* client, const uint16_t* name, uint32_t length,
                       uint32_t mode, uint32_t wait_mode, double* id, const RequestWithin& within) {
  // 2.2 let queue be the lock request queue for name; 2.3 held is engine->held.
  uint32_t hash = hash_name(name, length);
  Queue* queue = find_queue(engine, name, length, hash);

  // 2.5.1 ifAvailable and not grantable: report, leave the queue untouched. A new request would
  // go to the back, so it is grantable only if nothing is pending (2.5 step 7).
  if (wait_mode == WL_NO_WAIT && queue && (!queue->pending.empty() || !grantable_at_front(queue, mode)))
    return WL_NOT_AVAILABLE;

  // A request that will wait, made inside a held lock of its client: does its wait close a
  // cycle of such waits (deadlock.cpp)? Looked for before anything changes.
  Entry* under = nullptr;
  Cycle cycle;
  bool deadlock = false;
  if (within.under != 0 && wait_mode == WL_WAIT && queue && !(queue->pending.empty() && grantable_at_front(queue, mode))) {
    under = engine->entries.find(within.under);
    if (under && (under->client != client || under->state != EntryState::kHeld)) under = nullptr;
    deadlock = find_deadlock(engine, queue, mode, under, &cycle);
    if (deadlock) {
      write_cycle_out(within, cycle);
      if (within.flags & WL_REJECT_DEADLOCK) {
        journal_deadlock(engine, cycle, 1);
        return WL_DEADLOCK;
      }
    }
  }

  // Allocate everything first: the entry slot, inbox room, the queue of a new name.
  bool too_many = false;
  if (!engine->entries.reserve(&engine->arena, &too_many)) return too_many ? WL_TOO_MANY : WL_NO_MEMORY;
  uint32_t added_segments = 0;
  if (!reserve_inbox(engine, client, 1, &added_segments)) return WL_NO_MEMORY;
  if (!queue) {
    if (!reserve_name(engine) || !(queue = new_queue(engine, name, length, hash))) {
      give_back_reserved(engine, client, added_segments);  // a failed call leaves no trace in use
      return WL_NO_MEMORY;
    }
    insert_queue(engine, queue);
  }

  // 1. let request be a new lock request (a record taken in this call: its own fields are
  // written without undo records)
  Entry* request = engine->entries.take();
  request->state = EntryState::kPending;
  request->mode = mode;
  request->queue = queue;
  request->client = client;
  request->under = under ? within.under : 0;
  put(client->entry_count, client->entry_count + 1);

  if (wait_mode == WL_PREEMPT) {
    // 2.4.1 for each lock of held with this name: remove it, reject its released promise
    // (the holder is told "stolen")
    while (Entry* lock = queue->held.head) {
      double stolen_id = id_of(lock);
      Client* holder = lock->client;
      journal_entry(engine, WL_CHANGE_STOLEN, lock);
      remove_held(engine, lock);
      forget_entry(engine, lock);
      post_event(holder, WL_EVENT_STOLEN, stolen_id);
    }
    journal_entry(engine, WL_CHANGE_REQUESTED, request);
    // 2.4.2 prepend request in queue; 2.6 process the queue: the request is first and nothing
    // of this name is held, so it is granted, and the next request (if any) waits behind it.
    grant_fresh(engine, request);
  } else if (queue->pending.empty() && grantable_at_front(queue, mode)) {
    // 2.5.2 enqueue request; 2.6 process the queue: it is the only request, and grantable.
    journal_entry(engine, WL_CHANGE_REQUESTED, request);
    grant_fresh(engine, request);
  } else {
    journal_entry(engine, WL_CHANGE_REQUESTED, request);
    // 2.5.2 enqueue request in queue. 2.6 processing would change nothing: the first request
    // was not grantable before (or it would have been granted) and still is not.
    queue->pending.push_back_fresh(request);
    engine->pending.push_back_fresh(request);
    client->pending.push_back_fresh(request);
    if (deadlock) {
      journal_deadlock(engine, cycle, 0);
      tell_deadlock(engine, request, cycle);
    }
  }
  *id = id_of(request);
  return request->state == EntryState::kHeld ? WL_GRANTED : WL_QUEUED;
}

// Spec 4.2: release the lock.
bool release_a_lock(Engine* engine, Client* client, double id) {
  Entry* lock = engine->entries.find(id);
  if (!lock || lock->client != client || lock->state != EntryState::kHeld) return false;
  Queue* queue = lock->queue;               // 2-5 the queue of the lock's name
  journal_entry(engine, WL_CHANGE_RELEASED, lock);
  remove_held(engine, lock);                // 6 remove lock from the held lock set
  forget_entry(engine, lock);
  process_the_lock_request_queue(engine, queue, nullptr);  // 7
  drop_queue_if_empty(engine, queue);
  return true;
}

// Spec 4.3: abort the request.
bool abort_a_request(Engine* engine, Client* client, double id) {
  Entry* request = engine->entries.find(id);
  if (!request || request->client != client || request->state != EntryState::kPending) return false;
  Queue* queue = request->queue;            // 2-5
  journal_entry(engine, WL_CHANGE_ABORTED, request);
  queue->pending.remove(request);           // 6 remove request from queue
  engine->pending.remove(request);
  forget_entry(engine, request);
  process_the_lock_request_queue(engine, queue, nullptr);  // 7
  drop_queue_if_empty(engine, queue);
  return true;
}

int32_t set_name_buffer(Engine* engine, Client* client, uint32_t length) {
  uint16_t* buffer = nullptr;
  if (length) {
    buffer = arena_new_array<uint16_t>(&engine->arena, length);
    if (!buffer) return WL_NO_MEMORY;
  }
  if (client->name_buffer_length) arena_free_array(&engine->arena, client->name_buffer, client->name_buffer_length);
  put(client->name_buffer, buffer);
  put(client->name_buffer_length, length);
  return 0;
}

// Spec 2.6: when an agent terminates.
void agent_termination(Engine* engine, Client* client) {
  // 1. for each lock request of the agent: abort the request. In request order (the order in
  // which snapshot lists pending requests). Aborting one may grant another request of this
  // agent on the same name: it moves to client->held and is released in step 2.
  while (Entry* request = client->pending.head) abort_a_request(engine, client, id_of(request));
  // 2. for each lock of the agent: release the lock, in the held lock set's order (grant order
  // across names, which client->held keeps), so that the grants that follow are appended to
  // the held lock set in the spec's order.
  while (Entry* lock = client->held.head) release_a_lock(engine, client, id_of(lock));

  free_inbox(engine, client);
  if (client->id_length) arena_free_array(&engine->arena, client->id, client->id_length);
  set_name_buffer(engine, client, 0);
  set_inbox_count(client, 0);
  engine->open_clients.remove(client);
  engine->clients.give_back(client);
  ring_doorbell(client);  // a waiter on this doorbell wakes and finds its client gone
}

int32_t deadlock_cycle(Engine* engine, Client* client, double id, unsigned char* out, uint32_t capacity) {
  Entry* request = engine->entries.find(id);
  if (!request || request->client != client || request->state != EntryState::kPending || !request->under) return 0;
  Entry* under = engine->entries.find(request->under);
  if (!under || under->state != EntryState::kHeld) return 0;
  Cycle cycle;
  if (!find_deadlock(engine, request->queue, request->mode, under, &cycle) || cycle_bytes(cycle) > capacity) return 0;
  RequestWithin within{0, 0, out, capacity};
  write_cycle_out(within, cycle);
  return static_cast<int32_t>(cycle_bytes(cycle));
}

uint32_t take_events(Engine* engine, Client* client, wl_event_record* out, uint32_t capacity) {
  uint32_t count = client->header.inbox_count;
  if (count > capacity) count = capacity;
  if (!count) return 0;
  InboxSegment* head = client->inbox_head;
  uint32_t at = client->inbox_head_index;
  for (uint32_t i = 0; i < count; i++) {
    out[i] = head->events[at++];
    if (at == kSegmentEvents && head != client->inbox_tail) {  // read to its end: a spare again
      InboxSegment* next = head->next;
      push_spare(client, head);
      head = next;
      at = 0;
    }
  }
  uint32_t left = client->header.inbox_count - count;
  if (!left) {  // head and tail are one segment now: start it over
    at = 0;
    put(client->inbox_tail_index, 0u);
  }
  put(client->inbox_head, head);
  put(client->inbox_head_index, at);
  set_inbox_count(client, left);
  trim_inbox(engine, client);
  return count;
}

namespace {
uint64_t record_size(const Entry* entry) {
  uint64_t units = uint64_t{entry->queue->name_length} + entry->client->id_length;
  return sizeof(wl_snapshot_record) + (units * 2 + 3) / 4 * 4;
}

// Where a snapshot is written: one contiguous area, or a chain of pieces (wl_snapshot_piece).
struct Sink {
  unsigned char* at;
  uint32_t left;             // bytes left in the current area
  wl_snapshot_piece* piece;  // the current piece (nullptr: one contiguous area)

  static unsigned char* payload(wl_snapshot_piece* piece) { return reinterpret_cast<unsigned char*>(piece + 1); }

  __attribute__((noinline)) void write(const void* from, size_t bytes) {
    auto* source = static_cast<const unsigned char*>(from);
    while (bytes) {
      if (!left) {  // only with pieces: their sizes add up to the snapshot's
        piece = reinterpret_cast<wl_snapshot_piece*>(static_cast<uintptr_t>(piece->next));
        at = payload(piece);
        left = piece->bytes;
      }
      size_t part = bytes < left ? bytes : left;
      copy_bytes(at, source, part);
      at += part;
      source += part;
      bytes -= part;
      left -= static_cast<uint32_t>(part);
    }
  }

  __attribute__((noinline)) void write_record(const Entry* entry) {
    wl_snapshot_record record{entry->queue->name_length, entry->mode, entry->client->id_length};
    write(&record, sizeof record);
    write(entry->queue->name, sizeof(uint16_t) * entry->queue->name_length);
    write(entry->client->id, sizeof(uint16_t) * entry->client->id_length);
    static const uint16_t kPadding = 0;
    if ((entry->queue->name_length + entry->client->id_length) & 1) write(&kPadding, sizeof kPadding);
  }
};

// Spec 4.5: snapshot the lock state. Pending (step 3) is listed in request order across names,
// held (step 5) in the held lock set's order, which is grant order.
void write_snapshot(Engine* engine, Sink sink) {
  wl_snapshot_header header{0, 0};
  for (Entry* e = engine->held.head; e; e = GlobalList::next(e)) header.held_count++;
  for (Entry* e = engine->pending.head; e; e = GlobalList::next(e)) header.pending_count++;
  sink.write(&header, sizeof header);
  for (Entry* e = engine->held.head; e; e = GlobalList::next(e)) sink.write_record(e);
  for (Entry* e = engine->pending.head; e; e = GlobalList::next(e)) sink.write_record(e);
}

void link_piece(wl_snapshot_piece** first, wl_snapshot_piece** last, void* block, size_t block_bytes,
                uint32_t bytes) {
  auto* piece = static_cast<wl_snapshot_piece*>(block);  // a fresh block: no undo records
  piece->bytes = bytes;
  piece->block_bytes = static_cast<uint32_t>(block_bytes);
  piece->next = 0;
  if (*last) (*last)->next = static_cast<double>(reinterpret_cast<uintptr_t>(piece));
  else *first = piece;
  *last = piece;
}
}  // namespace

uint64_t snapshot_size(Engine* engine) {
  uint64_t size = sizeof(wl_snapshot_header);
  for (Entry* e = engine->held.head; e; e = GlobalList::next(e)) size += record_size(e);
  for (Entry* e = engine->pending.head; e; e = GlobalList::next(e)) size += record_size(e);
  return size;
}

void snapshot_the_lock_state(Engine* engine, void* out) {
  write_snapshot(engine, Sink{static_cast<unsigned char*>(out), 0xffffffffu, nullptr});
}

// The snapshot in engine memory: one block if there is one, else the largest free blocks until
// they hold it (memory freed by released locks is scattered over the size classes).
int32_t snapshot_into_pieces(Engine* engine, wl_snapshot_piece** first) {
  uint64_t size = snapshot_size(engine);
  if (size > 0x7fffffffu) return WL_NO_MEMORY;
  constexpr size_t kHeader = sizeof(wl_snapshot_piece);
  wl_snapshot_piece* head = nullptr;
  wl_snapshot_piece* last = nullptr;
  if (void* block = arena_alloc(&engine->arena, kHeader + size)) {
    link_piece(&head, &last, block, kHeader + size, static_cast<uint32_t>(size));
  } else {
    for (uint64_t held = 0; held < size;) {
      size_t block_bytes = 0;
      void* block = arena_take_largest(&engine->arena, 2 * kHeader, &block_bytes);
      if (!block) {  // all of free memory cannot hold it: give back what was taken
        free_snapshot_pieces(engine, head);
        return WL_NO_MEMORY;
      }
      uint64_t room = block_bytes - kHeader;
      uint32_t bytes = static_cast<uint32_t>(room < size - held ? room : size - held);
      link_piece(&head, &last, block, block_bytes, bytes);
      held += bytes;
    }
  }
  write_snapshot(engine, Sink{Sink::payload(head), head->bytes, head});
  *first = head;
  return static_cast<int32_t>(size);
}

void free_snapshot_pieces(Engine* engine, wl_snapshot_piece* first) {
  while (first) {
    auto* next = reinterpret_cast<wl_snapshot_piece*>(static_cast<uintptr_t>(first->next));
    arena_free(&engine->arena, first, first->block_bytes);
    first = next;
  }
}

}  // namespace wl
