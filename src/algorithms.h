// The spec's algorithms on engine state. Every function here runs with the engine mutex held
// (the spec's "lock task queue": one step at a time), see c_api.cpp.
#pragma once
#include "state.h"

namespace wl {

int32_t open_client(Engine* engine, const uint16_t* client_id, uint32_t length, uint32_t owner_tag,
                    double* handle);
void agent_termination(Engine* engine, Client* client);
// Replaces the client's name buffer with one of `length` units (0: none).
int32_t set_name_buffer(Engine* engine, Client* client, uint32_t length);
// What wl_request_within adds to a request (engine.h).
struct RequestWithin {
  double under;
  uint32_t flags;
  unsigned char* cycle_out;
  uint32_t cycle_capacity;
};
int32_t request_a_lock(Engine* engine, Client* client, const uint16_t* name, uint32_t length,
                       uint32_t mode, uint32_t wait_mode, double* id, const RequestWithin& within);
int32_t deadlock_cycle(Engine* engine, Client* client, double id, unsigned char* out, uint32_t capacity);
bool release_a_lock(Engine* engine, Client* client, double id);
bool abort_a_request(Engine* engine, Client* client, double id);
uint32_t take_events(Engine* engine, Client* client, wl_event_record* out, uint32_t capacity);
uint64_t snapshot_size(Engine* engine);
void snapshot_the_lock_state(Engine* engine, void* out);
int32_t snapshot_into_pieces(Engine* engine, wl_snapshot_piece** first);
void free_snapshot_pieces(Engine* engine, wl_snapshot_piece* first);

}  // namespace wl
