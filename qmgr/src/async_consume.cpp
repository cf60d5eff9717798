#include "async_consume.hpp"

#include <utility>
#include <vector>

#include "imsb/mq/codes.hpp"

namespace imsb::qmgr::detail {
namespace {

decode_error mqrc(const char* call, std::int32_t rc, std::string detail) {
  return decode_error{mq::make_mqrc(rc), call, 0, std::move(detail)};
}

constexpr std::int32_t known_cbd_options = mq::MQCBDO_START_CALL | mq::MQCBDO_STOP_CALL |
                                           mq::MQCBDO_REGISTER_CALL | mq::MQCBDO_DEREGISTER_CALL |
                                           mq::MQCBDO_FAIL_IF_QUIESCING | mq::MQCBDO_EVENT_CALL;

bool browses(const mqi::get_request& r) {
  return (r.options & (mq::MQGMO_BROWSE_FIRST | mq::MQGMO_BROWSE_NEXT | mq::MQGMO_BROWSE_MSG_UNDER_CURSOR)) !=
         0;
}

// The reasons that end the whole consumption rather than one consumer's: the connection cannot be used
// again, or the queue manager is ending.
bool ends_consumption(std::int32_t reason) {
  return mqi::is_connection_gone(reason) || reason == mq::MQRC_Q_MGR_QUIESCING;
}

}  // namespace

async_consume::~async_consume() { halt(); }

void async_consume::halt() noexcept {
  {
    sync::lock_guard lock(mu_);
    stop_requested_ = true;
  }
  be_.wake();
  cv_.notify_all();
  if (thread_.joinable() && thread_.get_id() != std::this_thread::get_id()) thread_.join();
}

bool async_consume::on_dispatcher_thread() const {
  return running_ && dispatcher_ == std::this_thread::get_id();
}

bool async_consume::any_active() const {
  for (const auto& [h, c] : consumers_)
    if (!c.suspended) return true;
  return false;
}

void async_consume::set_state(state s) {
  state_ = s;
  started_.store(s == state::started, std::memory_order_release);
}

std::optional<decode_error> async_consume::refuse(const char* call) const {
  if (!started_.load(std::memory_order_acquire)) return std::nullopt;
  sync::lock_guard lock(mu_);
  if (state_ == state::started && running_ && !on_dispatcher_thread())
    return mqrc(call, mq::MQRC_HCONN_ASYNC_ACTIVE,
                "the connection is started for asynchronous consume (MQCTL MQOP_START): only MQCTL STOP or "
                "SUSPEND and MQDISC may be called from outside its callbacks");
  return std::nullopt;
}

void async_consume::call(const mqi::callback_descriptor& cbd, const mqi::message* msg,
                         const mqi::callback_context& ctx) {
  try {
    cbd.function(conn_, msg, ctx);
  } catch (...) {
    // A callback that does not end normally: the event handler hears of it [C] the MQCB topic.
    std::optional<mqi::callback_descriptor> eh;
    {
      sync::lock_guard lock(mu_);
      eh = event_handler_;
    }
    if (eh && cbd.callback_type != mq::MQCBT_EVENT_HANDLER) {
      mqi::callback_context e;
      e.call_type = mq::MQCBCT_EVENT_CALL;
      e.comp_code = mq::MQCC_FAILED;
      e.reason = mq::MQRC_UNEXPECTED_ERROR;
      try {
        eh->function(conn_, nullptr, e);
      } catch (...) {  // nothing more to tell
      }
    }
  }
}

mqi::result<mqi::done> async_consume::callback(std::int32_t operation, const mqi::callback_descriptor& cbd,
                                               mqi::hobj handle, const mqi::get_request& request) {
  if (auto r = refuse("MQCB")) return *r;
  const std::int32_t base = operation & ~(mq::MQOP_SUSPEND | mq::MQOP_RESUME);
  const std::int32_t extra = operation & (mq::MQOP_SUSPEND | mq::MQOP_RESUME);
  const bool valid = extra != (mq::MQOP_SUSPEND | mq::MQOP_RESUME) &&
                     ((base == mq::MQOP_REGISTER) || (base == 0 && extra != 0) ||
                      (base == mq::MQOP_DEREGISTER && extra == 0));
  if (!valid)
    return mqrc("MQCB", mq::MQRC_OPERATION_ERROR,
                "operation " + std::to_string(operation) +
                    " is not MQOP_REGISTER (with SUSPEND or RESUME), DEREGISTER, SUSPEND or RESUME");
  const bool event_handler = cbd.callback_type == mq::MQCBT_EVENT_HANDLER;
  if (base == mq::MQOP_REGISTER) {
    if (cbd.callback_type != mq::MQCBT_MESSAGE_CONSUMER && !event_handler)
      return mqrc("MQCB", mq::MQRC_CALLBACK_TYPE_ERROR,
                  "CallbackType " + std::to_string(cbd.callback_type) +
                      " is not MQCBT_MESSAGE_CONSUMER or MQCBT_EVENT_HANDLER");
    if ((cbd.options & ~known_cbd_options) != 0)
      return mqrc("MQCB", mq::MQRC_CBD_OPTIONS_ERROR,
                  "MQCBD Options " + std::to_string(cbd.options) + " has bits that are not MQCBDO_*");
    if (!cbd.function) return mqrc("MQCB", mq::MQRC_CALLBACK_ROUTINE_ERROR, "the MQCBD gives no function");
    if (!event_handler) {
      auto oo = be_.open_options(handle);
      if (!oo) return oo.error();
      constexpr std::int32_t input =
          mq::MQOO_INPUT_AS_Q_DEF | mq::MQOO_INPUT_SHARED | mq::MQOO_INPUT_EXCLUSIVE;
      if (browses(request) && (*oo & mq::MQOO_BROWSE) == 0)
        return mqrc("MQCB", mq::MQRC_NOT_OPEN_FOR_BROWSE, "the queue was not opened with MQOO_BROWSE");
      if (!browses(request) && (*oo & input) == 0)
        return mqrc("MQCB", mq::MQRC_NOT_OPEN_FOR_INPUT, "the queue was not opened for input");
    }
    mqi::callback_descriptor registered = cbd;
    {
      sync::lock_guard lock(mu_);
      if (event_handler) {
        event_handler_ = registered;
      } else {
        consumer& c = consumers_[handle];
        c.cbd = registered;
        c.request = request;
        c.suspended = extra == mq::MQOP_SUSPEND;
      }
    }
    if ((cbd.options & mq::MQCBDO_REGISTER_CALL) != 0) {
      mqi::callback_context ctx;
      ctx.call_type = mq::MQCBCT_REGISTER_CALL;
      ctx.handle = event_handler ? mq::MQHO_NONE : handle;
      call(registered, nullptr, ctx);
    }
    be_.wake();  // a dispatcher waiting looks at the new consumer
    return mqi::done{};
  }
  // DEREGISTER, SUSPEND, RESUME of a registered callback.
  std::optional<mqi::callback_descriptor> gone;
  {
    sync::lock_guard lock(mu_);
    if (event_handler) {
      if (!event_handler_)
        return mqrc("MQCB", mq::MQRC_CALLBACK_NOT_REGISTERED, "no event handler is registered");
      if (base == mq::MQOP_DEREGISTER) {
        gone = event_handler_;
        event_handler_.reset();
      }
    } else {
      auto it = consumers_.find(handle);
      if (it == consumers_.end())
        return mqrc("MQCB", mq::MQRC_CALLBACK_NOT_REGISTERED,
                    "no consumer is registered on handle " + std::to_string(handle));
      if (base == mq::MQOP_DEREGISTER) {
        gone = it->second.cbd;
        consumers_.erase(it);
      } else {
        it->second.suspended = extra == mq::MQOP_SUSPEND;
      }
    }
  }
  if (gone && (gone->options & mq::MQCBDO_DEREGISTER_CALL) != 0) {
    mqi::callback_context ctx;
    ctx.call_type = mq::MQCBCT_DEREGISTER_CALL;
    ctx.handle = event_handler ? mq::MQHO_NONE : handle;
    call(*gone, nullptr, ctx);
  }
  be_.wake();
  return mqi::done{};
}

void async_consume::join_thread() {
  if (thread_.joinable()) thread_.join();
}

void async_consume::begin_dispatch(sync::unique_lock& lk, bool on_caller) {
  if (thread_.joinable()) {  // a dispatcher that ended by itself (running_ is false: stopped)
    lk.unlock(mu_);
    join_thread();
    lk.lock(mu_);
  }
  set_state(state::started);
  start_wait_ = on_caller;
  stop_requested_ = suspend_requested_ = false;
  ended_reason_ = 0;
  running_ = true;
  if (on_caller) {
    dispatcher_ = std::this_thread::get_id();
  } else {
    thread_ = std::thread([this] { run(); });
    dispatcher_ = thread_.get_id();
  }
}

mqi::result<mqi::done> async_consume::control(std::int32_t operation) {
  sync::unique_lock lk(mu_);
  const bool inside = on_dispatcher_thread();
  switch (operation) {
    case mq::MQOP_START: {
      if (state_ == state::suspended)
        return mqrc("MQCTL", mq::MQRC_OPERATION_NOT_ALLOWED, "the connection is suspended: MQOP_RESUME it");
      if (state_ == state::started) {
        stop_requested_ = false;  // from a callback: cancels a STOP issued before [C] the MQCTL topic
        return mqi::done{};
      }
      begin_dispatch(lk, false);
      return mqi::done{};
    }
    case mq::MQOP_START_WAIT: {
      if (inside)
        return mqrc("MQCTL", mq::MQRC_ENVIRONMENT_ERROR, "MQOP_START_WAIT cannot be issued from a callback");
      if (state_ != state::stopped)
        return mqrc("MQCTL", mq::MQRC_OPERATION_NOT_ALLOWED,
                    state_ == state::started ? "the connection is started already"
                                             : "the connection is suspended: MQOP_RESUME it");
      if (!any_active())
        return mqrc("MQCTL", mq::MQRC_NO_CALLBACKS_ACTIVE, "no consumer is registered and resumed");
      begin_dispatch(lk, true);
      break;  // runs below, on this thread
    }
    case mq::MQOP_STOP: {
      if (state_ == state::stopped) return mqi::done{};
      stop_requested_ = true;
      cv_.notify_all();
      if (inside) return mqi::done{};  // when the callback returns
      lk.unlock();
      be_.wake();
      lk.lock();
      while (running_) cv_.wait(lk);
      set_state(state::stopped);
      const bool own_thread = !start_wait_;  // read under mu_
      lk.unlock();
      if (own_thread) join_thread();
      return mqi::done{};
    }
    case mq::MQOP_SUSPEND: {
      if (state_ == state::stopped)
        return mqrc("MQCTL", mq::MQRC_OPERATION_NOT_ALLOWED,
                    "the connection is stopped: MQOP_START it first");
      if (state_ == state::suspended) return mqi::done{};
      suspend_requested_ = true;
      if (inside) return mqi::done{};
      lk.unlock();
      be_.wake();
      lk.lock();
      while (state_ == state::started && running_) cv_.wait(lk);
      return mqi::done{};
    }
    case mq::MQOP_RESUME: {
      if (state_ == state::stopped)
        return mqrc("MQCTL", mq::MQRC_OPERATION_NOT_ALLOWED, "the connection is stopped: MQOP_START it");
      if (state_ == state::started) {
        suspend_requested_ = false;
        return mqi::done{};
      }
      set_state(state::started);
      cv_.notify_all();
      if (running_) return mqi::done{};  // MQOP_START's dispatcher goes on
      // MQOP_START_WAIT that returned suspended: the resume blocks as the START_WAIT did [C].
      running_ = true;
      dispatcher_ = std::this_thread::get_id();
      break;
    }
    default:
      return mqrc("MQCTL", mq::MQRC_OPERATION_ERROR,
                  "operation " + std::to_string(operation) +
                      " is not MQOP_START, START_WAIT, STOP, SUSPEND or RESUME");
  }
  // MQOP_START_WAIT (or the RESUME of one): the dispatch runs here.
  lk.unlock();
  run();
  lk.lock();
  if (ended_reason_ != 0)
    return mqrc("MQCTL", ended_reason_, "the consumption ended: " + mq::describe_reason(ended_reason_));
  if (state_ == state::suspended)
    return mqi::result<mqi::done>::warning(mqi::done{}, mq::MQRC_CONNECTION_SUSPENDED,
                                           "a callback suspended the connection");
  if (!stop_requested_ && !any_active())
    return mqrc("MQCTL", mq::MQRC_NO_CALLBACKS_ACTIVE, "no consumer is registered and resumed any more");
  return mqi::done{};
}

void async_consume::control_calls(std::int32_t call_type, std::int32_t option, std::int32_t reason) {
  std::vector<std::pair<mqi::hobj, mqi::callback_descriptor>> who;
  {
    sync::lock_guard lock(mu_);
    for (const auto& [h, c] : consumers_)
      if ((c.cbd.options & option) != 0) who.emplace_back(h, c.cbd);
  }
  for (const auto& [h, cbd] : who) {
    mqi::callback_context ctx;
    ctx.call_type = call_type;
    ctx.handle = h;
    ctx.reason = reason;
    ctx.comp_code = reason == 0 ? mq::MQCC_OK : mq::MQCC_FAILED;
    call(cbd, nullptr, ctx);
  }
}

void async_consume::event(std::int32_t reason) {
  std::vector<std::pair<mqi::hobj, mqi::callback_descriptor>> who;
  {
    sync::lock_guard lock(mu_);
    if (event_handler_) who.emplace_back(mq::MQHO_NONE, *event_handler_);
    for (const auto& [h, c] : consumers_)
      if ((c.cbd.options & mq::MQCBDO_EVENT_CALL) != 0) who.emplace_back(h, c.cbd);
  }
  for (const auto& [h, cbd] : who) {
    mqi::callback_context ctx;
    ctx.call_type = mq::MQCBCT_EVENT_CALL;
    ctx.handle = h;
    ctx.comp_code = mq::MQCC_FAILED;
    ctx.reason = reason;
    ctx.state = mq::MQCS_STOPPED;
    call(cbd, nullptr, ctx);
  }
}

void async_consume::run() {
  control_calls(mq::MQCBCT_START_CALL, mq::MQCBDO_START_CALL, 0);
  std::uint32_t mark = be_.wait_for_change(0, false);
  bool suspended_exit = false;
  for (;;) {
    struct work {
      mqi::hobj handle;
      mqi::get_request request;
      mqi::callback_descriptor cbd;
    };
    std::vector<work> pass;
    {
      sync::unique_lock lk(mu_);
      if (suspend_requested_ && !stop_requested_) {
        suspend_requested_ = false;
        set_state(state::suspended);
        cv_.notify_all();
      }
      if (state_ == state::suspended && !stop_requested_) {
        if (start_wait_) {  // MQOP_START_WAIT returns, the connection suspended
          suspended_exit = true;
          break;
        }
        while (state_ == state::suspended && !stop_requested_) cv_.wait(lk);
      }
      if (stop_requested_ || ended_reason_ != 0) break;
      if (start_wait_ && !any_active()) break;  // an implicit stop [C] the MQCTL topic
      for (const auto& [h, c] : consumers_)
        if (!c.suspended) pass.push_back(work{h, c.request, c.cbd});
    }
    bool delivered = false;
    for (work& w : pass) {
      {
        sync::lock_guard lock(mu_);
        auto it = consumers_.find(w.handle);
        if (stop_requested_ || suspend_requested_ || it == consumers_.end() || it->second.suspended) continue;
      }
      mqi::get_request req = w.request;
      req.options = (req.options & ~mq::MQGMO_WAIT) | mq::MQGMO_NO_WAIT;
      req.wait_interval_ms = 0;
      auto got = be_.consumer_get(w.handle, req);
      mqi::callback_context ctx;
      ctx.handle = w.handle;
      if (got) {
        ctx.call_type = browses(w.request) ? mq::MQCBCT_MSG_NOT_REMOVED : mq::MQCBCT_MSG_REMOVED;
        ctx.comp_code = got.completion_code();
        ctx.reason = got.reason();
        ctx.data_length = got->data_length;
        call(w.cbd, &*got, ctx);
        delivered = true;
        continue;
      }
      const std::int32_t reason = got.reason();
      if (reason == mq::MQRC_NO_MSG_AVAILABLE) continue;
      if (ends_consumption(reason)) {
        sync::lock_guard lock(mu_);
        ended_reason_ = reason;
        break;
      }
      // This consumer's own trouble: it is told, and suspended until the application resumes it [D].
      {
        sync::lock_guard lock(mu_);
        auto it = consumers_.find(w.handle);
        if (it != consumers_.end()) it->second.suspended = true;
      }
      ctx.call_type = mq::MQCBCT_EVENT_CALL;
      ctx.comp_code = mq::MQCC_FAILED;
      ctx.reason = reason;
      ctx.state = mq::MQCS_SUSPENDED_USER_ACTION;
      call(w.cbd, nullptr, ctx);
    }
    if (delivered) continue;
    {
      sync::lock_guard lock(mu_);
      if (stop_requested_ || suspend_requested_ || ended_reason_ != 0) continue;
    }
    mark = be_.wait_for_change(mark, true);
  }
  std::int32_t ended;
  {
    sync::lock_guard lock(mu_);
    ended = ended_reason_;
  }
  if (ended != 0) event(ended);
  if (!suspended_exit) control_calls(mq::MQCBCT_STOP_CALL, mq::MQCBDO_STOP_CALL, ended);
  sync::lock_guard lock(mu_);
  running_ = false;
  dispatcher_ = std::thread::id();
  if (!suspended_exit) set_state(state::stopped);
  cv_.notify_all();
}

std::optional<decode_error> async_consume::end_for_disconnect() {
  sync::unique_lock lk(mu_);
  if (on_dispatcher_thread())
    return mqrc("MQDISC", mq::MQRC_ENVIRONMENT_ERROR,
                "a callback cannot disconnect the connection it runs on [C] the MQCB_FUNCTION topic");
  if (running_) {
    stop_requested_ = true;
    cv_.notify_all();
    lk.unlock();
    be_.wake();
    lk.lock();
    while (running_) cv_.wait(lk);
  }
  set_state(state::stopped);
  std::vector<std::pair<mqi::hobj, mqi::callback_descriptor>> gone;
  if (event_handler_) gone.emplace_back(mq::MQHO_NONE, *event_handler_);
  for (const auto& [h, c] : consumers_) gone.emplace_back(h, c.cbd);
  consumers_.clear();
  event_handler_.reset();
  lk.unlock();
  join_thread();
  for (const auto& [h, cbd] : gone) {
    if ((cbd.options & mq::MQCBDO_DEREGISTER_CALL) == 0) continue;
    mqi::callback_context ctx;
    ctx.call_type = mq::MQCBCT_DEREGISTER_CALL;
    ctx.handle = h;
    call(cbd, nullptr, ctx);
  }
  return std::nullopt;
}

void async_consume::closed(mqi::hobj handle) {
  std::optional<mqi::callback_descriptor> gone;
  {
    sync::lock_guard lock(mu_);
    auto it = consumers_.find(handle);
    if (it == consumers_.end()) return;
    gone = it->second.cbd;
    consumers_.erase(it);
  }
  if ((gone->options & mq::MQCBDO_DEREGISTER_CALL) != 0) {
    mqi::callback_context ctx;
    ctx.call_type = mq::MQCBCT_DEREGISTER_CALL;
    ctx.handle = mq::MQHO_UNUSABLE_HOBJ;  // [C] the MQCBC CallType topic: the handle is closed
    call(*gone, nullptr, ctx);
  }
}

}  // namespace imsb::qmgr::detail
