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
  // The id of the client's held lock inside whose callback this request was made (0: none or
  // unknown): a wait inside a held lock, an edge of the wait-for graph (deadlock.cpp).
  double under;
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

// The observed changes (journal.cpp): a ring of records, allocated while someone observes.
// Positions count bytes written since the engine began; a reader behind `oldest` has lost records.
struct Journal {
  unsigned char* ring;
  uint32_t capacity;   // bytes (0: no ring)
  uint32_t observers;  // wl_observe(+1) calls not yet undone
  uint64_t head;       // position of the next record
  uint64_t oldest;     // position of the oldest record still in the ring
  // Bumped (and notified) after each record: what observers wait on. Its address never changes.
  uint32_t seq;
};

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
  Journal journal;     // observed changes (empty while nobody observes)
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

// Observed changes (journal.cpp). Each records nothing, at the cost of one test, while nobody observes.
void journal_entry(Engine* engine, uint32_t type, const Entry* entry);
struct Cycle;
void journal_deadlock(Engine* engine, const Cycle& cycle, uint32_t flags);
int32_t journal_observe(Engine* engine, int32_t delta);
int32_t journal_read(Engine* engine, double* position, unsigned char* out, uint32_t capacity);

// Deadlock (deadlock.cpp): a cycle of waits made inside held locks that a request for `queue` in
// `mode` by the holder of `under`, made inside that lock, would close. Member 0 is the requester
// (holds `under`, waits for queue); member k > 0 holds holds[k] and waits, inside it, with waits[k]
// for what member k + 1 (or 0) holds. The search visits at most kMaxHeld held locks (a longer
// chain of waits is not searched: such a cycle goes unreported).
struct Cycle {
  static constexpr uint32_t kMaxHeld = 256;
  uint32_t count;
  const Queue* queue;  // what the requester waits for
  uint32_t mode;
  Entry* holds[kMaxHeld + 1];
  Entry* waits[kMaxHeld + 1];  // waits[0] is unused (the request is not made yet)
};
bool find_deadlock(Engine* engine, const Queue* queue, uint32_t mode, Entry* under, Cycle* cycle);
// The bytes write_cycle takes (layout.h: a uint32 count, then wl_cycle_member records).
uint32_t cycle_bytes(const Cycle& cycle);
// Writes the cycle (cycle_bytes of it) through emit(context, bytes, length).
using Emit = void (*)(void* context, const void* bytes, uint32_t length);
void write_cycle(Emit emit, void* context, const Cycle& cycle);

}  // namespace wl
