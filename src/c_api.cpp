// The C ABI (include/weblocks/engine.h): takes the engine mutex, validates, calls the algorithm.
#include "algorithms.h"
#include "mutex.h"
#include "platform.h"
#include "undo.h"
#include "weblocks/engine.h"

namespace wl {
namespace {

Engine* as_engine(wl_engine* engine) { return reinterpret_cast<Engine*>(engine); }

// Holds the engine mutex for one entry point; `locked` is false when the caller must retry.
// While held, the engine's undo log records every write (undo.h), and the header names the
// holder's owner tag so that a dead holder can be taken over.
class EngineLock {
 public:
  // The tag is read before taking the mutex: between a successful compare-exchange and the
  // store of holder_tag there must be no call or loop, the only places where wasm code can be
  // stopped (a holder stopped there could not be identified).
  explicit EngineLock(Engine* engine)
      : engine_(engine), tag_(platform_current_owner_tag()), locked_(try_lock_engine(&engine->header.mutex)) {
    if (locked_) begin();
  }
  ~EngineLock() {
    if (!locked_) return;
    undo_commit(&engine_->undo);
    set_active_undo_log(nullptr);
    __atomic_store_n(&engine_->header.holder_tag, 0u, __ATOMIC_RELAXED);
    unlock_engine(&engine_->header.mutex);
  }
  bool locked() const { return locked_; }

  // After a failed try: if the mutex is held by an agent of `dead_owner` (which the host says is
  // gone), take it over and undo that agent's half-done call. One taker wins the exchange.
  bool take_over_from(uint32_t dead_owner) {
    if (dead_owner == 0) return false;
    uint32_t expected = dead_owner;
    if (!__atomic_compare_exchange_n(&engine_->header.holder_tag, &expected, tag_, false, __ATOMIC_ACQ_REL,
                                     __ATOMIC_RELAXED))
      return false;
    // The mutex word stays "locked" (or "contended"): it is ours now. The log is intact even if
    // the dead agent was itself rolling back (a rollback only rewrites old values). The
    // acquire of the exchange above makes the dead agent's writes visible.
    if (!undo_rollback(&engine_->undo)) engine_->broken = 1;
    locked_ = true;
    begin();
    return true;
  }

 private:
  void begin() {
    __atomic_store_n(&engine_->header.holder_tag, tag_, __ATOMIC_RELAXED);
    if (engine_->header.magic != WL_ENGINE_MAGIC) {
      // First use of a zero-initialized engine: everything zero is an empty engine already.
      engine_->header.layout_version = WL_LAYOUT_VERSION;
      engine_->header.magic = WL_ENGINE_MAGIC;
    }
    set_active_undo_log(&engine_->undo);
    // Before the call's own writes: merge free blocks when due (or asked for by the last call),
    // and commit that on its own (an agent dying inside the call is undone back to the merged
    // lists, which hold the same memory).
    arena_begin_call(&engine_->arena);
    if (!engine_->broken && (engine_->arena.want_merge || arena_merge_due(&engine_->arena))) merge_now();
  }

 public:
  // An allocation of the call asked for a merge (arena.h, want_merge) and the call failed with
  // WL_NO_MEMORY, which changed nothing: undo it exactly, merge, and make it once more.
  template <class Call>
  int32_t retry_after_merge(int32_t result, Call call) {
    if (result != WL_NO_MEMORY || !engine_->arena.want_merge || engine_->undo.overflowed) return result;
    undo_rollback(&engine_->undo);
    merge_now();
    engine_->arena.may_ask_merge = 0;
    return call();
  }

 private:
  void merge_now() {
    arena_merge_free_blocks(&engine_->arena);
    undo_commit(&engine_->undo);
    engine_->arena.want_merge = 0;
  }

  Engine* engine_;
  uint32_t tag_;
  bool locked_;
};

}  // namespace
}  // namespace wl

using wl::Client;
using wl::Engine;
using wl::EngineLock;
using wl::platform_current_owner_tag;

#define WL_LOCK_OR_BUSY(engine)               \
  EngineLock held_mutex(engine);              \
  if (!held_mutex.locked()) return WL_BUSY;   \
  if (engine->broken) return WL_BROKEN

