#include "undo.h"

#include "arena.h"
#include "platform.h"

namespace wl {

#ifdef WL_TESTING
thread_local DeathSimulation death_simulation;
#endif

#ifdef __EMSCRIPTEN__
UndoLog* active_log;
#else
thread_local UndoLog* active_log;
#endif

void set_active_undo_log(UndoLog* log) {
  if (log && !log->records) {
    log->records = log->inline_records;
    log->capacity = UndoLog::kInline;
  }
  active_log = log;
}

bool undo_grow(UndoLog* log) {
  uint64_t wanted = uint64_t{log->capacity} * 2 * sizeof(UndoRecord);
  if (wanted > (uint64_t{1} << 30)) return false;
  size_t bytes = static_cast<size_t>((wanted + kPlatformPage - 1) / kPlatformPage * kPlatformPage);
  auto* grown = static_cast<UndoRecord*>(platform_obtain(&log->platform_chunks, bytes));
  if (!grown) return false;
  copy_bytes(grown, log->records, sizeof(UndoRecord) * log->count);
  // Publish the copy before the pointer: a rollback after a death mid-growth sees either.
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
  log->records = grown;
  log->capacity = static_cast<uint32_t>(bytes / sizeof(UndoRecord));
  return true;  // the old block (inline or platform) is simply no longer used
}

bool undo_rollback(UndoLog* log) {
  if (!log->records) return true;  // never used
  bool complete = !log->overflowed;
  for (uint32_t i = log->count; i-- > 0;) {
    const UndoRecord& record = log->records[i];
    uint64_t bits = record.old_bytes;
    switch (record.size) {
      case 1: __builtin_memcpy(record.address, &bits, 1); break;
      case 2: __builtin_memcpy(record.address, &bits, 2); break;
      case 4: __builtin_memcpy(record.address, &bits, 4); break;
      default: __builtin_memcpy(record.address, &bits, 8); break;
    }
  }
  log->count = 0;
  log->overflowed = 0;
  return complete;
}

}  // namespace wl
