/* The C ABI of the Web Locks engine: the spec's lock manager for one origin.
 *
 * Every entry point that touches engine state takes the engine mutex or returns WL_BUSY without
 * any effect; the caller then waits on the mutex word (layout.h) and calls again. Results are
 * never partial: an error (negative return) leaves the engine state exactly as it was.
 *
 * Strings are UTF-16 code units (any sequence: lone surrogates, NULs, empty, megabytes long).
 * Ids and client handles are doubles holding integers below 2^53 (layout.h) that never repeat. */
#ifndef WEBLOCKS_ENGINE_H
#define WEBLOCKS_ENGINE_H

#include <stdint.h>
#include "weblocks/layout.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct wl_engine wl_engine;

enum wl_mode { WL_EXCLUSIVE = 0, WL_SHARED = 1 };
enum wl_wait_mode { WL_WAIT = 0, WL_NO_WAIT = 1 /* ifAvailable */, WL_PREEMPT = 2 /* steal */ };
enum wl_status { WL_GRANTED = 1, WL_QUEUED = 2, WL_NOT_AVAILABLE = 3,
                 WL_DEADLOCK = 4 /* wl_request_within with WL_REJECT_DEADLOCK: not queued */ };
/* WL_EVENT_DEADLOCK: the request (still pending) is in a certain deadlock (wl_deadlock_cycle). */
enum wl_event_type { WL_EVENT_GRANTED = 1, WL_EVENT_STOLEN = 2, WL_EVENT_DEADLOCK = 3 };
/* Journal record types (wl_read_journal). WL_CHANGE_LOST: records were lost (the reader fell
 * behind the ring, or a record was too large for it): take a fresh snapshot. */
enum wl_change_type {
  WL_CHANGE_REQUESTED = 1, WL_CHANGE_GRANTED = 2, WL_CHANGE_RELEASED = 3, WL_CHANGE_ABORTED = 4,
  WL_CHANGE_STOLEN = 5, WL_CHANGE_DEADLOCK = 6, WL_CHANGE_LOST = 7
};
enum wl_request_flags { WL_REJECT_DEADLOCK = 1 };
enum wl_error {
  WL_BUSY = -1,         /* the engine mutex is held elsewhere: wait on it, call again */
  WL_NO_MEMORY = -2,    /* memory could not grow; nothing changed */
  WL_BAD_CLIENT = -3,   /* not an open client handle */
  WL_BAD_ARGUMENT = -4, /* bad mode / wait mode / length, or steal with shared mode */
  WL_TOO_MANY = -5,     /* 2^24 live requests or clients */
  WL_BROKEN = -6        /* an agent died inside a call that could not be rolled back (its undo
                           log ran out of memory): the engine refuses every call */
};

typedef struct wl_stats {
  double memory_bytes; /* bytes the engine obtained from the platform */
  uint32_t clients;    /* open clients */
  uint32_t entries;    /* held locks + pending requests */
  uint32_t names;      /* resource names with a non-empty queue or held lock */
  uint32_t reserved;
  double in_use_bytes; /* of memory_bytes, those not free (adjacent free blocks are merged, and
                          the free memory at the top of the arena is one block, before it grows) */
} wl_stats;

/* Opens a client (an agent: tab, worker, thread) with the spec's clientId; owner_tag groups the
 * clients of one host thread for wl_close_clients_of_owner(). Writes the handle to *handle. */
int32_t wl_open_client(wl_engine* engine, const uint16_t* client_id, uint32_t client_id_length,
                       uint32_t owner_tag, double* handle);

/* Agent termination (spec 2.6): aborts the client's requests, releases its locks, processes the
 * affected queues, rings its doorbell one last time. Returns 0. */
int32_t wl_close_client(wl_engine* engine, double client);

/* Closes every client opened with owner_tag; returns how many. The host calls it when the agents
 * of that owner (a thread) are gone. If one of them died inside an engine call, holding the
 * engine mutex, this call takes the mutex over, rolls the half-done call back (undo log), and
 * goes on: the engine never stays locked by a dead agent. Never call it for a live owner. */
