// The undo log: what makes every engine call all-or-nothing even when the agent making it dies
// half-way (a worker_thread terminate()d inside a wasm call, while it holds the engine mutex).
//
// Every write to engine state that existed before the call goes through put(), which first
// records the old bytes. The log is emptied when the call completes. If the holder dies instead,
// the agent that takes over (wl_close_clients_of_owner for the dead owner) plays the log
// backwards, which restores the state as it was before the call, then carries on.
//
// Writes into blocks allocated during the same call need no record: rolling back the allocator
// returns those blocks (arena_alloc records the free-list link it hands out).
#pragma once
#include <stddef.h>
#include <stdint.h>

#ifdef WL_TESTING
#include "testing_hooks.h"
#endif

namespace wl {

struct UndoRecord {
  void* address;
  uint32_t size;  // 1, 2, 4 or 8
  uint32_t reserved;
  uint64_t old_bytes;
};

struct UndoLog {
  static constexpr uint32_t kInline = 256;
  UndoRecord* records;   // inline_records, or a larger block from the platform
  uint32_t count;
  uint32_t capacity;
  uint32_t overflowed;   // memory ran out while logging: this call cannot be rolled back
  void* platform_chunks; // where the larger blocks came from (freed with the engine natively)
  UndoRecord inline_records[kInline];
};

// The log of the engine whose mutex this agent holds (set while holding it, else null).
#ifdef __EMSCRIPTEN__
extern UndoLog* active_log;  // one engine per wasm memory, touched only by the mutex holder
#else
extern thread_local UndoLog* active_log;
#endif

void set_active_undo_log(UndoLog* log);
// Makes room for one more record; false when memory cannot grow.
bool undo_grow(UndoLog* log);
// Restores every recorded write, newest first, and empties the log. False if it had overflowed.
bool undo_rollback(UndoLog* log);

// The call completed: forget the records.
inline void undo_commit(UndoLog* log) {
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
  log->count = 0;
  log->overflowed = 0;
}

// Records the current value of *address (before the caller overwrites it).
template <class T>
inline void undo_record(T* address) {
  static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8, "a word");
#ifdef WL_TESTING
  testing_before_write();
#endif
  UndoLog* log = active_log;
  if (!log || log->overflowed) return;
  if (log->count == log->capacity && !undo_grow(log)) {
    log->overflowed = 1;
    return;
  }
  UndoRecord& record = log->records[log->count];
  record.address = address;
  record.size = sizeof(T);
  uint64_t bits = 0;
  __builtin_memcpy(&bits, address, sizeof(T));
  record.old_bytes = bits;
  // The record is complete before it counts, and counts before the write it protects. Wasm code
  // can only be stopped at calls and loop heads; these fences keep the compiler from moving the
  // protected write above them.
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
  log->count++;
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
}

// Records the old value of `field`, then writes `value`.
template <class T>
inline void put(T& field, T value) {
  undo_record(&field);
  field = value;
}

}  // namespace wl
