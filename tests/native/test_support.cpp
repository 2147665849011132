#include "test_support.h"

#include <cstring>
#include <ostream>

namespace wltest {

namespace {
template <class Call>
int32_t retry(wl_engine* engine, Call call) {
  int32_t result;
  while ((result = call()) == WL_BUSY) wl_wait_for_mutex(engine);
  return result;
}

std::string narrow(const u16string& text) {
  std::string out;
  for (char16_t unit : text) {
    if (unit >= 0x20 && unit < 0x7f) out += static_cast<char>(unit);
    else out += "\\u" + std::to_string(static_cast<unsigned>(unit));
  }
  return out;
}
}  // namespace

EngineHandle::EngineHandle() : engine_(wl_engine_create()) {}
EngineHandle::~EngineHandle() { wl_engine_destroy(engine_); }

double EngineHandle::open(const u16string& client_id, uint32_t owner_tag) {
  double client = 0;
  int32_t result = retry(engine_, [&] {
    return wl_open_client(engine_, reinterpret_cast<const uint16_t*>(client_id.data()),
                          static_cast<uint32_t>(client_id.size()), owner_tag, &client);
  });
  EXPECT_EQ(result, 0) << "wl_open_client";
  return client;
}

int32_t EngineHandle::close(double client) {
  return retry(engine_, [&] { return wl_close_client(engine_, client); });
}

int32_t EngineHandle::close_owner(uint32_t owner_tag) {
  return retry(engine_, [&] { return wl_close_clients_of_owner(engine_, owner_tag); });
}

RequestResult EngineHandle::request(double client, const u16string& name, uint32_t mode, uint32_t wait_mode) {
  RequestResult result{0, 0};
  result.status = retry(engine_, [&] {
    return wl_request(engine_, client, reinterpret_cast<const uint16_t*>(name.data()),
                      static_cast<uint32_t>(name.size()), mode, wait_mode, &result.id);
  });
  return result;
}

int32_t EngineHandle::release(double client, double id) {
  return retry(engine_, [&] { return wl_release(engine_, client, id); });
}

int32_t EngineHandle::abort(double client, double id) {
  return retry(engine_, [&] { return wl_abort(engine_, client, id); });
}

std::vector<Event> EngineHandle::events(double client) {
  std::vector<Event> out;
  wl_event_record records[4];
  for (;;) {
    int32_t count = retry(engine_, [&] { return wl_take_events(engine_, client, records, 4); });
    EXPECT_GE(count, 0) << "wl_take_events";
    for (int32_t i = 0; i < count; i++) out.push_back({records[i].type, records[i].id});
    if (count < 4) return out;
  }
}

Snapshot EngineHandle::snapshot() {
  std::vector<unsigned char> buffer(64);
  for (;;) {
    int32_t size = retry(engine_, [&] {
      return wl_snapshot(engine_, buffer.data(), static_cast<uint32_t>(buffer.size()));
    });
    EXPECT_GE(size, 0) << "wl_snapshot";
    if (size < 0) return {};
    if (static_cast<size_t>(size) <= buffer.size()) break;
    buffer.resize(size);
  }
  Snapshot snapshot;
  wl_snapshot_header header;
  std::memcpy(&header, buffer.data(), sizeof header);
  size_t at = sizeof header;
  for (uint32_t i = 0; i < header.held_count + header.pending_count; i++) {
    wl_snapshot_record record;
    std::memcpy(&record, buffer.data() + at, sizeof record);
    at += sizeof record;
    LockInfo info{u16string(record.name_length, u'\0'), record.mode, u16string(record.client_id_length, u'\0')};
    std::memcpy(info.name.data(), buffer.data() + at, 2 * record.name_length);
    at += 2 * record.name_length;
    std::memcpy(info.client_id.data(), buffer.data() + at, 2 * record.client_id_length);
    at += 2 * record.client_id_length;
    at = (at + 3) / 4 * 4;
    (i < header.held_count ? snapshot.held : snapshot.pending).push_back(info);
  }
  return snapshot;
}

wl_stats EngineHandle::stats() {
  wl_stats stats{};
  EXPECT_EQ(retry(engine_, [&] { return wl_get_stats(engine_, &stats); }), 0);
  return stats;
}

const wl_client_header* EngineHandle::header(double client) {
  wl_client_header* header = nullptr;
  EXPECT_EQ(retry(engine_, [&] { return wl_client_header_address(engine_, client, &header); }), 0);
  return header;
}

std::ostream& operator<<(std::ostream& out, const LockInfo& info) {
  return out << "{" << narrow(info.name) << ", " << (info.mode == WL_SHARED ? "shared" : "exclusive")
             << ", " << narrow(info.client_id) << "}";
}

std::ostream& operator<<(std::ostream& out, const Event& event) {
  return out << "{" << (event.type == WL_EVENT_GRANTED ? "granted" : "stolen") << ", " << event.id << "}";
}

}  // namespace wltest
