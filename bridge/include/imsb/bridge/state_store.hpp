#pragma once
// The state queue SYSTEM.IMS.BRIDGE.STATE through an mqi::connection [D] (docs/design/state-queue.md).
// Records (bridgemap/state_records.hpp) are persistent messages keyed by CorrelId. Each writer (a queue
// worker's send side, a partner's receive side) has its own state_store on its own connection, so their
// units of work never contend; every change joins the connection's current unit of work (MQ syncpoint)
// and is made durable by the caller's commit().

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "imsb/bridgemap/state_records.hpp"
#include "imsb/core/result.hpp"
#include "imsb/mqi/connection.hpp"

namespace imsb::bridge {

class state_store {
 public:
  explicit state_store(mqi::connection& conn) : conn_(conn) {}
  ~state_store();
  state_store(const state_store&) = delete;
  state_store& operator=(const state_store&) = delete;

  // Opens the state queue (input shared + browse + output). When it does not exist and `define_if_missing`,
  // defines it with MQSC (DEFINE QLOCAL(...) DEFPSIST(YES) MAXDEPTH(999999999) DESCR(...)) first, which
  // works where the bridge's user may define queues (the embedded queue manager; a daemon's owner); for
  // anyone else the sample MQSC defines it beforehand.
  // Errors: the MQRC (2085 when it is missing and not defined, 2035 ...).
  result<mqi::done> open(bool define_if_missing);
  // Every record on the queue (browse, no unit of work). Undecodable messages are skipped and counted
  // (bad_records(): those of the last load_all) — they are not ours to delete.
  result<std::vector<bridgemap::state_record>> load_all();
  // In the current unit of work: removes the record with the same key (if present), puts `r`.
  result<mqi::done> put(const bridgemap::state_record& r);
  // In the current unit of work: removes the record with this key if present (absent is not an error).
  result<mqi::done> remove(const bridgemap::correl24& key);
  std::size_t bad_records() const noexcept { return bad_; }
  mqi::connection& connection() noexcept { return conn_; }
  // Where load_all says which message it skipped and why (one IMB2121W line each); none when unset.
  void set_console(std::function<void(const std::string& line)> console) { console_ = std::move(console); }

 private:
  mqi::connection& conn_;
  std::function<void(const std::string& line)> console_;
  mqi::hobj handle_ = 0;
  bool open_ = false;
  std::size_t bad_ = 0;
};

}  // namespace imsb::bridge