int32_t wl_close_clients_of_owner(wl_engine* engine, uint32_t owner_tag);

/* Frees the engine mutex if an agent of owner_tag holds it, undoing that agent's half-done call
 * (undo log), and changes nothing else: that owner's clients stay open. For a waiter that learns
 * from its platform that the holder can no longer run (its thread is gone) while the host that
 * will close the owner's clients is not there yet (blocked in a call of its own). Returns 1 when
 * it freed the mutex, 0 when the mutex was free or held by another owner, WL_BROKEN when the
 * dead agent's call could not be undone. Never call it for an owner that may still run. */
int32_t wl_free_mutex_of_dead_owner(wl_engine* engine, uint32_t owner_tag);

/* Request a lock (spec 4.1). Returns WL_GRANTED (held now: no event follows), WL_QUEUED (a
 * WL_EVENT_GRANTED event follows when granted) or WL_NOT_AVAILABLE (no-wait, not grantable: the
 * queue is untouched and no id is written). Writes the request id to *id. */
int32_t wl_request(wl_engine* engine, double client, const uint16_t* name, uint32_t name_length,
                   uint32_t mode, uint32_t wait_mode, double* id);

/* wl_request for a request made inside the callback of the client's held lock `under` (its id;
 * 0: outside any, or unknown). If the request would wait and its wait closes a cycle of waits made
 * inside held locks (each holder waits, inside its lock, for a name the next one holds: a certain
 * deadlock), the cycle is written to cycle_out (a uint32 member count, then wl_cycle_member
 * records; count 0 if it does not fit in cycle_capacity bytes), recorded for observers, and then:
 * with WL_REJECT_DEADLOCK in flags, nothing is queued and WL_DEADLOCK is returned; else the
 * request is queued and every client of the cycle gets a WL_EVENT_DEADLOCK event for its waiting
 * request (the requester too). cycle_out may be the name's own memory (read before). */
int32_t wl_request_within(wl_engine* engine, double client, const uint16_t* name, uint32_t name_length,
                          uint32_t mode, uint32_t wait_mode, double under, uint32_t flags, double* id,
                          void* cycle_out, uint32_t cycle_capacity);

/* The certain deadlock the client's pending request `id` is in, written as by wl_request_within.
 * Returns the bytes written, 0 when it is in none (or the cycle does not fit). */
int32_t wl_deadlock_cycle(wl_engine* engine, double client, double id, void* out, uint32_t capacity);

/* Observers of the lock state: delta +1 starts recording changes (the first observer allocates the
 * journal's ring), -1 stops (the last frees it). Writes to out[0] the position of the next record
 * and to out[1] the address of the uint32 word bumped and notified after each record (stable for
 * the engine's life), both as doubles. Returns 0, WL_NO_MEMORY or WL_BAD_ARGUMENT. */
int32_t wl_observe(wl_engine* engine, int32_t delta, double* out);

/* Copies whole journal records (layout.h) from *position on into out, and advances *position past
 * them. Returns the bytes copied (0: none new), or a single WL_CHANGE_LOST record when records
 * from *position on are gone (then *position is the oldest one kept). */
int32_t wl_read_journal(wl_engine* engine, double* position, void* out, uint32_t capacity);

/* A buffer of `length` UTF-16 code units in the engine's own memory, for the client's agent to
 * write a long name into and pass to wl_request (so the name needs no scratch area of the agent's
 * own beside the engine's copy). Replaces the client's previous buffer; length 0 frees it. The
 * buffer is the client's: closing the client frees it. Writes its address to *buffer (null for
 * 0). Returns 0, WL_NO_MEMORY (nothing changed) or WL_BAD_CLIENT. */
int32_t wl_name_buffer(wl_engine* engine, double client, uint32_t length, uint16_t** buffer);

/* Release a lock (spec 4.2). Returns 1 if the client held it, 0 otherwise (already stolen,
 * released, still pending, or another client's id: no effect). */
int32_t wl_release(wl_engine* engine, double client, double id);

/* Abort a request (spec 4.3). Returns 1 if it was pending and is now removed, 0 otherwise
 * (already granted, gone, or another client's id: no effect). */
