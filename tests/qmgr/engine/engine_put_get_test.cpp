// MQPUT / MQGET on the running queue manager: defaults, attributes and their reason codes, matching,
// browse, waits, exclusive input (queue_manager.hpp).

#include <array>
#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "engine_fixture.hpp"

namespace imsb::qmgr::test {
namespace {

class put_get : public engine_test {
  std::string extra_mqsc() override {
    return "DEFINE QLOCAL(SMALL) MAXMSGL(10)\n"
           "DEFINE QLOCAL(SHALLOW) MAXDEPTH(2)\n"
           "DEFINE QLOCAL(NOPUT) PUT(DISABLED)\n"
           "DEFINE QLOCAL(NOGET) GET(DISABLED)\n"
           "DEFINE QLOCAL(DEFS) DEFPSIST(YES) DEFPRTY(7)\n"
           "DEFINE QLOCAL(EXCL) DEFSOPT(EXCL)\n"
           "DEFINE QLOCAL(BIG) MAXMSGL(100000)\n"
           "DEFINE QALIAS(ALIAS.IN) TARGET(APP.IN)\n"
           "DEFINE QMODEL(MODEL)\n"
           "ALTER QMGR MAXMSGL(32768)\n";
  }
};

TEST_F(put_get, PutThenGetReturnsTheMessageWithItsContext) {
  auto& c = connect();
  const auto h = open(c, "APP.IN", mq::MQOO_OUTPUT | mq::MQOO_INPUT_SHARED);
  auto p = put(c, h, "hello");
  ASSERT_TRUE(p.ok()) << p.error().to_string();
  EXPECT_NE(p->md.msg_id, mq::MQMI_NONE);
  EXPECT_EQ(p->resolved_q, "APP.IN");
  EXPECT_EQ(p->md.persistence, mq::MQPER_NOT_PERSISTENT);
  EXPECT_EQ(p->md.priority, 0);  // DEFPRTY(0)
  auto g = c.get(h, no_wait());
  ASSERT_TRUE(g.ok()) << g.error().to_string();
  EXPECT_EQ(text_of(g->data), "hello");
  EXPECT_EQ(g->data_length, 5u);
  EXPECT_EQ(g->md.msg_id, p->md.msg_id);
  EXPECT_EQ(g->md.version, mq::MQMD_VERSION_2);
  EXPECT_EQ(g->md.user_identifier.substr(0, 6), "tester");
  auto none = c.get(h, no_wait());
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(rc_of(none.error()), mq::MQRC_NO_MSG_AVAILABLE);
  EXPECT_EQ(qm_->statistics().puts, 1u);
  EXPECT_EQ(qm_->statistics().gets, 1u);
}

TEST_F(put_get, ReasonCodesOfOpenPutAndGet) {
  auto& c = connect();
  auto unknown = c.open(mqi::object_descriptor{"NO.SUCH", ""}, mq::MQOO_OUTPUT);
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(rc_of(unknown.error()), mq::MQRC_UNKNOWN_OBJECT_NAME);

  const auto small = open(c, "SMALL", mq::MQOO_OUTPUT);
  auto too_big = put(c, small, "12345678901");
  ASSERT_FALSE(too_big.ok());
  EXPECT_EQ(rc_of(too_big.error()), mq::MQRC_MSG_TOO_BIG_FOR_Q);
  EXPECT_TRUE(put(c, small, "1234567890").ok());

  const auto big = open(c, "BIG", mq::MQOO_OUTPUT);
  auto too_big_qm = put(c, big, std::string(40000, 'x'));
  ASSERT_FALSE(too_big_qm.ok());
  EXPECT_EQ(rc_of(too_big_qm.error()), mq::MQRC_MSG_TOO_BIG_FOR_Q_MGR);

  const auto shallow = open(c, "SHALLOW", mq::MQOO_OUTPUT);
  EXPECT_TRUE(put(c, shallow, "1").ok());
  EXPECT_TRUE(put(c, shallow, "2").ok());
  auto full = put(c, shallow, "3");
  ASSERT_FALSE(full.ok());
  EXPECT_EQ(rc_of(full.error()), mq::MQRC_Q_FULL);

  const auto noput = open(c, "NOPUT", mq::MQOO_OUTPUT);
  auto inhibited = put(c, noput, "x");
  ASSERT_FALSE(inhibited.ok());
  EXPECT_EQ(rc_of(inhibited.error()), mq::MQRC_PUT_INHIBITED);

  const auto noget = open(c, "NOGET", mq::MQOO_INPUT_SHARED | mq::MQOO_OUTPUT);
  EXPECT_TRUE(put(c, noget, "x").ok());
  auto get_inhibited = c.get(noget, no_wait());
  ASSERT_FALSE(get_inhibited.ok());
  EXPECT_EQ(rc_of(get_inhibited.error()), mq::MQRC_GET_INHIBITED);
  // A browse is refused the same way (IBM MQ: 2016 for every MQGET on a GET(DISABLED) queue).
  const auto noget_browse = open(c, "NOGET", mq::MQOO_BROWSE);
  auto browse_inhibited = c.get(noget_browse, no_wait(mq::MQGMO_BROWSE_FIRST));
  ASSERT_FALSE(browse_inhibited.ok());
  EXPECT_EQ(rc_of(browse_inhibited.error()), mq::MQRC_GET_INHIBITED);

  const auto out_only = open(c, "APP.IN", mq::MQOO_OUTPUT);
  auto not_input = c.get(out_only, no_wait());
  ASSERT_FALSE(not_input.ok());
  EXPECT_EQ(rc_of(not_input.error()), mq::MQRC_NOT_OPEN_FOR_INPUT);
  auto not_browse = c.get(out_only, no_wait(mq::MQGMO_BROWSE_FIRST));
  ASSERT_FALSE(not_browse.ok());
  EXPECT_EQ(rc_of(not_browse.error()), mq::MQRC_NOT_OPEN_FOR_BROWSE);
  const auto in_only = open(c, "APP.IN", mq::MQOO_INPUT_SHARED);
  auto not_output = put(c, in_only, "x");
  ASSERT_FALSE(not_output.ok());
  EXPECT_EQ(rc_of(not_output.error()), mq::MQRC_NOT_OPEN_FOR_OUTPUT);
  auto bad_handle = c.get(999, no_wait());
  ASSERT_FALSE(bad_handle.ok());
  EXPECT_EQ(rc_of(bad_handle.error()), mq::MQRC_HOBJ_ERROR);

  auto model = c.open(mqi::object_descriptor{"MODEL", ""}, mq::MQOO_INPUT_SHARED);
  ASSERT_FALSE(model.ok());
  EXPECT_EQ(rc_of(model.error()), mq::MQRC_OPTION_NOT_VALID_FOR_TYPE);

  auto bad_md = md();
  bad_md.priority = -5;  // above 9 is allowed (put at 9); below -1 is an error
  auto prio = put(c, out_only, "x", bad_md);
  ASSERT_FALSE(prio.ok());
  EXPECT_EQ(rc_of(prio.error()), mq::MQRC_PRIORITY_ERROR);
}

TEST_F(put_get, TruncatedMessageStaysUnlessAccepted) {
  auto& c = connect();
  const auto h = open(c, "APP.IN", mq::MQOO_OUTPUT | mq::MQOO_INPUT_SHARED);
  ASSERT_TRUE(put(c, h, "0123456789").ok());
  auto req = no_wait();
  req.max_length = 4;
  auto failed = c.get(h, req);
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(rc_of(failed.error()), mq::MQRC_TRUNCATED_MSG_FAILED);
  req.options |= mq::MQGMO_ACCEPT_TRUNCATED_MSG;
  auto got = c.get(h, req);
  ASSERT_TRUE(got.ok()) << got.error().to_string();
  EXPECT_EQ(text_of(got->data), "0123");
  EXPECT_EQ(got->data_length, 10u);
  EXPECT_EQ(rc_of(c.get(h, no_wait()).error()), mq::MQRC_NO_MSG_AVAILABLE);
}

TEST_F(put_get, QueueDefaultsForPersistenceAndPriorityAndPriorityOrder) {
  auto& c = connect();
  const auto h = open(c, "DEFS", mq::MQOO_OUTPUT | mq::MQOO_INPUT_SHARED);
  mq::mqmd m;  // PERSISTENCE_AS_Q_DEF, PRIORITY_AS_Q_DEF
  auto p = c.put(h, m, bytes_view::of("d"), mq::MQPMO_NO_SYNCPOINT);
  ASSERT_TRUE(p.ok()) << p.error().to_string();
  EXPECT_EQ(p->md.persistence, mq::MQPER_PERSISTENT);
  EXPECT_EQ(p->md.priority, 7);

  const auto a = open(c, "APP.IN", mq::MQOO_OUTPUT | mq::MQOO_INPUT_SHARED);
  auto low = md();
  low.priority = 1;
  auto high = md();
  high.priority = 5;
  ASSERT_TRUE(put(c, a, "low", low).ok());
  ASSERT_TRUE(put(c, a, "high", high).ok());
  ASSERT_TRUE(put(c, a, "low2", low).ok());
  EXPECT_EQ(text_of(c.get(a, no_wait())->data), "high");
  EXPECT_EQ(text_of(c.get(a, no_wait())->data), "low");
  EXPECT_EQ(text_of(c.get(a, no_wait())->data), "low2");
}

TEST_F(put_get, GetByMsgIdCorrelIdAndToken) {
  auto& c = connect();
  const auto h = open(c, "APP.IN", mq::MQOO_OUTPUT | mq::MQOO_INPUT_SHARED | mq::MQOO_BROWSE);
  auto m1 = md();
  m1.correl_id[0] = 0x11;
  auto m2 = md();
  m2.correl_id[0] = 0x22;
  auto p1 = put(c, h, "one", m1);
  auto p2 = put(c, h, "two", m2);
  auto p3 = put(c, h, "three");
  ASSERT_TRUE(p1.ok() && p2.ok() && p3.ok());

  auto by_correl = no_wait();
  by_correl.correl_id = m2.correl_id;
  auto g2 = c.get(h, by_correl);
  ASSERT_TRUE(g2.ok()) << g2.error().to_string();
  EXPECT_EQ(text_of(g2->data), "two");

  auto by_id = no_wait();
  by_id.msg_id = p3->md.msg_id;
  auto g3 = c.get(h, by_id);
  ASSERT_TRUE(g3.ok());
  EXPECT_EQ(text_of(g3->data), "three");
  auto again = c.get(h, by_id);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(rc_of(again.error()), mq::MQRC_NO_MSG_AVAILABLE);

  auto browse = c.get(h, no_wait(mq::MQGMO_BROWSE_FIRST));
  ASSERT_TRUE(browse.ok());
  auto by_token = no_wait();
  by_token.match_options = mq::MQMO_MATCH_MSG_TOKEN;
  by_token.msg_token = browse->token;
  auto g1 = c.get(h, by_token);
  ASSERT_TRUE(g1.ok()) << g1.error().to_string();
  EXPECT_EQ(text_of(g1->data), "one");
  EXPECT_EQ(g1->token, browse->token);
}

TEST_F(put_get, BrowseFirstAndNextLeaveTheMessages) {
  auto& c = connect();
  const auto h = open(c, "APP.IN", mq::MQOO_OUTPUT | mq::MQOO_INPUT_SHARED | mq::MQOO_BROWSE);
  for (const char* d : {"a", "b", "c"}) ASSERT_TRUE(put(c, h, d).ok());
  auto first = c.get(h, no_wait(mq::MQGMO_BROWSE_FIRST));
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(text_of(first->data), "a");
  EXPECT_EQ(text_of(c.get(h, no_wait(mq::MQGMO_BROWSE_NEXT))->data), "b");
  EXPECT_EQ(text_of(c.get(h, no_wait(mq::MQGMO_BROWSE_NEXT))->data), "c");
  auto end = c.get(h, no_wait(mq::MQGMO_BROWSE_NEXT));
  ASSERT_FALSE(end.ok());
  EXPECT_EQ(rc_of(end.error()), mq::MQRC_NO_MSG_AVAILABLE);
  EXPECT_EQ(text_of(c.get(h, no_wait(mq::MQGMO_BROWSE_FIRST))->data), "a");
  const mqi::hobj hi = open(c, "APP.IN", mq::MQOO_INQUIRE);
  auto st = mqi::inquire_queue(c, hi);
  ASSERT_TRUE(st.ok()) << st.error().to_string();
  EXPECT_EQ(st->current_depth, 3);
  EXPECT_EQ(st->type, mq::MQQT_LOCAL);
  auto max = c.inquire(hi, {mq::MQIA_MAX_Q_DEPTH});
  ASSERT_TRUE(max.ok()) << max.error().to_string();
  EXPECT_EQ(max->int_attrs, std::vector<std::int32_t>{5000});
}

TEST_F(put_get, WaitIsWokenByAPutFromAnotherThread) {
  auto& getter = connect();
  auto& putter = connect();
  const auto in = open(getter, "APP.IN", mq::MQOO_INPUT_SHARED);
  const auto out = open(putter, "APP.IN", mq::MQOO_OUTPUT);
  std::atomic<bool> started{false};
  result<mqi::message> got = decode_error{};
  std::thread t([&] {
    auto req = no_wait(mq::MQGMO_WAIT | mq::MQGMO_NO_SYNCPOINT);
    req.wait_interval_ms = 20000;
    started = true;
    got = getter.get(in, req);
  });
  while (!started) std::this_thread::yield();
  ASSERT_TRUE(put(putter, out, "wake").ok());
  t.join();
  ASSERT_TRUE(got.ok()) << got.error().to_string();
  EXPECT_EQ(text_of(got->data), "wake");
}

// A change wakes only the waiters it concerns (docs/design/concurrency.md "The queue manager"): puts, commits
// and backouts on REPLY wake none of the gets waiting on APP.IN; a put on APP.IN wakes those three, and no
// one else (counted by the engine's test hook, not timed).
TEST_F(put_get, AChangeOnOneQueueWakesNoGetWaitingOnAnother) {
  auto& putter = connect();
  const auto reply_out = open(putter, "REPLY", mq::MQOO_OUTPUT);
  const auto reply_in = open(putter, "REPLY", mq::MQOO_INPUT_SHARED);
  const auto in_out = open(putter, "APP.IN", mq::MQOO_OUTPUT);
  constexpr int getters = 3;
  std::vector<result<mqi::message>> got(getters, decode_error{});
  std::vector<std::thread> threads;
  for (int i = 0; i < getters; ++i) {
    auto& c = connect();
    const auto in = open(c, "APP.IN", mq::MQOO_INPUT_SHARED);
    threads.emplace_back([&got, &c, in, i] {
      auto req = no_wait(mq::MQGMO_WAIT | mq::MQGMO_NO_SYNCPOINT);
      req.wait_interval_ms = 20000;
      got[i] = c.get(in, req);
    });
  }
  const auto waiting_since = std::chrono::steady_clock::now();
  while (qm_->statistics().waiting < getters &&
         std::chrono::steady_clock::now() - waiting_since < std::chrono::seconds(10))
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  ASSERT_EQ(qm_->statistics().waiting, std::size_t{getters});

  const auto before = qm_->statistics().wakeups;
  for (int i = 0; i < 50; ++i) ASSERT_TRUE(put(putter, reply_out, "elsewhere").ok());
  ASSERT_TRUE(put(putter, reply_out, "persistent", md(mq::MQPER_PERSISTENT)).ok());
  // Under syncpoint, committed; and a get from REPLY backed out, which gives its message back there.
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(put(putter, reply_out, "uow", md(), mq::MQPMO_SYNCPOINT).ok());
  ASSERT_TRUE(putter.commit().ok());
  ASSERT_TRUE(putter.get(reply_in, no_wait(mq::MQGMO_SYNCPOINT)).ok());
  ASSERT_TRUE(putter.backout().ok());
  EXPECT_EQ(qm_->statistics().wakeups, before) << "a change on REPLY woke a get waiting on APP.IN";
  EXPECT_EQ(qm_->statistics().waiting, std::size_t{getters});

  // One message on APP.IN: its three waiters are woken (any of them may take it), nobody else.
  ASSERT_TRUE(put(putter, in_out, "for one").ok());
  EXPECT_EQ(qm_->statistics().wakeups, before + getters);
  ASSERT_TRUE(put(putter, in_out, "for another").ok());
  ASSERT_TRUE(put(putter, in_out, "for the last").ok());
  for (auto& t : threads) t.join();
  for (const auto& g : got) EXPECT_TRUE(g.ok()) << g.error().to_string();
  EXPECT_EQ(qm_->statistics().get_waits.message, std::uint64_t{getters});
}

// A waiting get is woken only by a message it could take (docs/design/concurrency.md "The queue manager"):
// requesters sharing one reply queue, each waiting for its own CorrelId, as imsbench's and most request/reply
// clients do. A reply for one wakes that one alone; a reply for nobody wakes nobody; one a get without
// match options could take wakes that get alone (counted by the engine's test hook, not timed).
TEST_F(put_get, AReplyWakesOnlyTheGetWaitingForItsCorrelId) {
  auto& putter = connect();
  const auto reply_out = open(putter, "REPLY", mq::MQOO_OUTPUT);
  constexpr int getters = 4;
  auto correl = [](int i) {
    std::array<std::uint8_t, 24> id{};
    id.fill(static_cast<std::uint8_t>('A' + i));
    return id;
  };
  std::vector<result<mqi::message>> got(getters + 1, decode_error{});
  std::vector<std::thread> threads;
  for (int i = 0; i <= getters; ++i) {
    auto& c = connect();
    const auto in = open(c, "REPLY", mq::MQOO_INPUT_SHARED);
    auto req = no_wait(mq::MQGMO_WAIT | mq::MQGMO_NO_SYNCPOINT);
    req.wait_interval_ms = 20000;
    if (i < getters) {  // the last one waits for any message
      req.match_options = mq::MQMO_MATCH_CORREL_ID;
      req.correl_id = correl(i);
    }
    threads.emplace_back([&got, &c, in, i, req] { got[i] = c.get(in, req); });
  }
  const auto waiting_since = std::chrono::steady_clock::now();
  while (qm_->statistics().waiting < getters + 1 &&
         std::chrono::steady_clock::now() - waiting_since < std::chrono::seconds(10))
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  ASSERT_EQ(qm_->statistics().waiting, std::size_t{getters + 1});
  // The one without match options takes the first message: a reply for nobody here.
  auto nobody = md();
  nobody.correl_id = correl(getters + 1);
  auto before = qm_->statistics().wakeups;
  ASSERT_TRUE(put(putter, reply_out, "for any", nobody).ok());
  threads[getters].join();
  ASSERT_TRUE(got[getters].ok()) << got[getters].error().to_string();
  EXPECT_EQ(text_of(got[getters]->data), "for any");
  EXPECT_EQ(qm_->statistics().wakeups, before + 1) << "a message for no CorrelId waited for woke them";
  // Now one for nobody again: it stays, and wakes no one.
  before = qm_->statistics().wakeups;
  ASSERT_TRUE(put(putter, reply_out, "for nobody", nobody).ok());
  EXPECT_EQ(qm_->statistics().wakeups, before);
  EXPECT_EQ(qm_->statistics().waiting, std::size_t{getters});
  for (int i = getters - 1; i >= 0; --i) {
    before = qm_->statistics().wakeups;
    auto m = md();
    m.correl_id = correl(i);
    ASSERT_TRUE(put(putter, reply_out, "reply " + std::to_string(i), m).ok());
    threads[static_cast<std::size_t>(i)].join();
    ASSERT_TRUE(got[i].ok()) << got[i].error().to_string();
    EXPECT_EQ(text_of(got[i]->data), "reply " + std::to_string(i));
    EXPECT_EQ(qm_->statistics().wakeups, before + 1) << "the reply for requester " << i << " woke others";
  }
  EXPECT_EQ(qm_->statistics().get_waits.message, std::uint64_t{getters + 1});
}

TEST_F(put_get, WaitTimesOutWith2033AndQuiesceWakesWith2161) {
  auto& c = connect();
  const auto in = open(c, "APP.IN", mq::MQOO_INPUT_SHARED);
  auto req = no_wait(mq::MQGMO_WAIT);
  req.wait_interval_ms = 50;
  const auto t0 = std::chrono::steady_clock::now();
  auto timed_out = c.get(in, req);
  ASSERT_FALSE(timed_out.ok());
  EXPECT_EQ(rc_of(timed_out.error()), mq::MQRC_NO_MSG_AVAILABLE);
  EXPECT_GE(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(50));

  result<mqi::message> got = decode_error{};
  std::atomic<bool> started{false};
  std::thread t([&] {
    auto forever = no_wait(mq::MQGMO_WAIT);
    forever.wait_interval_ms = mq::MQWI_UNLIMITED;
    started = true;
    got = c.get(in, forever);
  });
  while (!started) std::this_thread::yield();
  qm_->quiesce();
  t.join();
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(rc_of(got.error()), mq::MQRC_Q_MGR_QUIESCING);
  auto refused = qm_->connect(principal{"x", {}, true, ""});
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(rc_of(refused.error()), mq::MQRC_Q_MGR_QUIESCING);
}

TEST_F(put_get, ExclusiveInputRefusesASecondOpener) {
  auto& a = connect();
  auto& b = connect();
  open(a, "APP.IN", mq::MQOO_INPUT_EXCLUSIVE);
  auto second = b.open(mqi::object_descriptor{"APP.IN", ""}, mq::MQOO_INPUT_SHARED);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(rc_of(second.error()), mq::MQRC_OBJECT_IN_USE);
  EXPECT_TRUE(b.open(mqi::object_descriptor{"APP.IN", ""}, mq::MQOO_OUTPUT).ok());

  // DEFSOPT(EXCL) with MQOO_INPUT_AS_Q_DEF is exclusive too; closing frees it.
  const auto h = open(a, "EXCL", mq::MQOO_INPUT_AS_Q_DEF);
  auto refused = b.open(mqi::object_descriptor{"EXCL", ""}, mq::MQOO_INPUT_AS_Q_DEF);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(rc_of(refused.error()), mq::MQRC_OBJECT_IN_USE);
  ASSERT_TRUE(a.close(h).ok());
  EXPECT_TRUE(b.open(mqi::object_descriptor{"EXCL", ""}, mq::MQOO_INPUT_AS_Q_DEF).ok());
}

TEST_F(put_get, AliasPut1AndDisconnect) {
  auto& c = connect();
  auto p = c.put1(mqi::object_descriptor{"ALIAS.IN", ""}, md(), bytes_view::of("via alias"),
                  mq::MQPMO_NO_SYNCPOINT);
  ASSERT_TRUE(p.ok()) << p.error().to_string();
  EXPECT_EQ(p->resolved_q, "APP.IN");
  const auto h = open(c, "APP.IN", mq::MQOO_INPUT_SHARED);
  EXPECT_EQ(text_of(c.get(h, no_wait())->data), "via alias");
  ASSERT_TRUE(c.disconnect().ok());
  auto after = c.get(h, no_wait());
  ASSERT_FALSE(after.ok());
  EXPECT_EQ(rc_of(after.error()), mq::MQRC_HCONN_ERROR);
  EXPECT_EQ(qm_->connection_count(), 0u);
}

}  // namespace
}  // namespace imsb::qmgr::test

