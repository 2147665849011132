// Helpers for the native engine tests: a fresh engine per test, calls that wait out WL_BUSY,
// UTF-16 names, and a decoded snapshot.
#pragma once
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "weblocks/engine.h"

namespace wltest {

using u16string = std::u16string;

struct LockInfo {
  u16string name;
  uint32_t mode;
  u16string client_id;
  bool operator==(const LockInfo& other) const {
    return name == other.name && mode == other.mode && client_id == other.client_id;
  }
};

struct Snapshot {
  std::vector<LockInfo> held;
  std::vector<LockInfo> pending;
};

struct Event {
  uint32_t type;
  double id;
  bool operator==(const Event& other) const { return type == other.type && id == other.id; }
};

struct RequestResult {
  int32_t status;
  double id;
};

// Thin wrappers over the C ABI that retry on WL_BUSY (waiting on the mutex word).
class EngineHandle {
 public:
  EngineHandle();
  ~EngineHandle();
  EngineHandle(const EngineHandle&) = delete;
  EngineHandle& operator=(const EngineHandle&) = delete;

  wl_engine* get() const { return engine_; }
  double open(const u16string& client_id, uint32_t owner_tag = 0);
  int32_t close(double client);
  int32_t close_owner(uint32_t owner_tag);
  RequestResult request(double client, const u16string& name, uint32_t mode = WL_EXCLUSIVE,
                        uint32_t wait_mode = WL_WAIT);
  int32_t release(double client, double id);
  int32_t abort(double client, double id);
  std::vector<Event> events(double client);
  Snapshot snapshot();
  wl_stats stats();
  const wl_client_header* header(double client);

 private:
  wl_engine* engine_;
};

std::ostream& operator<<(std::ostream& out, const LockInfo& info);
std::ostream& operator<<(std::ostream& out, const Event& event);

}  // namespace wltest
