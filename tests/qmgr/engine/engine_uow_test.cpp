// Units of work, BackoutCount and restarts (queue_manager.hpp, recovery_log.hpp).

#include <atomic>
#include <set>
#include <thread>

#include "engine_fixture.hpp"

namespace imsb::qmgr::test {
namespace {

using uow = engine_test;

TEST_F(uow, SyncpointPutIsInvisibleUntilCommit) {
  auto& a = connect();
  auto& b = connect();
  const auto out = open(a, "APP.IN", mq::MQOO_OUTPUT);
  const auto in = open(b, "APP.IN", mq::MQOO_INPUT_SHARED);
  ASSERT_TRUE(put(a, out, "later", md(mq::MQPER_PERSISTENT), mq::MQPMO_SYNCPOINT).ok());
  auto none = b.get(in, no_wait());
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(rc_of(none.error()), mq::MQRC_NO_MSG_AVAILABLE);
  ASSERT_TRUE(a.commit().ok());
  auto got = b.get(in, no_wait());
  ASSERT_TRUE(got.ok()) << got.error().to_string();
  EXPECT_EQ(text_of(got->data), "later");
}

TEST_F(uow, BackoutOfAPutRemovesIt) {
  auto& a = connect();
  const auto h = open(a, "APP.IN", mq::MQOO_OUTPUT | mq::MQOO_INPUT_SHARED);
  ASSERT_TRUE(put(a, h, "never", md(), mq::MQPMO_SYNCPOINT).ok());
  ASSERT_TRUE(a.backout().ok());
  ASSERT_TRUE(a.commit().ok());
  EXPECT_EQ(rc_of(a.get(h, no_wait()).error()), mq::MQRC_NO_MSG_AVAILABLE);
}

TEST_F(uow, GetUnderSyncpointLocksAndBackoutCountsUp) {
  auto& a = connect();
  auto& b = connect();
  const auto ha = open(a, "APP.IN", mq::MQOO_OUTPUT | mq::MQOO_INPUT_SHARED);
  const auto hb = open(b, "APP.IN", mq::MQOO_INPUT_SHARED);
  ASSERT_TRUE(put(a, ha, "again", md(mq::MQPER_PERSISTENT)).ok());
  auto first = a.get(ha, no_wait(mq::MQGMO_SYNCPOINT));
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(first->md.backout_count, 0);
  EXPECT_EQ(rc_of(b.get(hb, no_wait()).error()), mq::MQRC_NO_MSG_AVAILABLE);  // locked by a's unit
  ASSERT_TRUE(a.backout().ok());
  auto second = b.get(hb, no_wait(mq::MQGMO_SYNCPOINT));
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(second->md.backout_count, 1);
  EXPECT_EQ(second->token, first->token);
  ASSERT_TRUE(b.backout().ok());

  // BackoutCount survives a restart for a persistent message.
  restart();
  auto& c = connect();
  const auto hc = open(c, "APP.IN", mq::MQOO_INPUT_SHARED);
  auto third = c.get(hc, no_wait(mq::MQGMO_SYNCPOINT));
  ASSERT_TRUE(third.ok()) << third.error().to_string();
  EXPECT_EQ(third->md.backout_count, 2);
  ASSERT_TRUE(c.commit().ok());
  EXPECT_EQ(rc_of(c.get(hc, no_wait()).error()), mq::MQRC_NO_MSG_AVAILABLE);
  EXPECT_EQ(qm_->statistics().commits, 1u);
}

TEST_F(uow, RestartKeepsPersistentCommittedMessagesOnly) {
  std::set<mqi::message_token> tokens;
  {
    auto& a = connect();
    const auto h = open(a, "APP.IN", mq::MQOO_OUTPUT | mq::MQOO_INPUT_SHARED | mq::MQOO_BROWSE);
    ASSERT_TRUE(put(a, h, "kept", md(mq::MQPER_PERSISTENT)).ok());
    ASSERT_TRUE(put(a, h, "volatile", md(mq::MQPER_NOT_PERSISTENT)).ok());
    auto got = put(a, h, "got", md(mq::MQPER_PERSISTENT));
    ASSERT_TRUE(got.ok());
    tokens.insert(a.get(h, no_wait(mq::MQGMO_BROWSE_FIRST))->token);
    tokens.insert(a.get(h, no_wait(mq::MQGMO_BROWSE_NEXT))->token);
    tokens.insert(a.get(h, no_wait(mq::MQGMO_BROWSE_NEXT))->token);
    ASSERT_EQ(tokens.size(), 3u);
    // "got" is got for good; "kept" is got in a unit of work that never commits; "uncommitted" is put
    // in one.
    auto by_id = no_wait();
    by_id.msg_id = got->md.msg_id;
    ASSERT_TRUE(a.get(h, by_id).ok());
    auto& b = connect();
    const auto hb = open(b, "APP.IN", mq::MQOO_OUTPUT | mq::MQOO_INPUT_SHARED);
    auto locked = b.get(hb, no_wait(mq::MQGMO_SYNCPOINT));
    ASSERT_TRUE(locked.ok());
    EXPECT_EQ(text_of(locked->data), "kept");
    ASSERT_TRUE(put(b, hb, "uncommitted", md(mq::MQPER_PERSISTENT), mq::MQPMO_SYNCPOINT).ok());
    ASSERT_TRUE(put(a, open(a, "REPLY", mq::MQOO_OUTPUT), "np").ok());
  }
  restart();  // the open units of work are backed out by the end of the queue manager
  auto& c = connect();
  const auto h = open(c, "APP.IN", mq::MQOO_OUTPUT | mq::MQOO_INPUT_SHARED);
  auto kept = c.get(h, no_wait());
  ASSERT_TRUE(kept.ok()) << kept.error().to_string();
  EXPECT_EQ(text_of(kept->data), "kept");
  EXPECT_EQ(kept->md.persistence, mq::MQPER_PERSISTENT);
  EXPECT_EQ(tokens.count(kept->token), 1u);  // the same message, by its token
  EXPECT_EQ(rc_of(c.get(h, no_wait()).error()), mq::MQRC_NO_MSG_AVAILABLE);
  const auto r = open(c, "REPLY", mq::MQOO_INPUT_SHARED);
  EXPECT_EQ(rc_of(c.get(r, no_wait()).error()), mq::MQRC_NO_MSG_AVAILABLE);  // non-persistent: gone
  // Tokens never repeat across restarts.
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(put(c, h, "new", md(mq::MQPER_PERSISTENT)).ok());
    auto g = c.get(h, no_wait());
    ASSERT_TRUE(g.ok());
    EXPECT_TRUE(tokens.insert(g->token).second);
  }
}

TEST_F(uow, DisconnectCommitsAndABrokenConnectionBacksOut) {
  {
    auto& a = connect();
    const auto h = open(a, "APP.IN", mq::MQOO_OUTPUT);
    ASSERT_TRUE(put(a, h, "committed by MQDISC", md(), mq::MQPMO_SYNCPOINT).ok());
    ASSERT_TRUE(a.disconnect().ok());
  }
  {
    auto c = qm_->connect(principal{"tester", {}, true, ""});
    ASSERT_TRUE(c.ok());
    const auto h = open(**c, "APP.IN", mq::MQOO_OUTPUT);
    ASSERT_TRUE(put(**c, h, "lost", md(), mq::MQPMO_SYNCPOINT).ok());
  }  // destroyed without MQDISC
  auto& b = connect();
  const auto in = open(b, "APP.IN", mq::MQOO_INPUT_SHARED);
  EXPECT_EQ(text_of(b.get(in, no_wait())->data), "committed by MQDISC");
  EXPECT_EQ(rc_of(b.get(in, no_wait()).error()), mq::MQRC_NO_MSG_AVAILABLE);
  qm_->stop_connections();
  auto broken = b.get(in, no_wait());
  ASSERT_FALSE(broken.ok());
  EXPECT_EQ(rc_of(broken.error()), mq::MQRC_CONNECTION_BROKEN);
}

}  // namespace
}  // namespace imsb::qmgr::test

