#pragma once
// Private pieces of the bridge engine (engine.cpp): the event queue that carries session events from the
// transport's thread to a partner's or a worker's own thread (no MQ work on the XCF thread:
// docs/design/concurrency.md), the in-memory copy of the state records, and small helpers.

#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <utility>

#include "imsb/bridgemap/state_records.hpp"
#include "imsb/core/result.hpp"
#include "imsb/mq/codes.hpp"
#include "imsb/mq/constants.hpp"
#include "imsb/sync/mutex.hpp"

namespace imsb::bridge::detail {

// A FIFO of events for one thread. post() from any thread; pop() waits at most `wait`.
template <class Event>
class event_queue {
 public:
  void post(Event e) IMSB_EXCLUDES(mu_) {
    {
      sync::lock_guard lock(mu_);
      q_.push_back(std::move(e));
    }
    cv_.notify_one();
  }
  std::optional<Event> pop(std::chrono::milliseconds wait) IMSB_EXCLUDES(mu_) {
    sync::unique_lock lock(mu_);
    wait_locked(lock, wait);
    woken_ = false;
    if (q_.empty()) return std::nullopt;
    Event e = std::move(q_.front());
    q_.pop_front();
    return e;
  }
  // The first event, at once, if there is one and `take(it)` says so; else none, and the queue unchanged.
  template <typename Take>
  std::optional<Event> pop_if(const Take& take) IMSB_EXCLUDES(mu_) {
    sync::lock_guard lock(mu_);
    if (q_.empty() || !take(q_.front())) return std::nullopt;
    Event e = std::move(q_.front());
    q_.pop_front();
    return e;
  }
  // Waits at most `wait` for an event (left in the queue) or a wake().
  void wait(std::chrono::milliseconds wait) IMSB_EXCLUDES(mu_) {
    sync::unique_lock lock(mu_);
    wait_locked(lock, wait);
    woken_ = false;
  }
  // Ends a pop() or wait() that waits, without an event (stop, configuration change).
  void wake() IMSB_EXCLUDES(mu_) {
    {
      sync::lock_guard lock(mu_);
      woken_ = true;
    }
    cv_.notify_all();
  }
  bool empty() const IMSB_EXCLUDES(mu_) {
    sync::lock_guard lock(mu_);
    return q_.empty();
  }

 private:
  // At most `wait` for an event or a wake(), as cv_.wait_for with the predicate !q_.empty() || woken_.
  void wait_locked(sync::unique_lock& lock, std::chrono::milliseconds wait) IMSB_REQUIRES(mu_) {
    if (!q_.empty() || wait.count() <= 0) return;
    const auto until = std::chrono::steady_clock::now() + wait;
    while (q_.empty() && !woken_)
      if (cv_.wait_until(lock, until) == std::cv_status::timeout) break;
  }

  mutable sync::mutex mu_;
  sync::condition_variable cv_;
  std::deque<Event> q_ IMSB_GUARDED_BY(mu_);
  bool woken_ IMSB_GUARDED_BY(mu_) = false;
};

// What the state queue says about one synchronized Tpipe (send and receive sides, in-flight record,
// "stopped" record), kept in memory by the engine and changed only after the unit of work that changed
// the records committed.
struct tpipe_records {
  std::uint32_t send = 0;
  std::uint32_t receive = 0;
  bool has_send = false, has_receive = false;
  std::optional<std::uint32_t> in_flight;
  bridgemap::token16 in_flight_token{};
  std::string in_flight_queue;
  std::optional<std::string> stopped;  // reason, while a "stopped" record exists
};

// A state record's numbers applied to a Tpipe's cached records: send, receive, in flight, stopped.
// Other kinds (assignments, CM1 markers) leave them unchanged.
inline void apply_record(tpipe_records& t, const bridgemap::state_record& r) {
  switch (r.kind) {
    case bridgemap::record_kind::send:
      t.send = r.number;
      t.has_send = true;
      break;
    case bridgemap::record_kind::receive:
      t.receive = r.number;
      t.has_receive = true;
      break;
    case bridgemap::record_kind::in_flight:
      t.in_flight = r.number;
      t.in_flight_token = r.token;
      t.in_flight_queue = r.queue;
      break;
    case bridgemap::record_kind::stopped:
      t.stopped = r.reason;
      break;
    default:
      break;
  }
}

class record_cache {
 public:
  static std::string key(const std::string& group, const std::string& member, const std::string& tpipe) {
    return group + "/" + member + "/" + tpipe;
  }
  tpipe_records get(const std::string& k) const IMSB_EXCLUDES(mu_) {
    sync::lock_guard lock(mu_);
    auto it = map_.find(k);
    return it == map_.end() ? tpipe_records{} : it->second;
  }
  bool has(const std::string& k) const IMSB_EXCLUDES(mu_) {
    sync::lock_guard lock(mu_);
    return map_.count(k) != 0;
  }
  template <class F>
  void update(const std::string& k, F&& f) IMSB_EXCLUDES(mu_) {
    sync::lock_guard lock(mu_);
    f(map_[k]);
    changed_[k] = ++version_;
  }
  // For a reload from the state queue: the version before the records are read, then
  // replace_if_unchanged() for each. A worker that changed an entry meanwhile did so after its own commit,
  // so its memory is newer than what the reload read; overwriting it would bring back a settled in-flight
  // record or drop a new one (the next message would then take its number: NAK X'1F').
  std::uint64_t version() const IMSB_EXCLUDES(mu_) {
    sync::lock_guard lock(mu_);
    return version_;
  }
  bool replace_if_unchanged(const std::string& k, const tpipe_records& value, std::uint64_t since)
      IMSB_EXCLUDES(mu_) {
    sync::lock_guard lock(mu_);
    auto it = changed_.find(k);
    if (it != changed_.end() && it->second > since) return false;
    map_[k] = value;
    changed_[k] = ++version_;
    return true;
  }

 private:
  mutable sync::mutex mu_;
  std::map<std::string, tpipe_records> map_ IMSB_GUARDED_BY(mu_);
  // The version of each entry's last change.
  std::map<std::string, std::uint64_t> changed_ IMSB_GUARDED_BY(mu_);
  std::uint64_t version_ IMSB_GUARDED_BY(mu_) = 0;
};

// A connection that is gone (CM0 step 7, docs/design/commit-modes.md: reconnect, reload the records,
// resync): the MQI contract's is_connection_gone, and a handle the queue manager no longer knows (2019):
// the bridge's handles are opened once per connection, so a lost one means the connection was made again.
inline bool connection_broken(const decode_error& e) {
  return mqi::is_connection_gone(e) || mqi::reason_of(e) == mq::MQRC_HOBJ_ERROR;
}

inline std::string trim(std::string s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\0')) s.pop_back();
  std::size_t i = 0;
  while (i < s.size() && s[i] == ' ') ++i;
  return s.substr(i);
}

}  // namespace imsb::bridge::detail