namespace imsb::qmgr::test {
namespace {

TEST_F(put_get, GetUnderTheBrowseCursor) {
  auto& c = connect();
  const auto h = open(c, "APP.IN", mq::MQOO_OUTPUT | mq::MQOO_INPUT_SHARED | mq::MQOO_BROWSE);
  auto no_cursor = c.get(h, no_wait(mq::MQGMO_MSG_UNDER_CURSOR));
  ASSERT_FALSE(no_cursor.ok());
  EXPECT_EQ(rc_of(no_cursor.error()), mq::MQRC_NO_MSG_UNDER_CURSOR);
  for (const char* d : {"a", "b", "c"}) ASSERT_TRUE(put(c, h, d).ok());
  ASSERT_TRUE(c.get(h, no_wait(mq::MQGMO_BROWSE_FIRST)).ok());
  ASSERT_TRUE(c.get(h, no_wait(mq::MQGMO_BROWSE_NEXT)).ok());
  auto b = c.get(h, no_wait(mq::MQGMO_MSG_UNDER_CURSOR));
  ASSERT_TRUE(b.ok()) << b.error().to_string();
  EXPECT_EQ(text_of(b->data), "b");
  auto again = c.get(h, no_wait(mq::MQGMO_MSG_UNDER_CURSOR));
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(rc_of(again.error()), mq::MQRC_NO_MSG_UNDER_CURSOR);
  EXPECT_EQ(text_of(c.get(h, no_wait(mq::MQGMO_BROWSE_NEXT))->data), "c");
  EXPECT_EQ(text_of(c.get(h, no_wait())->data), "a");
  EXPECT_EQ(rc_of(c.get(h, no_wait(mq::MQGMO_LOCK | mq::MQGMO_BROWSE_FIRST)).error()),
            mq::MQRC_OPTIONS_ERROR);
}

}  // namespace
}  // namespace imsb::qmgr::test
