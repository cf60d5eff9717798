#pragma once
// A faulting mqi::connection for unit tests (after Boost.Beast's test::fail_count): over a real connection, a
// shared fault_plan picks one call — the n-th for which a condition holds, counted over every connection
// made with the plan — and makes it fail in one of the ways a queue manager connection fails:
//   fail        the call is not made and fails with the reason given: nothing changed;
//   lose_reply  the call is made, then the connection breaks before its answer (MQRC_CONNECTION_BROKEN):
//               a commit whose outcome is unknown to the caller;
//   drop        the connection breaks before the call: the queue manager backs its unit of work out, and
//               the call fails with MQRC_CONNECTION_BROKEN.
// After lose_reply or drop the connection is broken: every later call fails with 2009 and the real
// connection is gone, as a client's connection whose socket closed. So the error ladders of the bridge and
// the tools are unit-tested, not only reachable by kill -9.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "imsb/mq/codes.hpp"
#include "imsb/mqi/connection.hpp"

namespace imsb::test {

enum class mqi_call {
  open,
  close,
  put,
  put1,
  get,
  inquire,
  set,
  inquire_objects,
  mqsc,
  commit,
  backout,
  disconnect,
  begin,
  stat,
  callback,
  control
};
enum class fault_kind { fail, lose_reply, drop };

// What a condition sees of a call.
struct call_info {
  mqi_call call = mqi_call::open;
  std::string queue;  // open, put1: the object named; put, get, inquire, close: the queue the handle opened
  bytes_view data;    // put, put1: the message data
  // commit, backout: what this connection's unit of work put so far (queue, data), in order.
  const std::vector<std::pair<std::string, bytes>>* uow_puts = nullptr;
  int connection = 0;  // which faulting_connection of the plan: 1, 2 ... in the order they were made
};

class fault_plan {
 public:
  // The `nth` call (from 1) for which `when` holds gets `kind`; `reason` for fault_kind::fail. One fault
  // armed at a time; it fires once.
  void arm(fault_kind kind, std::function<bool(const call_info&)> when, int nth = 1,
           std::int32_t reason = mq::MQRC_CONNECTION_BROKEN) {
    const std::lock_guard<std::mutex> lock(mu_);
    kind_ = kind;
    when_ = std::move(when);
    left_ = nth;
    reason_ = reason;
  }
  int fired() const {
    const std::lock_guard<std::mutex> lock(mu_);
    return fired_;
  }
  // Calls refused because their connection had broken (by lose_reply or drop) before them.
  int refused_after_break() const {
    const std::lock_guard<std::mutex> lock(mu_);
    return refused_;
  }
  int next_connection() {
    const std::lock_guard<std::mutex> lock(mu_);
    return ++connections_;
  }
  void refused() {
    const std::lock_guard<std::mutex> lock(mu_);
    ++refused_;
  }

  struct decision {
    bool fault = false;
    fault_kind kind = fault_kind::fail;
    std::int32_t reason = 0;
  };
  decision decide(const call_info& c) {
    const std::lock_guard<std::mutex> lock(mu_);
    if (!when_ || left_ <= 0 || !when_(c)) return {};
    if (--left_ > 0) return {};
    ++fired_;
    when_ = nullptr;
    return {true, kind_, reason_};
  }

 private:
  mutable std::mutex mu_;
  std::function<bool(const call_info&)> when_;
  fault_kind kind_ = fault_kind::fail;
  int left_ = 0;
  std::int32_t reason_ = 0;
  int fired_ = 0;
  int refused_ = 0;
  int connections_ = 0;
};

class faulting_connection final : public mqi::connection {
 public:
  faulting_connection(std::unique_ptr<mqi::connection> inner, fault_plan& plan)
      : inner_(std::move(inner)), plan_(plan), id_(plan.next_connection()), qmgr_name_(inner_->qmgr_name()) {}

  const std::string& qmgr_name() const override { return qmgr_name_; }

