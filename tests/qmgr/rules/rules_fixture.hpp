#pragma once
// Shared pieces of the message-rules tests: a put context at a known instant and small helpers.

#include <chrono>
#include <cstdint>
#include <string>

#include "imsb/core/bytes.hpp"
#include "imsb/mq/constants.hpp"
#include "imsb/mq/mqmd.hpp"
#include "imsb/qmgr/message_rules.hpp"

namespace imsb::qmgr::rules::test {

// 2026-03-04 05:06:07.890 UTC: every digit of PutDate/PutTime differs from its neighbours.
inline std::chrono::system_clock::time_point test_now() {
  return std::chrono::system_clock::time_point(std::chrono::milliseconds(1772600767890LL));
}
inline std::int64_t test_now_ms() { return 1772600767890LL; }

inline put_context make_ctx() {
  put_context ctx;
  ctx.qmgr_name = "QM1";
  ctx.user = "alice";
  ctx.appl_name = "putter";
  ctx.queue_default_persistence = mq::MQPER_PERSISTENT;
  ctx.queue_default_priority = 4;
  ctx.now = test_now();
  ctx.msg_id_counter = 7;
  ctx.incarnation = 0x01020304;
  return ctx;
}

inline std::string pad(std::string s, std::size_t n) {
  s.resize(n, ' ');
  return s;
}

inline std::string code_name(const decode_error& e) { return e.code.message(); }

}  // namespace imsb::qmgr::rules::test
