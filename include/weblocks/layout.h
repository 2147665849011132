/* The shared-memory layout of the Web Locks engine: every word that an agent other than the
 * engine reads or waits on, who writes it, and who waits on it. js/engine/layout.js mirrors it
 * and checks the mirror at startup against wl_layout_value() (see engine.h).
 *
 * Everything else in engine memory (queues, entries, names, inboxes) is private to the engine
 * and only touched while holding the engine mutex. */
#ifndef WEBLOCKS_LAYOUT_H
#define WEBLOCKS_LAYOUT_H

#include <stdint.h>

#define WL_LAYOUT_VERSION 2u
#define WL_ENGINE_MAGIC 0x574c4b31u /* "WLK1": written once, by the first call that takes the mutex */

/* The engine mutex (a futex word). Written by every entry point with compare-exchange / exchange;
 * waited on (value WL_MUTEX_CONTENDED) by a caller that got WL_BUSY: Atomics.wait in JS,
 * FUTEX_WAIT natively. The holder notifies ALL waiters when it unlocks a contended mutex, so a
 * woken waiter that retries with a plain compare-exchange can never strand another sleeper. */
enum wl_mutex_state {
  WL_MUTEX_UNLOCKED = 0,
  WL_MUTEX_LOCKED = 1,    /* held, nobody has asked to be woken */
  WL_MUTEX_CONTENDED = 2  /* held, and some caller may be sleeping on the word */
};

/* The first bytes of the engine root. The engine address (wl_engine_shared() in wasm) is the
 * address of the mutex word. */
typedef struct wl_engine_header {
  uint32_t mutex;          /* enum wl_mutex_state */
  uint32_t magic;          /* WL_ENGINE_MAGIC once initialized (under the mutex) */
  uint32_t layout_version; /* WL_LAYOUT_VERSION */
  /* The owner tag of the agent holding the mutex (from its stack page header, below), 0 when
   * unlocked or untagged. Written by the holder right after taking the mutex and cleared right
   * before releasing it. Read by wl_close_clients_of_owner(tag): if the holder is an agent of the
   * owner being closed (the host declares it dead), the caller takes the mutex over and rolls the
   * dead agent's half-done call back. Also read (a hint) by a host closing several dead owners,
   * to close the holder first. */
  uint32_t holder_tag;
} wl_engine_header;

/* The first bytes of each instance's stack page (64 KiB, page-aligned, one per attached wasm
 * instance; the stack grows down from the top of the page). Written once by the attaching agent
 * (JS), read by the engine to learn which owner is calling. */
#define WL_STACK_PAGE_MAGIC 0x4b435453u /* "STCK" */
#define WL_STACK_PAGE_BYTES 65536u
typedef struct wl_stack_page_header {
  uint32_t magic;     /* WL_STACK_PAGE_MAGIC */
  uint32_t owner_tag; /* e.g. the Node threadId; 0 = never taken over */
} wl_stack_page_header;

/* The first bytes of every client record; its address is stable for the whole life of the
 * engine (client records are recycled, never freed), so a waiter never waits on freed memory. */
typedef struct wl_client_header {
  /* The doorbell: bumped (atomic add 1) and notified (all waiters) by the engine, under its
   * mutex, after every event posted to this client's inbox and when the client is closed.
   * Waited on by the client's own agent: Atomics.waitAsync(int32, index, lastSeenValue). */
  uint32_t doorbell;
  /* Number of undelivered events in the inbox. Written by the engine under its mutex (atomic
   * store); read without the mutex by the client's agent as a hint (0 = nothing to take). */
  uint32_t inbox_count;
} wl_client_header;

/* One event as wl_take_events() copies it out. */
typedef struct wl_event_record {
  uint32_t type;     /* enum wl_event_type (engine.h) */
  uint32_t reserved;
  double id;         /* the request id the event is about */
} wl_event_record;

/* wl_snapshot() output: a header, then held records (grant order), then pending records
 * (request order). Each record is followed by name_length UTF-16 code units, then
 * client_id_length code units, then 0 or 2 bytes of padding so the next record is 4-aligned. */
typedef struct wl_snapshot_header {
  uint32_t held_count;
  uint32_t pending_count;
} wl_snapshot_header;

