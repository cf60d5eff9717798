#pragma once
// Private to qmgr/src: MQCB and MQCTL (connection.hpp) for the queue manager's own backends, the
// in-process connection (engine_connection.cpp) and the client connection (client_connection.cpp) [D].
//
// The dispatcher gets each consumer's messages with ordinary MQGETs without a wait, so every MQGMO
// option means what it means for MQGET; when a whole pass over the consumers found nothing it waits for
// the queue manager to change (a put, a commit, a queue altered: the engine's change mark) — or for a
// wake(), which MQCTL STOP / SUSPEND and MQCB from another thread use — never for a timer. A mark read
// before the pass makes the wait return at once when something changed during the pass, so no message
// is missed between the pass and the wait.

#include <atomic>
#include <cstdint>
#include <map>
#include <optional>
#include <thread>

#include "imsb/mqi/connection.hpp"
#include "imsb/sync/mutex.hpp"

namespace imsb::qmgr::detail {

// What a backend gives its dispatcher.
class consume_backend {
 public:
  virtual ~consume_backend() = default;
  // The queue manager's change mark now; with `wait`, first waits until it differs from `mark`, wake()
  // was called (since the last wait that returned for it), or the connection can no longer be used (the
  // next get says why).
  virtual std::uint32_t wait_for_change(std::uint32_t mark, bool wait) = 0;
  // Thread-safe: ends the current or next wait_for_change.
  virtual void wake() noexcept = 0;
  // The MQOO options `handle` was opened with, for MQCB's checks; MQRC_HOBJ_ERROR when it is not open.
  virtual mqi::result<std::int32_t> open_options(mqi::hobj handle) = 0;
  // The backend's MQGET, without the check that refuses other threads while consumption is started.
  virtual mqi::result<mqi::message> consumer_get(mqi::hobj handle, const mqi::get_request& request) = 0;
};

class async_consume {
 public:
  // `conn` is what callbacks are given; `backend` does the work. Both outlive this.
  async_consume(mqi::connection& conn, consume_backend& backend) : conn_(conn), be_(backend) {}
  ~async_consume();
  async_consume(const async_consume&) = delete;
  async_consume& operator=(const async_consume&) = delete;

  mqi::result<mqi::done> callback(std::int32_t operation, const mqi::callback_descriptor& cbd,
                                  mqi::hobj handle, const mqi::get_request& request);
  mqi::result<mqi::done> control(std::int32_t operation);

  // For every other call: MQRC_HCONN_ASYNC_ACTIVE when consumption is started and the caller is not
  // running a callback.
  std::optional<decode_error> refuse(const char* call) const IMSB_EXCLUDES(mu_);
  // MQDISC: from inside a callback MQRC_ENVIRONMENT_ERROR (as an error); else stops consumption and
  // deregisters every callback (DEREGISTER_CALLs made), then the caller disconnects.
  std::optional<decode_error> end_for_disconnect() IMSB_EXCLUDES(mu_);
  // The connection ends without MQDISC: the dispatch stops (no STOP_CALL or DEREGISTER_CALL) and its
  // thread is joined. Not from a callback.
  void halt() noexcept IMSB_EXCLUDES(mu_);
  // MQCLOSE of `handle` (closed): its consumer is deregistered.
  void closed(mqi::hobj handle) IMSB_EXCLUDES(mu_);

 private:
  enum class state { stopped, started, suspended };
  struct consumer {
    mqi::callback_descriptor cbd;
    mqi::get_request request;
    bool suspended = false;  // MQCB SUSPEND, or suspended by an error of its own
  };

  bool on_dispatcher_thread() const IMSB_REQUIRES(mu_);
  void run() IMSB_EXCLUDES(mu_);  // the dispatch loop: MQOP_START's thread, or MQOP_START_WAIT's caller
  void call(const mqi::callback_descriptor& cbd, const mqi::message* msg, const mqi::callback_context& ctx);
  void control_calls(std::int32_t call_type, std::int32_t option, std::int32_t reason);
  void event(std::int32_t reason) IMSB_EXCLUDES(mu_);
  bool any_active() const IMSB_REQUIRES(mu_);
  void join_thread() IMSB_EXCLUDES(mu_);  // not on the dispatcher thread
  // MQOP_START / START_WAIT from the stopped state: joins a dispatcher that ended by itself and marks the
  // dispatch started, on a thread of its own or (`on_caller`) the caller's. `lk` holds mu_.
  void begin_dispatch(sync::unique_lock& lk, bool on_caller) IMSB_REQUIRES(mu_);

  mqi::connection& conn_;
  consume_backend& be_;
  mutable sync::mutex mu_;
  sync::condition_variable cv_;  // state changes, for a suspended dispatcher and MQCTL STOP's wait
  state state_ IMSB_GUARDED_BY(mu_) = state::stopped;
  // state_ == started while a dispatch runs, readable without mu_: refuse()'s fast path on every MQI call
  // of a connection that never consumes asynchronously.
  std::atomic<bool> started_{false};
  void set_state(state s) IMSB_REQUIRES(mu_);
  bool start_wait_ IMSB_GUARDED_BY(mu_) = false;  // the dispatcher runs on MQOP_START_WAIT's caller
  bool stop_requested_ IMSB_GUARDED_BY(mu_) = false;
  bool suspend_requested_ IMSB_GUARDED_BY(mu_) = false;
  bool running_ IMSB_GUARDED_BY(mu_) = false;  // run() is on its way
  std::thread::id dispatcher_ IMSB_GUARDED_BY(mu_);
  // Started under mu_ (begin_dispatch) and joined outside it by the thread that controls the connection
  // (MQCTL STOP, halt, MQDISC): never by two threads at once, so it is not guarded.
  std::thread thread_;
  std::map<mqi::hobj, consumer> consumers_ IMSB_GUARDED_BY(mu_);
  std::optional<mqi::callback_descriptor> event_handler_ IMSB_GUARDED_BY(mu_);
  // The dispatch ended because the connection can no longer be used.
  std::int32_t ended_reason_ IMSB_GUARDED_BY(mu_) = 0;
};

}  // namespace imsb::qmgr::detail
