// Durability before visibility: a change is seen by others only once the log has it, and a call whose
// batch the log refused changes nothing (queue_manager.cpp finish(), recovery_log.hpp). Failures are
// injected through detail::engine_log_hook (queue_manager.hpp). Also: the separate MQMD of a message
// on a transmission queue, priorities above 9, and checkpoints racing DEFINE/DELETE QLOCAL.

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "engine_fixture.hpp"
#include "imsb/core/messages.hpp"

namespace imsb::qmgr::test {
namespace {

// The hook's state: static, since the hook is a plain function pointer.
std::atomic<std::int32_t> refuse_append{0};
std::atomic<std::int32_t> fail_wait{0};
std::mutex gate_mu;
std::condition_variable gate_cv;
bool hold_waits = false;  // the next waits block until released
int waits_held = 0;

std::int32_t hook(detail::log_hook_point where) {
  if (where == detail::log_hook_point::append) return refuse_append.load();
  std::unique_lock<std::mutex> lk(gate_mu);
  if (hold_waits && waits_held == 0) {  // the first wait only
    ++waits_held;
    gate_cv.notify_all();
    gate_cv.wait(lk, [] { return !hold_waits; });
  }
  return fail_wait.load();
}

class durability : public engine_test {
 protected:
  std::string extra_mqsc() override {
    return "DEFINE QLOCAL(XQ) USAGE(XMITQ)\n"
           "DEFINE QREMOTE(REMOTE.Q) RNAME(TARGET.Q) RQMNAME(QM2) XMITQ(XQ)\n";
  }
  void SetUp() override {
    refuse_append = 0;
    fail_wait = 0;
    hold_waits = false;
    waits_held = 0;
    detail::engine_log_hook = &hook;
    engine_test::SetUp();
  }
  void TearDown() override {
    {
      std::lock_guard<std::mutex> g(gate_mu);
      hold_waits = false;
    }
    gate_cv.notify_all();
    engine_test::TearDown();
    detail::engine_log_hook = nullptr;
  }
  static std::size_t depth(mqi::connection& c, const std::string& q) {
    const auto h = open(c, q, mq::MQOO_INQUIRE);
    auto st = mqi::inquire_queue(c, h);
    EXPECT_TRUE(st.ok());
    (void)c.close(h);
    return st.ok() ? static_cast<std::size_t>(st->current_depth) : 0;
  }
};

TEST_F(durability, AFailedCommitBacksTheWholeUnitOfWorkOut) {
  auto& a = connect();
  const auto h = open(a, "APP.IN", mq::MQOO_OUTPUT | mq::MQOO_INPUT_SHARED);
  ASSERT_TRUE(put(a, h, "old", md(mq::MQPER_PERSISTENT)).ok());
  auto got = a.get(h, no_wait(mq::MQGMO_SYNCPOINT));
  ASSERT_TRUE(got.ok());
  ASSERT_TRUE(put(a, h, "new", md(mq::MQPER_PERSISTENT), mq::MQPMO_SYNCPOINT).ok());
  refuse_append = mq::MQRC_Q_SPACE_NOT_AVAILABLE;
  auto c = a.commit();
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(rc_of(c.error()), mq::MQRC_Q_SPACE_NOT_AVAILABLE);
  refuse_append = 0;
  // The put vanished, the got message is back with BackoutCount unchanged (not a backout).
  auto again = a.get(h, no_wait());
  ASSERT_TRUE(again.ok()) << again.error().to_string();
  EXPECT_EQ(text_of(again->data), "old");
  EXPECT_EQ(again->md.backout_count, 0);
  EXPECT_EQ(rc_of(a.get(h, no_wait()).error()), mq::MQRC_NO_MSG_AVAILABLE);
  EXPECT_EQ(qm_->statistics().backouts, 0u);
}

TEST_F(durability, AFailedCommitLeavesNothingForARestart) {
  auto& a = connect();
  const auto h = open(a, "APP.IN", mq::MQOO_OUTPUT | mq::MQOO_INPUT_SHARED);
  ASSERT_TRUE(put(a, h, "kept", md(mq::MQPER_PERSISTENT)).ok());
  ASSERT_TRUE(a.get(h, no_wait(mq::MQGMO_SYNCPOINT)).ok());
  ASSERT_TRUE(put(a, h, "lost", md(mq::MQPER_PERSISTENT), mq::MQPMO_SYNCPOINT).ok());
  refuse_append = mq::MQRC_RESOURCE_PROBLEM;
  auto c = a.commit();
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(rc_of(c.error()), mq::MQRC_RESOURCE_PROBLEM);
  refuse_append = 0;
  restart();
  auto& b = connect();
  const auto hb = open(b, "APP.IN", mq::MQOO_INPUT_SHARED);
  auto first = b.get(hb, no_wait());
  ASSERT_TRUE(first.ok()) << first.error().to_string();
  EXPECT_EQ(text_of(first->data), "kept");
  EXPECT_EQ(rc_of(b.get(hb, no_wait()).error()), mq::MQRC_NO_MSG_AVAILABLE);
}

TEST_F(durability, AFailedPutOrGetOutsideSyncpointChangesNothing) {
  auto& a = connect();
  const auto h = open(a, "APP.IN", mq::MQOO_OUTPUT | mq::MQOO_INPUT_SHARED);
  refuse_append = mq::MQRC_RESOURCE_PROBLEM;
  auto p = put(a, h, "refused", md(mq::MQPER_PERSISTENT));
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(rc_of(p.error()), mq::MQRC_RESOURCE_PROBLEM);
  refuse_append = 0;
  EXPECT_EQ(depth(a, "APP.IN"), 0u);

  ASSERT_TRUE(put(a, h, "stays", md(mq::MQPER_PERSISTENT)).ok());
  refuse_append = mq::MQRC_Q_SPACE_NOT_AVAILABLE;
  auto g = a.get(h, no_wait());
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(rc_of(g.error()), mq::MQRC_Q_SPACE_NOT_AVAILABLE);
  refuse_append = 0;
  auto again = a.get(h, no_wait());
  ASSERT_TRUE(again.ok()) << again.error().to_string();
  EXPECT_EQ(text_of(again->data), "stays");
  EXPECT_EQ(depth(a, "APP.IN"), 0u);
}

TEST_F(durability, TheCodReportOfAFailedCommitVanishesToo) {
  auto& a = connect();
  const auto h = open(a, "APP.IN", mq::MQOO_OUTPUT | mq::MQOO_INPUT_SHARED);
  mq::mqmd m = md(mq::MQPER_PERSISTENT);
  m.report = mq::MQRO_COD;
  m.reply_to_q = padded("REPLY", mq::MQ_Q_NAME_LENGTH);
  ASSERT_TRUE(put(a, h, "cod", m).ok());
  ASSERT_TRUE(a.get(h, no_wait(mq::MQGMO_SYNCPOINT)).ok());
  refuse_append = mq::MQRC_Q_SPACE_NOT_AVAILABLE;
  ASSERT_FALSE(a.commit().ok());
  refuse_append = 0;
  EXPECT_EQ(depth(a, "REPLY"), 0u);
  EXPECT_EQ(depth(a, "APP.IN"), 1u);
  ASSERT_TRUE(a.get(h, no_wait(mq::MQGMO_SYNCPOINT)).ok());
  ASSERT_TRUE(a.commit().ok());
  EXPECT_EQ(depth(a, "REPLY"), 1u);
}

TEST_F(durability, ACommittedPutIsInvisibleUntilTheLogHasIt) {
  auto& a = connect();
  auto& b = connect();
  const auto out = open(a, "APP.IN", mq::MQOO_OUTPUT);
  const auto in = open(b, "APP.IN", mq::MQOO_INPUT_SHARED);
  ASSERT_TRUE(put(a, out, "durable first", md(mq::MQPER_PERSISTENT), mq::MQPMO_SYNCPOINT).ok());
  {
    std::lock_guard<std::mutex> g(gate_mu);
    hold_waits = true;
  }
  std::thread committer([&] { EXPECT_TRUE(a.commit().ok()); });
  {
    std::unique_lock<std::mutex> lk(gate_mu);
    gate_cv.wait(lk, [] { return waits_held > 0; });
  }
  // The commit is appended and waiting for the log: nothing to get yet.
  auto none = b.get(in, no_wait());
  EXPECT_FALSE(none.ok());
  if (!none.ok()) {
    EXPECT_EQ(rc_of(none.error()), mq::MQRC_NO_MSG_AVAILABLE);
  }
  {
    std::lock_guard<std::mutex> g(gate_mu);
    hold_waits = false;
  }
  gate_cv.notify_all();
  committer.join();
  auto got = b.get(in, no_wait());
  ASSERT_TRUE(got.ok()) << got.error().to_string();
  EXPECT_EQ(text_of(got->data), "durable first");
}

TEST_F(durability, AFailedWaitUndoesAPutOutsideSyncpoint) {
  auto& a = connect();
  const auto h = open(a, "APP.IN", mq::MQOO_OUTPUT | mq::MQOO_INPUT_SHARED);
  fail_wait = mq::MQRC_RESOURCE_PROBLEM;
  auto p = put(a, h, "x", md(mq::MQPER_PERSISTENT));
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(rc_of(p.error()), mq::MQRC_RESOURCE_PROBLEM);
  fail_wait = 0;
  auto none = a.get(h, no_wait());
  ASSERT_FALSE(none.ok()) << text_of(none->data);
  EXPECT_EQ(rc_of(none.error()), mq::MQRC_NO_MSG_AVAILABLE);
  // Non-persistent messages never wait for the log.
  fail_wait = mq::MQRC_RESOURCE_PROBLEM;
  EXPECT_TRUE(put(a, h, "np", md()).ok());
  EXPECT_TRUE(a.get(h, no_wait()).ok());
  fail_wait = 0;
}

TEST_F(durability, TheSeparateMqmdOfAnXmitMessageIsTheQueueManagers) {
  auto& c = connect();
  auto p = c.put1(mqi::object_descriptor{"REMOTE.Q", ""}, md(), bytes_view::of("far"), 0);
  ASSERT_TRUE(p.ok()) << p.error().to_string();
  const auto xq = open(c, "XQ", mq::MQOO_INPUT_SHARED);
  auto x = c.get(xq, no_wait());
  ASSERT_TRUE(x.ok()) << x.error().to_string();
  EXPECT_EQ(x->md.put_appl_type, mq::MQAT_QMGR);
  EXPECT_EQ(x->md.put_appl_name.substr(0, 4), "QM1 ");
}

TEST_F(durability, APriorityAbove9IsKeptAndQueuedAt9) {
  auto& c = connect();
  const auto h = open(c, "APP.IN", mq::MQOO_OUTPUT | mq::MQOO_INPUT_SHARED);
  mq::mqmd nine = md();
  nine.priority = 9;
  mq::mqmd high = md();
  high.priority = 12;
  ASSERT_TRUE(put(c, h, "nine", nine).ok());
  auto hp = put(c, h, "high", high);
  ASSERT_TRUE(hp.ok()) << hp.error().to_string();
  // Same priority as 9 in the queue's order: arrival decides.
  auto first = c.get(h, no_wait());
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(text_of(first->data), "nine");
  auto second = c.get(h, no_wait());
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(text_of(second->data), "high");
  EXPECT_LE(second->md.priority, 12);
}

struct recovery_log_detail_guard {
  explicit recovery_log_detail_guard(void (*fn)(std::size_t)) { detail::after_checkpoint_queue_file = fn; }
  ~recovery_log_detail_guard() { detail::after_checkpoint_queue_file = nullptr; }
};

class checkpoint_race : public durability {
 protected:
  void SetUp() override {
    checkpoint_bytes_ = 4096;  // a checkpoint every few messages
    durability::SetUp();
  }
};

// The log calls queue_file_fn (which reads the engine's path map under files_mu) in checkpoints, while
// MQSC DEFINE/DELETE QLOCAL remakes that map under the engine mutex: neither may deadlock or lose a
// message.
TEST_F(checkpoint_race, CheckpointsRacingDefineAndDeleteLoseNothing) {
  auto& a = connect();
  auto& admin = connect();
  const auto h = open(a, "APP.IN", mq::MQOO_OUTPUT | mq::MQOO_INPUT_SHARED);
  std::atomic<bool> stop{false};
  std::thread mqsc_thread([&] {
    for (int i = 0; !stop.load() && i < 40; ++i) {
      const std::string q = "TMP." + std::to_string(i % 5);
      auto d = admin.mqsc("DEFINE QLOCAL(" + q + ")\nDELETE QLOCAL(" + q + ")\n");
      EXPECT_TRUE(d.ok());
    }
  });
  const std::string payload(1024, 'p');
  int kept = 0;
  for (int i = 0; i < 90; ++i) {
    ASSERT_TRUE(put(a, h, payload + std::to_string(i), md(mq::MQPER_PERSISTENT)).ok());
    if (i % 3 == 0) {
      ASSERT_TRUE(a.get(h, no_wait()).ok());
    } else {
      ++kept;
    }
  }
  stop = true;
  mqsc_thread.join();
  EXPECT_GT(qm_->statistics().log.checkpoints, 0u);
  restart();
  auto& b = connect();
  EXPECT_EQ(depth(b, "APP.IN"), static_cast<std::size_t>(kept));
}

std::mutex ckpt_mu;
std::condition_variable ckpt_cv;
bool ckpt_entered = false;
bool ckpt_release = false;

void hold_checkpoint(std::size_t files_written) {
  if (files_written != 1) return;
  std::unique_lock<std::mutex> lk(ckpt_mu);
  ckpt_entered = true;
  ckpt_cv.notify_all();
  ckpt_cv.wait(lk, [] { return ckpt_release; });
}

// A DELETE QLOCAL while a checkpoint is writing queue files (outside the engine mutex, at paths it got
// from queue_file_fn) waits for it: the checkpoint never writes into a folder being removed.
TEST_F(checkpoint_race, ADeleteWaitsForTheCheckpointWritingQueueFiles) {
  auto& a = connect();
  auto& admin = connect();
  mqsc(admin, "DEFINE QLOCAL(ZZ.GONE)\n");
  ckpt_entered = false;
  ckpt_release = false;
  recovery_log_detail_guard guard(&hold_checkpoint);
  const auto h = open(a, "APP.IN", mq::MQOO_OUTPUT);
  std::thread putter([&] {
    const std::string payload(1024, 'p');
    for (int i = 0; i < 20; ++i) {
      ASSERT_TRUE(put(a, h, payload, md(mq::MQPER_PERSISTENT)).ok());
      std::lock_guard<std::mutex> g(ckpt_mu);
      if (ckpt_entered) break;
    }
  });
  {
    std::unique_lock<std::mutex> lk(ckpt_mu);
    ASSERT_TRUE(ckpt_cv.wait_for(lk, std::chrono::seconds(10), [] { return ckpt_entered; }));
  }
  std::atomic<bool> deleted{false};
  std::thread deleter([&] {
    mqsc(admin, "DELETE QLOCAL(ZZ.GONE)\n");
    deleted = true;
  });
  // Time for an unguarded DELETE to run; a guarded one waits whatever the time.
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_FALSE(deleted.load());
  {
    std::lock_guard<std::mutex> g(ckpt_mu);
    ckpt_release = true;
  }
  ckpt_cv.notify_all();
  putter.join();
  deleter.join();
  EXPECT_TRUE(deleted.load());
  EXPECT_GT(qm_->statistics().log.checkpoints, 0u);
  EXPECT_EQ(error_log().find(imsb::msg::IMB1182E), std::string::npos) << error_log();
}

}  // namespace
}  // namespace imsb::qmgr::test