extern "C" {

int32_t wl_open_client(wl_engine* handle, const uint16_t* client_id, uint32_t client_id_length,
                       uint32_t owner_tag, double* client) {
  Engine* engine = wl::as_engine(handle);
  if (client_id_length >= 0x40000000u) return WL_BAD_ARGUMENT;
  WL_LOCK_OR_BUSY(engine);
  auto call = [&] { return wl::open_client(engine, client_id, client_id_length, owner_tag, client); };
  return held_mutex.retry_after_merge(call(), call);
}

int32_t wl_close_client(wl_engine* handle, double client_handle) {
  Engine* engine = wl::as_engine(handle);
  WL_LOCK_OR_BUSY(engine);
  Client* client = engine->clients.find(client_handle);
  if (!client) return WL_BAD_CLIENT;
  wl::agent_termination(engine, client);
  return 0;
}

int32_t wl_close_clients_of_owner(wl_engine* handle, uint32_t owner_tag) {
  Engine* engine = wl::as_engine(handle);
  EngineLock held_mutex(engine);
  if (!held_mutex.locked() && !held_mutex.take_over_from(owner_tag)) return WL_BUSY;
  if (engine->broken) return WL_BROKEN;
  int32_t closed = 0;
  // In the order the clients opened (each termination leaves the other clients open).
  for (Client* client = engine->open_clients.head; client;) {
    Client* next = wl::OpenClientList::next(client);
    if (client->owner_tag == owner_tag) {
      wl::agent_termination(engine, client);
      closed++;
    }
    client = next;
  }
  return closed;
}

int32_t wl_free_mutex_of_dead_owner(wl_engine* handle, uint32_t owner_tag) {
  Engine* engine = wl::as_engine(handle);
  EngineLock held_mutex(engine);
  if (held_mutex.locked()) return 0;  // free (now ours for a moment): nothing to recover
  if (!held_mutex.take_over_from(owner_tag)) return 0;  // held by another agent
  // Unlocked (waking every waiter) when held_mutex goes out of scope, the call undone.
  return engine->broken ? WL_BROKEN : 1;
}

int32_t wl_request(wl_engine* handle, double client_handle, const uint16_t* name, uint32_t name_length,
                   uint32_t mode, uint32_t wait_mode, double* id) {
  // A request made inside no held lock's callback: nothing to look for a deadlock through.
  return wl_request_within(handle, client_handle, name, name_length, mode, wait_mode, 0, 0, id, nullptr, 0);
}

int32_t wl_request_within(wl_engine* handle, double client_handle, const uint16_t* name, uint32_t name_length,
                          uint32_t mode, uint32_t wait_mode, double under, uint32_t flags, double* id,
                          void* cycle_out, uint32_t cycle_capacity) {
  Engine* engine = wl::as_engine(handle);
  if (mode > WL_SHARED || wait_mode > WL_PREEMPT || name_length >= 0x40000000u) return WL_BAD_ARGUMENT;
  if (wait_mode == WL_PREEMPT && mode != WL_EXCLUSIVE) return WL_BAD_ARGUMENT;  // spec 4.x step 7
  WL_LOCK_OR_BUSY(engine);
  Client* client = engine->clients.find(client_handle);
  if (!client) return WL_BAD_CLIENT;
  wl::RequestWithin within{under, flags, static_cast<unsigned char*>(cycle_out), cycle_capacity};
  auto call = [&] { return wl::request_a_lock(engine, client, name, name_length, mode, wait_mode, id, within); };
  return held_mutex.retry_after_merge(call(), call);
}

int32_t wl_deadlock_cycle(wl_engine* handle, double client_handle, double id, void* out, uint32_t capacity) {
  Engine* engine = wl::as_engine(handle);
  WL_LOCK_OR_BUSY(engine);
  Client* client = engine->clients.find(client_handle);
  if (!client) return WL_BAD_CLIENT;
  return wl::deadlock_cycle(engine, client, id, static_cast<unsigned char*>(out), capacity);
}

int32_t wl_observe(wl_engine* handle, int32_t delta, double* out) {
  Engine* engine = wl::as_engine(handle);
  WL_LOCK_OR_BUSY(engine);
  int32_t result = wl::journal_observe(engine, delta);
  if (result < 0) return result;
  out[0] = static_cast<double>(engine->journal.head);
  out[1] = static_cast<double>(reinterpret_cast<uintptr_t>(&engine->journal.seq));
  return 0;
}

int32_t wl_read_journal(wl_engine* handle, double* position, void* out, uint32_t capacity) {
  Engine* engine = wl::as_engine(handle);
  WL_LOCK_OR_BUSY(engine);
  return wl::journal_read(engine, position, static_cast<unsigned char*>(out), capacity);
}

int32_t wl_name_buffer(wl_engine* handle, double client_handle, uint32_t length, uint16_t** buffer) {
  Engine* engine = wl::as_engine(handle);
  if (length >= 0x40000000u) return WL_BAD_ARGUMENT;
  WL_LOCK_OR_BUSY(engine);
  Client* client = engine->clients.find(client_handle);
  if (!client) return WL_BAD_CLIENT;
  auto call = [&] { return wl::set_name_buffer(engine, client, length); };
  int32_t result = held_mutex.retry_after_merge(call(), call);
  if (result == 0) *buffer = client->name_buffer;
  return result;
}

int32_t wl_release(wl_engine* handle, double client_handle, double id) {
  Engine* engine = wl::as_engine(handle);
  WL_LOCK_OR_BUSY(engine);
  Client* client = engine->clients.find(client_handle);
  if (!client) return WL_BAD_CLIENT;
  return wl::release_a_lock(engine, client, id) ? 1 : 0;
}

int32_t wl_abort(wl_engine* handle, double client_handle, double id) {
  Engine* engine = wl::as_engine(handle);
  WL_LOCK_OR_BUSY(engine);
  Client* client = engine->clients.find(client_handle);
  if (!client) return WL_BAD_CLIENT;
  return wl::abort_a_request(engine, client, id) ? 1 : 0;
}

int32_t wl_take_events(wl_engine* handle, double client_handle, wl_event_record* out, uint32_t capacity) {
  Engine* engine = wl::as_engine(handle);
  WL_LOCK_OR_BUSY(engine);
  Client* client = engine->clients.find(client_handle);
  if (!client) return WL_BAD_CLIENT;
  if (capacity > 0x7fffffffu) capacity = 0x7fffffffu;
  return static_cast<int32_t>(wl::take_events(engine, client, out, capacity));
}

int32_t wl_snapshot(wl_engine* handle, void* out, uint32_t capacity) {
  Engine* engine = wl::as_engine(handle);
  WL_LOCK_OR_BUSY(engine);
  uint64_t size = wl::snapshot_size(engine);
  if (size > 0x7fffffffu) return WL_NO_MEMORY;
  if (size <= capacity) wl::snapshot_the_lock_state(engine, out);
  return static_cast<int32_t>(size);
}

int32_t wl_snapshot_pieces(wl_engine* handle, wl_snapshot_piece** first) {
  Engine* engine = wl::as_engine(handle);
  WL_LOCK_OR_BUSY(engine);
  auto call = [&] { return wl::snapshot_into_pieces(engine, first); };
  return held_mutex.retry_after_merge(call(), call);
}

int32_t wl_free_snapshot(wl_engine* handle, wl_snapshot_piece* first) {
  Engine* engine = wl::as_engine(handle);
  WL_LOCK_OR_BUSY(engine);
  wl::free_snapshot_pieces(engine, first);
  return 0;
}

int32_t wl_client_header_address(wl_engine* handle, double client_handle, wl_client_header** header) {
  Engine* engine = wl::as_engine(handle);
  WL_LOCK_OR_BUSY(engine);
  Client* client = engine->clients.find(client_handle);
  if (!client) return WL_BAD_CLIENT;
  *header = &client->header;
  return 0;
}

int32_t wl_get_stats(wl_engine* handle, wl_stats* out) {
  Engine* engine = wl::as_engine(handle);
  WL_LOCK_OR_BUSY(engine);
  out->memory_bytes = engine->arena.obtained_bytes;
  out->clients = engine->clients.live_count;
  out->entries = engine->entries.live_count;
  out->names = engine->names.count;
  out->reserved = 0;
  out->in_use_bytes = wl::arena_in_use_bytes(&engine->arena);
  return 0;
}

int32_t wl_set_memory_limit(wl_engine* handle, double bytes) {
  Engine* engine = wl::as_engine(handle);
  if (!(bytes >= 0)) return WL_BAD_ARGUMENT;
  WL_LOCK_OR_BUSY(engine);
  wl::put(engine->arena.limit_bytes, bytes);
  return 0;
}

uint32_t wl_layout_value(uint32_t key) {
  switch (key) {
    case WL_KEY_LAYOUT_VERSION: return WL_LAYOUT_VERSION;
    case WL_KEY_ENGINE_HEADER_SIZE: return sizeof(wl_engine_header);
    case WL_KEY_CLIENT_HEADER_SIZE: return sizeof(wl_client_header);
    case WL_KEY_DOORBELL_OFFSET: return offsetof(wl_client_header, doorbell);
    case WL_KEY_INBOX_COUNT_OFFSET: return offsetof(wl_client_header, inbox_count);
    case WL_KEY_EVENT_RECORD_SIZE: return sizeof(wl_event_record);
    case WL_KEY_EVENT_ID_OFFSET: return offsetof(wl_event_record, id);
    case WL_KEY_SNAPSHOT_HEADER_SIZE: return sizeof(wl_snapshot_header);
    case WL_KEY_SNAPSHOT_RECORD_SIZE: return sizeof(wl_snapshot_record);
    case WL_KEY_MUTEX_CONTENDED: return WL_MUTEX_CONTENDED;
    case WL_KEY_SLOT_LIMIT: return static_cast<uint32_t>(WL_SLOT_LIMIT);
    case WL_KEY_STACK_PAGE_MAGIC: return WL_STACK_PAGE_MAGIC;
    case WL_KEY_STACK_PAGE_BYTES: return WL_STACK_PAGE_BYTES;
    case WL_KEY_SNAPSHOT_PIECE_HEADER_SIZE: return sizeof(wl_snapshot_piece);
    case WL_KEY_HOLDER_TAG_OFFSET: return offsetof(wl_engine_header, holder_tag);
    default: return 0xffffffffu;
  }
}

}  // extern "C"