  mqi::result<mqi::open_result> open(const mqi::object_descriptor& od, std::int32_t o) override {
    auto r = run<mqi::open_result>(info(mqi_call::open, od.object_name), "MQOPEN",
                                   [&] { return inner_->open(od, o); });
    if (r) names_[r->handle] = od.object_name;
    return r;
  }
  mqi::result<mqi::done> close(mqi::hobj h) override {
    return run<mqi::done>(info(mqi_call::close, name_of(h)), "MQCLOSE", [&] { return inner_->close(h); });
  }
  mqi::result<mqi::put_result> put(mqi::hobj h, const mq::mqmd& md, bytes_view d, std::int32_t o) override {
    auto r = run<mqi::put_result>(info(mqi_call::put, name_of(h), d), "MQPUT",
                                  [&] { return inner_->put(h, md, d, o); });
    if (r && (o & mq::MQPMO_SYNCPOINT) != 0) uow_puts_.emplace_back(name_of(h), d.to_bytes());
    return r;
  }
  mqi::result<mqi::put_result> put1(const mqi::object_descriptor& od, const mq::mqmd& md, bytes_view d,
                                    std::int32_t o) override {
    auto r = run<mqi::put_result>(info(mqi_call::put1, od.object_name, d), "MQPUT1",
                                  [&] { return inner_->put1(od, md, d, o); });
    if (r && (o & mq::MQPMO_SYNCPOINT) != 0) uow_puts_.emplace_back(od.object_name, d.to_bytes());
    return r;
  }
  mqi::result<mqi::message> get(mqi::hobj h, const mqi::get_request& g) override {
    return run<mqi::message>(info(mqi_call::get, name_of(h)), "MQGET", [&] { return inner_->get(h, g); });
  }
  mqi::result<mqi::inquiry> inquire(mqi::hobj h, const std::vector<std::int32_t>& s) override {
    return run<mqi::inquiry>(info(mqi_call::inquire, name_of(h)), "MQINQ",
                             [&] { return inner_->inquire(h, s); });
  }
  mqi::result<mqi::done> set(mqi::hobj h, const std::vector<std::int32_t>& s,
                             const std::vector<std::int32_t>& i,
                             const std::vector<std::string>& ch) override {
    return run<mqi::done>(info(mqi_call::set, name_of(h)), "MQSET", [&] { return inner_->set(h, s, i, ch); });
  }
  mqi::result<std::vector<mqi::object_attributes>> inquire_objects(const std::string& t,
                                                                   const std::string& g) override {
    return run<std::vector<mqi::object_attributes>>(info(mqi_call::inquire_objects), "MQINQ",
                                                    [&] { return inner_->inquire_objects(t, g); });
  }
  mqi::result<mqi::mqsc_reply> mqsc(const std::string& s) override {
    return run<mqi::mqsc_reply>(info(mqi_call::mqsc), "MQSC", [&] { return inner_->mqsc(s); });
  }
  mqi::result<mqi::done> commit() override {
    call_info c = info(mqi_call::commit);
    c.uow_puts = &uow_puts_;
    auto r = run<mqi::done>(c, "MQCMIT", [&] { return inner_->commit(); });
    uow_puts_.clear();
    return r;
  }
  mqi::result<mqi::done> backout() override {
    call_info c = info(mqi_call::backout);
    c.uow_puts = &uow_puts_;
    auto r = run<mqi::done>(c, "MQBACK", [&] { return inner_->backout(); });
    uow_puts_.clear();
    return r;
  }
  mqi::result<mqi::done> begin() override {
    return run<mqi::done>(info(mqi_call::begin), "MQBEGIN", [&] { return inner_->begin(); });
  }
  mqi::result<mqi::status_report> stat(std::int32_t type) override {
    return run<mqi::status_report>(info(mqi_call::stat), "MQSTAT", [&] { return inner_->stat(type); });
  }
  // The callbacks are the inner connection's: they are given it, and their calls are not faulted.
  mqi::result<mqi::done> callback(std::int32_t op, const mqi::callback_descriptor& cbd, mqi::hobj h,
                                  const mqi::get_request& g) override {
    return run<mqi::done>(info(mqi_call::callback, name_of(h)), "MQCB",
                          [&] { return inner_->callback(op, cbd, h, g); });
  }
  mqi::result<mqi::done> control(std::int32_t op) override {
    return run<mqi::done>(info(mqi_call::control), "MQCTL", [&] { return inner_->control(op); });
  }
  void stop() noexcept override {
    const std::lock_guard<std::mutex> lock(inner_mu_);
    if (inner_) inner_->stop();
  }
  mqi::result<mqi::done> disconnect() override {
    auto r = run<mqi::done>(info(mqi_call::disconnect), "MQDISC", [&] { return inner_->disconnect(); });
    uow_puts_.clear();
    return r;
  }

 private:
  static call_info info(mqi_call call, std::string queue = {}, bytes_view data = {}) {
    call_info c;
    c.call = call;
    c.queue = std::move(queue);
    c.data = data;
    return c;
  }
  template <class T, class F>
  mqi::result<T> run(call_info c, const char* call, F&& real) {
    if (!inner_) {
      plan_.refused();
      return broken(call, "the connection broke before (faulting_connection)");
    }
    c.connection = id_;
    const fault_plan::decision d = plan_.decide(c);
    if (!d.fault) return real();
    switch (d.kind) {
      case fault_kind::fail:
        return decode_error{mq::make_mqrc(d.reason), call, 0, "injected failure (faulting_connection)"};
      case fault_kind::lose_reply: {
        auto done = real();  // made; its answer is lost with the connection
        (void)done;
        break_inner();
        return broken(call, "the connection broke before the answer came (faulting_connection)");
      }
      case fault_kind::drop:
        break_inner();
        return broken(call, "the connection broke (faulting_connection)");
    }
    return real();
  }
  // The real connection goes without MQDISC: the queue manager backs its unit of work out.
  void break_inner() {
    std::unique_ptr<mqi::connection> gone;
    {
      const std::lock_guard<std::mutex> lock(inner_mu_);
      gone = std::move(inner_);
    }
    uow_puts_.clear();
  }
  static decode_error broken(const char* call, std::string why) {
    return decode_error{mq::make_mqrc(mq::MQRC_CONNECTION_BROKEN), call, 0, std::move(why)};
  }
  std::string name_of(mqi::hobj h) const {
    auto it = names_.find(h);
    return it == names_.end() ? std::string() : it->second;
  }

  std::mutex inner_mu_;  // inner_'s reset against stop() from another thread
  std::unique_ptr<mqi::connection> inner_;
  fault_plan& plan_;
  int id_ = 0;
  std::string qmgr_name_;
  std::map<mqi::hobj, std::string> names_;
  std::vector<std::pair<std::string, bytes>> uow_puts_;
};

}  // namespace imsb::test
