// The journal of observed changes: while someone observes (wl_observe), every change of the lock
// state is recorded, in the order the engine makes it, as a record in a ring in engine memory
// (layout.h, wl_journal_record). Observers read it (wl_read_journal) after waiting on `seq`. While
// nobody observes, recording costs one test of `observers` per change.
#include "algorithms.h"
#include "platform.h"

namespace wl {

namespace {

constexpr uint32_t kRingBytes = 32768;
// A record larger than this is replaced by WL_CHANGE_LOST: its observers take a fresh snapshot.
constexpr uint32_t kLargestRecord = kRingBytes / 4;

uint32_t padded_units(uint64_t units) { return static_cast<uint32_t>((units * 2 + 3) / 4 * 4); }

// Appends one record of `bytes`, written by the caller through put_bytes.
class RecordWriter {
 public:
  RecordWriter(Journal* journal, uint32_t bytes) : journal_(journal), at_(journal->head) {
    // Room: the oldest records go. Not undone by a rollback (their bytes are overwritten).
    while (journal->head + bytes - journal->oldest > journal->capacity) {
      uint32_t size = 0;
      read_word(journal->oldest, &size);
      // (A size that cannot be, after an agent died mid-record: drop every record kept.)
      if (size < sizeof(wl_journal_record) || size > journal->head - journal->oldest) {
        journal->oldest = journal->head;
        break;
      }
      journal->oldest += size;
    }
  }
  void put_bytes(const void* from, uint32_t bytes) {
    auto* source = static_cast<const unsigned char*>(from);
    for (uint32_t i = 0; i < bytes; i++) journal_->ring[(at_ + i) % journal_->capacity] = source[i];
    at_ += bytes;
  }
  void put_units(const uint16_t* units, uint32_t length) { put_bytes(units, length * 2); }
  void pad() {
    static const unsigned char kZero[4] = {0, 0, 0, 0};
    if (at_ & 3) put_bytes(kZero, 4 - static_cast<uint32_t>(at_ & 3));
  }
  // The record counts once whole: head moves (undone by a rollback), then the observers wake.
  void commit() {
    put(journal_->head, at_);
    __atomic_fetch_add(&journal_->seq, 1u, __ATOMIC_SEQ_CST);
    platform_notify_all(&journal_->seq);
  }

 private:
  void read_word(uint64_t position, uint32_t* word) {
    auto* bytes = reinterpret_cast<unsigned char*>(word);
    for (uint32_t i = 0; i < 4; i++) bytes[i] = journal_->ring[(position + i) % journal_->capacity];
  }
  Journal* journal_;
  uint64_t at_;
};

void journal_lost(Journal* journal) {
  wl_journal_record header{sizeof(wl_journal_record), WL_CHANGE_LOST, 0, 0, 0};
  RecordWriter writer(journal, header.bytes);
  writer.put_bytes(&header, sizeof header);
  writer.commit();
}

}  // namespace

void journal_entry(Engine* engine, uint32_t type, const Entry* entry) {
  Journal* journal = &engine->journal;
  if (!journal->observers || !journal->capacity) return;
  const Queue* queue = entry->queue;
  const Client* client = entry->client;
  uint32_t bytes = sizeof(wl_journal_record) + padded_units(uint64_t{queue->name_length} + client->id_length);
  if (bytes > kLargestRecord) return journal_lost(journal);
  wl_journal_record header{bytes, type, entry->mode, queue->name_length, client->id_length};
  RecordWriter writer(journal, bytes);
  writer.put_bytes(&header, sizeof header);
  writer.put_units(queue->name, queue->name_length);
  writer.put_units(client->id, client->id_length);
  writer.pad();
  writer.commit();
}

void journal_deadlock(Engine* engine, const Cycle& cycle, uint32_t flags) {
  Journal* journal = &engine->journal;
  if (!journal->observers || !journal->capacity) return;
  uint32_t bytes = sizeof(wl_journal_record) + cycle_bytes(cycle) - 4;  // (the count is in the header)
  if (bytes > kLargestRecord) return journal_lost(journal);
  // The members as wl_request_within writes them, after a header that holds their count.
  struct Sink {
    RecordWriter* writer;
    bool counted;  // the cycle's own count word is skipped
  };
  RecordWriter writer(journal, bytes);
  wl_journal_record header{bytes, WL_CHANGE_DEADLOCK, flags, cycle.count, 0};
  writer.put_bytes(&header, sizeof header);
  Sink sink{&writer, false};
  write_cycle(
      [](void* context, const void* from, uint32_t length) {
        auto* sink = static_cast<Sink*>(context);
        if (!sink->counted) {
          sink->counted = true;
          return;
        }
        sink->writer->put_bytes(from, length);
      },
      &sink, cycle);
  writer.commit();
}

int32_t journal_observe(Engine* engine, int32_t delta) {
  Journal* journal = &engine->journal;
  if (delta == 1) {
    if (!journal->capacity) {
      auto* ring = static_cast<unsigned char*>(arena_alloc(&engine->arena, kRingBytes));
      if (!ring) return WL_NO_MEMORY;
      put(journal->ring, ring);
      put(journal->capacity, kRingBytes);
      put(journal->oldest, journal->head);
    }
    put(journal->observers, journal->observers + 1);
    return 0;
  }
  if (delta != -1 || !journal->observers) return WL_BAD_ARGUMENT;
  put(journal->observers, journal->observers - 1);
  if (!journal->observers && journal->capacity) {
    arena_free(&engine->arena, journal->ring, journal->capacity);
    put(journal->ring, static_cast<unsigned char*>(nullptr));
    put(journal->capacity, 0u);
    put(journal->oldest, journal->head);
  }
  return 0;
}

int32_t journal_read(Engine* engine, double* position, unsigned char* out, uint32_t capacity) {
  Journal* journal = &engine->journal;
  uint64_t at = static_cast<uint64_t>(*position);
  if (at > journal->head) at = journal->head;
  if (at < journal->oldest || !journal->capacity) {
    if (capacity < sizeof(wl_journal_record)) return 0;
    wl_journal_record lost{sizeof(wl_journal_record), WL_CHANGE_LOST, 0, 0, 0};
    copy_bytes(out, &lost, sizeof lost);
    *position = static_cast<double>(journal->head);
    return sizeof lost;
  }
  uint32_t copied = 0;
  while (at < journal->head) {
    uint32_t size = 0;
    auto* word = reinterpret_cast<unsigned char*>(&size);
    for (uint32_t i = 0; i < 4; i++) word[i] = journal->ring[(at + i) % journal->capacity];
    if (size < sizeof(wl_journal_record) || size > journal->head - at) {  // (see RecordWriter)
      at = journal->head;
      break;
    }
    if (copied + size > capacity) break;
    for (uint32_t i = 0; i < size; i++) out[copied + i] = journal->ring[(at + i) % journal->capacity];
    copied += size;
    at += size;
  }
  *position = static_cast<double>(at);
  return static_cast<int32_t>(copied);
}

}  // namespace wl
