// The lock request queue map: resource name (UTF-16 code units, compared as such) -> queue.
// Chained hashing; the bucket array doubles when the load passes 1.
#include "state.h"

namespace wl {

uint32_t hash_name(const uint16_t* name, uint32_t length) {
  uint32_t hash = 2166136261u;  // FNV-1a over code units
  for (uint32_t i = 0; i < length; i++) {
    hash ^= name[i];
    hash *= 16777619u;
  }
  return hash;
}

static bool same_name(const Queue* queue, const uint16_t* name, uint32_t length, uint32_t hash) {
  if (queue->hash != hash || queue->name_length != length) return false;
  for (uint32_t i = 0; i < length; i++)
    if (queue->name[i] != name[i]) return false;
  return true;
}

Queue* find_queue(Engine* engine, const uint16_t* name, uint32_t length, uint32_t hash) {
  NameTable& table = engine->names;
  if (!table.bucket_count) return nullptr;
  for (Queue* queue = table.buckets[hash & (table.bucket_count - 1)]; queue; queue = queue->hash_next)
    if (same_name(queue, name, length, hash)) return queue;
  return nullptr;
}

Queue* new_queue(Engine* engine, const uint16_t* name, uint32_t length, uint32_t hash) {
  Queue* queue = arena_new_array<Queue>(&engine->arena, 1);
  if (!queue) return nullptr;
  *queue = Queue{};  // a fresh block: written without undo records
  if (length) {
    queue->name = arena_new_array<uint16_t>(&engine->arena, length);
    if (!queue->name) {
      arena_free_array(&engine->arena, queue, 1);
      return nullptr;
    }
    copy_bytes(queue->name, name, sizeof(uint16_t) * length);
  }
  queue->name_length = length;
  queue->hash = hash;
  return queue;
}

void free_queue(Engine* engine, Queue* queue) {
  if (queue->name_length) arena_free_array(&engine->arena, queue->name, queue->name_length);
  arena_free_array(&engine->arena, queue, 1);
}

bool reserve_name(Engine* engine) {
  NameTable& table = engine->names;
  if (table.count < table.bucket_count) return true;
  uint32_t grown_count = table.bucket_count ? table.bucket_count * 2 : 16;
  Queue** grown = arena_new_array<Queue*>(&engine->arena, grown_count);
  if (!grown) return table.bucket_count != 0;  // an overfull table still works
  for (uint32_t i = 0; i < grown_count; i++) grown[i] = nullptr;  // a fresh block
  for (uint32_t i = 0; i < table.bucket_count; i++) {
    Queue* queue = table.buckets[i];
    while (queue) {
      Queue* next = queue->hash_next;
      Queue** bucket = &grown[queue->hash & (grown_count - 1)];
      put(queue->hash_next, *bucket);
      *bucket = queue;
      queue = next;
    }
  }
  if (table.bucket_count) arena_free_array(&engine->arena, table.buckets, table.bucket_count);
  put(table.buckets, grown);
  put(table.bucket_count, grown_count);
  return true;
}

void insert_queue(Engine* engine, Queue* queue) {
  NameTable& table = engine->names;
  Queue** bucket = &table.buckets[queue->hash & (table.bucket_count - 1)];
  put(queue->hash_next, *bucket);
  put(*bucket, queue);
  put(table.count, table.count + 1);
}

void remove_queue(Engine* engine, Queue* queue) {
  NameTable& table = engine->names;
  Queue** link = &table.buckets[queue->hash & (table.bucket_count - 1)];
  while (*link != queue) link = &(*link)->hash_next;
  put(*link, queue->hash_next);
  put(table.count, table.count - 1);
}

}  // namespace wl
