// The engine's state, all of it in engine memory: the spec's lock request queue map (one queue
// per resource name), the held lock set, lock requests and clients.
#pragma once
#include <stdint.h>

#include "arena.h"
#include "list.h"
#include "slot_table.h"
#include "undo.h"
#include "weblocks/engine.h"
#include "weblocks/layout.h"

namespace wl {

struct Queue;
struct Client;

enum class EntryState : uint32_t { kPending = 1, kHeld = 2 };

// A lock request (pending) or a lock (held): the same record, moved from one list to another
// when granted, so its id stays the same.
struct Entry {
  uint32_t slot, generation, next_free;
  bool live;
  EntryState state;
  uint32_t mode;          // wl_mode
  Queue* queue;           // its resource name's queue
  Client* client;
  Link<Entry> queue_link;   // in queue->pending or queue->held
  Link<Entry> global_link;  // in engine pending (request order) or held (grant order)
  Link<Entry> client_link;  // in client->pending (request order) or client->held (grant order)
};

using QueueList = List<Entry, &Entry::queue_link>;
using GlobalList = List<Entry, &Entry::global_link>;
using ClientList = List<Entry, &Entry::client_link>;

// The lock request queue of one resource name, split as Chromium does: the held locks of that
// name first, then the pending requests (the spec's queue) in order.
struct Queue {
  Queue* hash_next;
  uint32_t hash;
  uint32_t name_length;
  uint16_t* name;
  QueueList held;
  QueueList pending;
  uint32_t held_count;
  uint32_t exclusive_held_count;
};

struct NameTable {
  Queue** buckets;
  uint32_t bucket_count;  // a power of two, or 0
  uint32_t count;
};

// A piece of a client's event inbox. The inbox is a chain of these (oldest events first) plus a
// list of spare ones, never one large block: memory freed in small pieces (names, queue records)
// and merged can hold an inbox of any size (docs/reliability.md, Finding 4).
struct InboxSegment {
  static constexpr uint32_t kEvents = 15;  // with the link, 256 bytes: one arena size class
  InboxSegment* next;
  alignas(16) wl_event_record events[kEvents];
};
static_assert(sizeof(InboxSegment) == 256, "an inbox segment fills its size class");

struct Client {
  wl_client_header header;  // first: the doorbell and inbox count (layout.h)
  uint32_t slot, generation, next_free;
  bool live;
  Link<Client> open_link;   // in engine->open_clients
  uint32_t owner_tag;
  uint32_t id_length;
  uint16_t* id;
  ClientList pending;  // its lock requests, in request order
  ClientList held;     // its locks, in grant order (the order of the held lock set, 2.6 step 2)
  uint32_t entry_count;
  // Undelivered events run from inbox_head[inbox_head_index] to inbox_tail[inbox_tail_index]
  // (exclusive) along the chain; both null until the first event, then the tail is always in use.
  InboxSegment* inbox_head;
  InboxSegment* inbox_tail;
  uint32_t inbox_head_index;
  uint32_t inbox_tail_index;  // up to kEvents: the tail is full, the next event starts a spare
  InboxSegment* inbox_spare;  // segments reserved for events to come, linked through next
  uint32_t inbox_spare_count;
  uint16_t* name_buffer;    // wl_name_buffer: where its agent writes a long name (or null)
  uint32_t name_buffer_length;
};

using OpenClientList = List<Client, &Client::open_link>;

struct Engine {
  wl_engine_header header;  // first: the mutex word (layout.h)
  Arena arena;
  SlotTable<Entry> entries;
  SlotTable<Client> clients;
  OpenClientList open_clients;  // live clients in the order they opened (closed in that order by owner)
  NameTable names;
  GlobalList held;     // the spec's held lock set, in grant order
  GlobalList pending;  // every pending request, in request order
  UndoLog undo;        // the current call's writes (undo.h)
  uint32_t broken;     // a dead holder's call could not be rolled back: refuse all calls
};

// Name table (names.cpp)
uint32_t hash_name(const uint16_t* name, uint32_t length);
Queue* find_queue(Engine* engine, const uint16_t* name, uint32_t length, uint32_t hash);
// Allocates a queue for a name not in the table; inserts nothing yet. nullptr: no memory.
Queue* new_queue(Engine* engine, const uint16_t* name, uint32_t length, uint32_t hash);
void free_queue(Engine* engine, Queue* queue);
// Makes room for one more name (rehashing as it grows). False only if there is no bucket array
// at all and none can be allocated; a full table that cannot grow still accepts names.
bool reserve_name(Engine* engine);
void insert_queue(Engine* engine, Queue* queue);
void remove_queue(Engine* engine, Queue* queue);

}  // namespace wl
