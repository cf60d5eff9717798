#pragma once
// imsbench's tests without the bridge: a thread that plays it on an in-process queue manager. It gets
// each request from the bridge queue (no syncpoint, 20 ms waits so that it stops promptly) and answers it
// as the test says: by default a reply (MsgType REPLY, CorrelId = the request's MsgId, the request's
// data) on the request's ReplyToQ.

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <utility>

#include "imsb/mq/constants.hpp"
#include "imsb/mq/mqmd.hpp"
#include "imsb/mqi/connection.hpp"

namespace imsb::imsbench::test_support {

class fake_bridge {
 public:
  using connect_fn = std::function<std::unique_ptr<mqi::connection>()>;
  // Answers request number `n` (from 1) got with connection `c`.
  using answer_fn = std::function<void(mqi::connection& c, const mqi::message& request, int n)>;

  // The answer a bridge gives to a request IMS ran: `msg_type` (MQMT_REPLY, or MQMT_REPORT with
  // `feedback`), CorrelId = MsgId, the request's data, on its ReplyToQ.
  static void answer(mqi::connection& c, const mqi::message& request, std::int32_t msg_type = mq::MQMT_REPLY,
                     std::int32_t feedback = mq::MQFB_NONE) {
    mq::mqmd md;
    md.correl_id = request.md.msg_id;
    md.msg_type = msg_type;
    md.feedback = feedback;
    (void)c.put1({request.md.reply_to_q, ""}, md, request.data, mq::MQPMO_NO_SYNCPOINT);
  }

  fake_bridge(connect_fn connect, std::string queue, answer_fn how = nullptr)
      : thread_([this, connect = std::move(connect), queue = std::move(queue), how = std::move(how)] {
          run(connect, queue, how);
        }) {}
  ~fake_bridge() { stop(); }
  fake_bridge(const fake_bridge&) = delete;
  fake_bridge& operator=(const fake_bridge&) = delete;

  void stop() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }

 private:
  void run(const connect_fn& connect, const std::string& queue, const answer_fn& how) {
    auto c = connect();
    auto q = c->open({queue, ""}, mq::MQOO_INPUT_SHARED);
    if (!q) return;
    int n = 0;
    while (!stop_) {
      mqi::get_request g;
      g.options = mq::MQGMO_WAIT | mq::MQGMO_NO_SYNCPOINT;
      g.wait_interval_ms = 20;
      g.match_options = mq::MQMO_NONE;
      auto m = c->get(q->handle, g);
      if (!m) continue;
      ++n;
      if (how)
        how(*c, *m, n);
      else
        answer(*c, *m);
    }
  }

  std::atomic<bool> stop_{false};
  std::thread thread_;  // last: started once the rest is made
};

}  // namespace imsb::imsbench::test_support