typedef struct wl_snapshot_record {
  uint32_t name_length;      /* UTF-16 code units */
  uint32_t mode;             /* enum wl_mode */
  uint32_t client_id_length; /* UTF-16 code units */
} wl_snapshot_record;

/* One piece of a snapshot taken with wl_snapshot_pieces (engine.h): `bytes` bytes of the snapshot
 * follow this header. The pieces in order (`next`: the address of the following piece, 0 after
 * the last) hold the snapshot in the format of wl_snapshot: header, then the records. */
typedef struct wl_snapshot_piece {
  uint32_t bytes;       /* snapshot bytes in this piece, after the header */
  uint32_t block_bytes; /* the size of the engine block it is (for wl_free_snapshot) */
  double next;          /* address of the next piece; 0: the last */
} wl_snapshot_piece;

/* Observed changes (wl_observe, wl_read_journal in engine.h): records of whole multiples of 4
 * bytes, each a header, then for a change: name_length then client_id_length UTF-16 code units
 * (padded to 4 bytes); for a deadlock (`count` = member count): its members (wl_cycle_member). */
typedef struct wl_journal_record {
  uint32_t bytes;  /* the whole record, header included */
  uint32_t type;   /* enum wl_change_type (engine.h) */
  uint32_t mode;   /* enum wl_mode; for a deadlock, flags: 1 = the closing request was rejected */
  uint32_t count;  /* name_length; for a deadlock, the member count */
  uint32_t client_id_length;
} wl_journal_record;

/* One member of a deadlock cycle, in wait order (each waits for what the next holds; the last for
 * what the first holds): client_id_length, holds_length then waits_length UTF-16 code units follow
 * (padded to 4 bytes). A cycle as wl_request_within and wl_deadlock_cycle write it: a uint32
 * member count, then the members. */
typedef struct wl_cycle_member {
  uint32_t waits_mode;       /* enum wl_mode of the request that waits */
  uint32_t client_id_length; /* the member's clientId */
  uint32_t holds_length;     /* the name of the lock it holds and waits inside */
  uint32_t waits_length;     /* the name it waits for */
} wl_cycle_member;

/* Ids and client handles are JS-safe integers: generation * WL_SLOT_LIMIT + slot. A slot whose
 * generation would pass WL_GENERATION_LIMIT is retired, so no id or handle ever repeats. */
#define WL_SLOT_LIMIT 16777216.0          /* 2^24 slots */
#define WL_GENERATION_LIMIT 536870911u    /* 2^29 - 1: generation * 2^24 + slot < 2^53 */

#ifdef __cplusplus
#include <stddef.h>
static_assert(sizeof(wl_engine_header) == 16, "engine header is 16 bytes");
static_assert(offsetof(wl_engine_header, mutex) == 0, "the engine address is its mutex word");
static_assert(alignof(wl_engine_header) == 4, "engine header is word aligned");
static_assert(offsetof(wl_engine_header, holder_tag) == 12, "holder tag last");
static_assert(sizeof(wl_stack_page_header) == 8, "stack page header is 8 bytes");
static_assert(sizeof(wl_client_header) == 8, "client header is 8 bytes");
static_assert(offsetof(wl_client_header, doorbell) == 0, "doorbell first");
static_assert(offsetof(wl_client_header, inbox_count) == 4, "inbox count second");
static_assert(sizeof(wl_event_record) == 16, "event record is 16 bytes");
static_assert(offsetof(wl_event_record, id) == 8, "event id is 8-aligned");
static_assert(sizeof(wl_snapshot_header) == 8, "snapshot header is 8 bytes");
static_assert(sizeof(wl_snapshot_record) == 12, "snapshot record is 12 bytes");
static_assert(sizeof(wl_snapshot_piece) == 16, "snapshot piece header is 16 bytes");
static_assert(offsetof(wl_snapshot_piece, next) == 8, "next piece address at 8");
static_assert(sizeof(wl_journal_record) == 20, "journal record header is 20 bytes");
static_assert(sizeof(wl_cycle_member) == 16, "cycle member header is 16 bytes");
static_assert(sizeof(uint16_t) == 2, "UTF-16 code units");
#endif

#endif