int32_t wl_abort(wl_engine* engine, double client, double id);

/* Moves up to capacity events from the client's inbox, oldest first, into out. Returns how many. */
int32_t wl_take_events(wl_engine* engine, double client, wl_event_record* out, uint32_t capacity);

/* Snapshot the lock state (spec 4.5) into out (format in layout.h). Returns the byte size of the
 * snapshot; if that is more than capacity, nothing is written: call again with enough room. */
int32_t wl_snapshot(wl_engine* engine, void* out, uint32_t capacity);

/* Snapshot the lock state (spec 4.5) into memory from the engine's own allocator, for a snapshot
 * larger than the caller's scratch: one block if the allocator has one (or can grow), else as
 * many of its free blocks as it takes (largest first), so that memory freed by released locks
 * serves even when memory cannot grow. Writes the address of the first wl_snapshot_piece
 * (layout.h) to *first. Returns the snapshot's byte size, or WL_NO_MEMORY (nothing taken, nothing
 * changed). The pieces are the caller's until it gives them back with wl_free_snapshot (an agent
 * that dies in between leaves them taken). */
int32_t wl_snapshot_pieces(wl_engine* engine, wl_snapshot_piece** first);

/* Gives back the pieces of a snapshot from wl_snapshot_pieces (its first piece; once). */
int32_t wl_free_snapshot(wl_engine* engine, wl_snapshot_piece* first);

/* Writes the address of the client's wl_client_header (doorbell, inbox count) to *header. */
int32_t wl_client_header_address(wl_engine* engine, double client, wl_client_header** header);

int32_t wl_get_stats(wl_engine* engine, wl_stats* out);

/* Caps the bytes the engine may obtain from the platform (0 = only the platform's own limit). */
int32_t wl_set_memory_limit(wl_engine* engine, double bytes);

/* Layout constants for a foreign mirror (JS) to check: see wl_layout_key. */
enum wl_layout_key {
  WL_KEY_LAYOUT_VERSION = 0,
  WL_KEY_ENGINE_HEADER_SIZE = 1,
  WL_KEY_CLIENT_HEADER_SIZE = 2,
  WL_KEY_DOORBELL_OFFSET = 3,
  WL_KEY_INBOX_COUNT_OFFSET = 4,
  WL_KEY_EVENT_RECORD_SIZE = 5,
  WL_KEY_EVENT_ID_OFFSET = 6,
  WL_KEY_SNAPSHOT_HEADER_SIZE = 7,
  WL_KEY_SNAPSHOT_RECORD_SIZE = 8,
  WL_KEY_MUTEX_CONTENDED = 9,
  WL_KEY_SLOT_LIMIT = 10,
  WL_KEY_STACK_PAGE_MAGIC = 11,
  WL_KEY_STACK_PAGE_BYTES = 12,
  WL_KEY_SNAPSHOT_PIECE_HEADER_SIZE = 13,
  WL_KEY_HOLDER_TAG_OFFSET = 14,
  WL_KEY_COUNT = 15
};
uint32_t wl_layout_value(uint32_t key);

#ifdef __EMSCRIPTEN__
/* The one engine of this memory (a zero-initialized global: the first call initializes it). */
wl_engine* wl_engine_shared(void);
/* Returns 1 to exactly one caller per memory: the instance that runs _initialize. */
uint32_t wl_claim_initialization(void);
#else
/* Native: an engine on the C heap, memory obtained in chunks (limit as wl_set_memory_limit). */
wl_engine* wl_engine_create(void);
void wl_engine_destroy(wl_engine* engine);
/* The owner tag of the calling thread (what a wasm instance reads from its stack page). */
void wl_set_thread_owner_tag(uint32_t owner_tag);
/* Blocks until the engine mutex may be free (after WL_BUSY). */
void wl_wait_for_mutex(wl_engine* engine);
/* Blocks until the doorbell word differs from seen (or a spurious wake-up). */
void wl_wait_for_doorbell(const wl_client_header* header, uint32_t seen);
#endif

#ifdef __cplusplus
}
#endif

#endif