namespace imsb::qmgr::test {
namespace {

TEST_F(uow, CheckpointsKeepEveryCommittedMessageAcrossRestarts) {
  checkpoint_bytes_ = 1;  // every batch asks for a checkpoint
  restart();
  auto& c = connect();
  const auto h = open(c, "APP.IN", mq::MQOO_OUTPUT | mq::MQOO_INPUT_SHARED);
  for (int i = 0; i < 6; ++i) ASSERT_TRUE(put(c, h, "m" + std::to_string(i), md(mq::MQPER_PERSISTENT)).ok());
  ASSERT_TRUE(c.get(h, no_wait()).ok());
  ASSERT_TRUE(c.get(h, no_wait(mq::MQGMO_SYNCPOINT)).ok());
  ASSERT_TRUE(c.commit().ok());
  EXPECT_GT(qm_->statistics().log.checkpoints, 0u);
  restart();
  auto& d = connect();
  const auto h2 = open(d, "APP.IN", mq::MQOO_INPUT_SHARED);
  for (int i = 2; i < 6; ++i) {
    auto g = d.get(h2, no_wait());
    ASSERT_TRUE(g.ok()) << i << ": " << g.error().to_string();
    EXPECT_EQ(text_of(g->data), "m" + std::to_string(i));
  }
  EXPECT_EQ(rc_of(d.get(h2, no_wait()).error()), mq::MQRC_NO_MSG_AVAILABLE);
}

TEST_F(uow, ConcurrentPuttersAndGettersLoseNothing) {
  constexpr int threads = 4, per_thread = 200;
  std::vector<mqi::connection*> putters, getters;
  for (int i = 0; i < threads; ++i) putters.push_back(&connect());
  for (int i = 0; i < threads; ++i) getters.push_back(&connect());
  std::atomic<int> got{0};
  std::vector<std::thread> ts;
  for (int i = 0; i < threads; ++i) {
    ts.emplace_back([&, i] {
      auto& c = *putters[static_cast<std::size_t>(i)];
      const auto h = open(c, "APP.IN", mq::MQOO_OUTPUT);
      for (int n = 0; n < per_thread; ++n) {
        const bool sync = n % 2 == 0;
        EXPECT_TRUE(put(c, h, "x", md(n % 3 == 0 ? mq::MQPER_PERSISTENT : mq::MQPER_NOT_PERSISTENT),
                        sync ? mq::MQPMO_SYNCPOINT : mq::MQPMO_NO_SYNCPOINT)
                        .ok());
        if (sync) {
          EXPECT_TRUE(c.commit().ok());
        }
      }
    });
    ts.emplace_back([&, i] {
      auto& c = *getters[static_cast<std::size_t>(i)];
      const auto h = open(c, "APP.IN", mq::MQOO_INPUT_SHARED);
      auto req = no_wait(mq::MQGMO_WAIT | mq::MQGMO_SYNCPOINT);
      req.wait_interval_ms = 5000;
      for (int n = 0, attempt = 0; n < per_thread; ++attempt) {
        auto g = c.get(h, req);
        ASSERT_TRUE(g.ok()) << g.error().to_string();
        if (attempt % 5 == 0) {
          EXPECT_TRUE(c.backout().ok());  // got again later, by someone
          continue;
        }
        EXPECT_TRUE(c.commit().ok());
        ++got;
        ++n;
      }
    });
  }
  for (auto& t : ts) t.join();
  EXPECT_EQ(got.load(), threads * per_thread);
  auto& c = connect();
  EXPECT_EQ(rc_of(c.get(open(c, "APP.IN", mq::MQOO_INPUT_SHARED), no_wait()).error()),
            mq::MQRC_NO_MSG_AVAILABLE);
}

}  // namespace
}  // namespace imsb::qmgr::test
