#pragma once
// Shared by the engine tests: a queue manager made as crtmqm makes one (new_queue_manager, then the
// store) in a temporary prefix, started with the log's fsync off and a clock the test moves.

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>

#include "imsb/mq/constants.hpp"
#include "imsb/mq/mqmd.hpp"
#include "imsb/mqi/connection.hpp"
#include "imsb/objects/mqsc_exec.hpp"
#include "imsb/qmgr/queue_manager.hpp"
#include "imsb/qmgr/store.hpp"
#include "process.hpp"

namespace imsb::qmgr::test {

inline std::string padded(std::string s, std::size_t n) {
  s.resize(n, ' ');
  return s;
}

inline std::string text_of(const bytes& b) { return std::string(b.begin(), b.end()); }

inline std::int32_t rc_of(const decode_error& e) { return static_cast<std::int32_t>(e.code.value()); }

// The queues every test has: APP.IN and REPLY (local), DLQ (the queue manager's DEADQ).
inline constexpr const char* base_mqsc =
    "DEFINE QLOCAL(APP.IN)\n"
    "DEFINE QLOCAL(REPLY)\n";

class engine_test : public ::testing::Test {
 protected:
  void SetUp() override {
    objects::exec_context ctx{"2026-11-30", "01.00.00", false};
    auto cat = objects::new_queue_manager("QM1", names::fs_profile::posix, "DLQ", "", ctx);
    ASSERT_TRUE(cat.ok()) << cat.error().to_string();
    auto out = objects::run_script(*cat, std::string(base_mqsc) + extra_mqsc(), ctx);
    ASSERT_EQ(out.exit_code(), 0) << [&] {
      std::string all;
      for (const auto& l : out.lines) all += l + "\n";
      return all;
    }();
    auto st = queue_manager_store::create(tmp_.path(), *cat);
    ASSERT_TRUE(st.ok()) << st.error().to_string();
    store_.emplace(std::move(st).value());
    start();
  }
  void TearDown() override {
    conns_.clear();
    qm_.reset();
  }

  virtual std::string extra_mqsc() { return ""; }

  void start() {
    auto lock = store_->try_lock();
    ASSERT_TRUE(lock.ok()) << lock.error().to_string();
    runtime_options o;
    o.log.fsync = false;
    o.log.checkpoint_bytes = checkpoint_bytes_;
    o.clock = [this] { return base_ + offset_; };
    auto qm = queue_manager::start(*store_, std::move(lock).value(), o);
    ASSERT_TRUE(qm.ok()) << qm.error().to_string();
    qm_ = std::move(qm).value();
  }
  void restart() {
    conns_.clear();
    qm_.reset();
    start();
  }

  mqi::connection& connect(const std::string& user = "tester", bool admin = true) {
    principal p{user, {}, admin, "engine_test"};
    auto c = qm_->connect(p);
    EXPECT_TRUE(c.ok()) << c.error().to_string();
    conns_.push_back(std::move(c).value());
    return *conns_.back();
  }

  static mqi::hobj open(mqi::connection& c, const std::string& q, std::int32_t options) {
    auto h = c.open(mqi::object_descriptor{q, ""}, options);
    EXPECT_TRUE(h.ok()) << q << ": " << h.error().to_string();
    return h.ok() ? h->handle : -1;
  }

  static mq::mqmd md(std::int32_t persistence = mq::MQPER_NOT_PERSISTENT) {
    mq::mqmd m;
    m.persistence = persistence;
    m.format = std::string(mq::MQFMT_STRING);
    return m;
  }

  static result<mqi::put_result> put(mqi::connection& c, mqi::hobj h, const std::string& data,
                                     const mq::mqmd& m = md(),
                                     std::int32_t options = mq::MQPMO_NO_SYNCPOINT) {
    return c.put(h, m, bytes_view::of(data), options);
  }

  static mqi::get_request no_wait(std::int32_t options = mq::MQGMO_NO_SYNCPOINT) {
    mqi::get_request r;
    r.options = options;
    return r;
  }

  std::string error_log() const {
    std::ifstream in(store_->directory() / "errors" / "AMQERR01.LOG");
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
  }

  std::string mqsc(mqi::connection& c, const std::string& script, int expect_exit = 0) {
    auto r = c.mqsc(script);
    EXPECT_TRUE(r.ok()) << r.error().to_string();
    if (!r.ok()) return {};
    std::string all;
    for (const auto& l : r->lines) all += l + "\n";
    EXPECT_EQ(r->exit_code, expect_exit) << all;
    return all;
  }

  imsb::test::temp_dir tmp_;
  std::optional<queue_manager_store> store_;
  std::unique_ptr<queue_manager> qm_;
  std::vector<std::unique_ptr<mqi::connection>> conns_;
  std::chrono::system_clock::time_point base_ = std::chrono::system_clock::now();
  std::chrono::milliseconds offset_{0};
  std::uint64_t checkpoint_bytes_ = 64ull << 20;
};

}  // namespace imsb::qmgr::test
