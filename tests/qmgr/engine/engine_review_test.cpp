// Defects once found in the engine (F1-F8 below), each a test that failed before its fix: context
// options and their authority, authority through a transmission queue, unknown option bits, COA/COD
// on transmission queues, MSGDLVSQ(FIFO), CLEAR/DELETE against the log, old handles after DELETE and
// DEFINE, MAXUMSGS, the hobj wrap and MQPMO_FAIL_IF_QUIESCING.

#include <atomic>
#include <chrono>
#include <climits>
#include <condition_variable>
#include <mutex>
#include <set>
#include <thread>

#include <sys/stat.h>
#include <cstdlib>

#include "engine_fixture.hpp"
#include "imsb/core/messages.hpp"
#include "imsb/qmgr/connect.hpp"
#include "imsb/qmgr/server.hpp"

namespace imsb::qmgr::test {
namespace {
using review = engine_test;

// F1: PASS_ALL_CONTEXT on a handle opened with plain MQOO_OUTPUT forges UserIdentifier.
TEST_F(review, PassAllContextWithoutOpenOptionForgesIdentity) {
  auto& root = connect();
  mqsc(root,
       "SET AUTHREC PROFILE(QM1) OBJTYPE(QMGR) PRINCIPAL('alice') AUTHADD(CONNECT)\n"
       "SET AUTHREC PROFILE('APP.IN') OBJTYPE(QUEUE) PRINCIPAL('alice') AUTHADD(PUT)\n");
  auto c = qm_->connect(principal{"alice", {}, false, "app"});
  ASSERT_TRUE(c.ok());
  auto h = (*c)->open(mqi::object_descriptor{"APP.IN", ""}, mq::MQOO_OUTPUT);
  ASSERT_TRUE(h.ok());
  mq::mqmd m = md();
  m.user_identifier = padded("IMSADMIN", 12);
  auto p = (*c)->put(h->handle, m, bytes_view::of(std::string("x")),
                     mq::MQPMO_NO_SYNCPOINT | mq::MQPMO_PASS_ALL_CONTEXT);
  // IBM's MQRC_NOT_OPEN_FOR_PASS_ALL (2093): the handle was not opened with MQOO_PASS_ALL_CONTEXT.
  ASSERT_FALSE(p.ok()) << "forged UserIdentifier accepted";
  EXPECT_EQ(rc_of(p.error()), mq::MQRC_NOT_OPEN_FOR_PASS_ALL);
  auto pi = (*c)->put(h->handle, m, bytes_view::of(std::string("x")), mq::MQPMO_PASS_IDENTITY_CONTEXT);
  ASSERT_FALSE(pi.ok());
  EXPECT_EQ(rc_of(pi.error()), mq::MQRC_NOT_OPEN_FOR_PASS_IDENT);
  const auto hr = open(root, "APP.IN", mq::MQOO_INPUT_SHARED);
  EXPECT_FALSE(root.get(hr, no_wait()).ok()) << "a message was put";
}

TEST_F(review, PassContextWithTheOpenOptionKeepsIt) {
  auto& root = connect();
  mqsc(root,
       "SET AUTHREC PROFILE(QM1) OBJTYPE(QMGR) PRINCIPAL('alice') AUTHADD(CONNECT)\n"
       "SET AUTHREC PROFILE('APP.IN') OBJTYPE(QUEUE) PRINCIPAL('alice') AUTHADD(PUT,PASSALL)\n");
  auto c = qm_->connect(principal{"alice", {}, false, "app"});
  ASSERT_TRUE(c.ok());
  // PASSALL covers MQOO_PASS_ALL_CONTEXT and the PASS_IDENTITY it implies.
  auto h = (*c)->open(mqi::object_descriptor{"APP.IN", ""}, mq::MQOO_OUTPUT | mq::MQOO_PASS_ALL_CONTEXT);
  ASSERT_TRUE(h.ok()) << h.error().to_string();
  mq::mqmd m = md();
  m.user_identifier = padded("BOB", 12);
  ASSERT_TRUE(
      (*c)->put(h->handle, m, bytes_view::of(std::string("x")), mq::MQPMO_PASS_IDENTITY_CONTEXT).ok());
  const auto hr = open(root, "APP.IN", mq::MQOO_INPUT_SHARED);
  auto g = root.get(hr, no_wait());
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(g->md.user_identifier.substr(0, 3), "BOB");
}

// F1b: MQOO_PASS_ALL_CONTEXT needs PASSALL, not PASSID.
TEST_F(review, PassAllOpenNeedsPassall) {
  auto& root = connect();
  mqsc(root,
       "SET AUTHREC PROFILE(QM1) OBJTYPE(QMGR) PRINCIPAL('alice') AUTHADD(CONNECT)\n"
       "SET AUTHREC PROFILE('APP.IN') OBJTYPE(QUEUE) PRINCIPAL('alice') AUTHADD(PUT,PASSID)\n");
  auto c = qm_->connect(principal{"alice", {}, false, "app"});
  ASSERT_TRUE(c.ok());
  auto h = (*c)->open(mqi::object_descriptor{"APP.IN", ""}, mq::MQOO_OUTPUT | mq::MQOO_PASS_ALL_CONTEXT);
  ASSERT_FALSE(h.ok()) << "opened PASS_ALL with only PASSID";
  EXPECT_EQ(rc_of(h.error()), mq::MQRC_NOT_AUTHORIZED);
  EXPECT_TRUE(
      (*c)->open(mqi::object_descriptor{"APP.IN", ""}, mq::MQOO_OUTPUT | mq::MQOO_PASS_IDENTITY_CONTEXT)
          .ok());
}

// F2: MQGMO_BROWSE_MSG_UNDER_CURSOR (0x800) is treated as a destructive get.
TEST_F(review, BrowseMsgUnderCursorDoesNotRemove) {
  auto& c = connect();
  const auto h =
      open(c, "APP.IN", mq::MQOO_OUTPUT | mq::MQOO_INPUT_SHARED | mq::MQOO_BROWSE | mq::MQOO_INQUIRE);
  ASSERT_TRUE(put(c, h, "one").ok());
  ASSERT_TRUE(c.get(h, no_wait(mq::MQGMO_BROWSE_FIRST)).ok());
  auto g = c.get(h, no_wait(mq::MQGMO_BROWSE_MSG_UNDER_CURSOR));
  ASSERT_TRUE(g.ok()) << g.error().to_string();
  EXPECT_EQ(text_of(g->data), "one");
  auto st = mqi::inquire_queue(c, h);
  ASSERT_TRUE(st.ok());
  EXPECT_EQ(st->current_depth, 1) << "browse-under-cursor removed the message";
}

TEST_F(review, SyncpointIfPersistentLeavesNonPersistentOutside) {
  auto& c = connect();
  const auto h = open(c, "APP.IN", mq::MQOO_OUTPUT | mq::MQOO_INPUT_SHARED | mq::MQOO_INQUIRE);
  ASSERT_TRUE(put(c, h, "n").ok());
  ASSERT_TRUE(c.get(h, no_wait(mq::MQGMO_SYNCPOINT_IF_PERSISTENT)).ok());
  ASSERT_TRUE(c.backout().ok());
  auto st = mqi::inquire_queue(c, h);
  ASSERT_TRUE(st.ok());
  EXPECT_EQ(st->current_depth, 0);
}

TEST_F(review, UnknownOptionBitsAreRefused) {
  auto& c = connect();
  auto bad_open = c.open(mqi::object_descriptor{"APP.IN", ""}, mq::MQOO_OUTPUT | 0x1000 /* ALTERNATE_USER */);
  ASSERT_FALSE(bad_open.ok());
  EXPECT_EQ(rc_of(bad_open.error()), mq::MQRC_OPTIONS_ERROR);
  const auto h = open(c, "APP.IN", mq::MQOO_OUTPUT | mq::MQOO_INPUT_SHARED | mq::MQOO_FAIL_IF_QUIESCING);
  auto bad_put = put(c, h, "x", md(), mq::MQPMO_NO_SYNCPOINT | 0x8000 /* LOGICAL_ORDER */);
  ASSERT_FALSE(bad_put.ok());
  EXPECT_EQ(rc_of(bad_put.error()), mq::MQRC_OPTIONS_ERROR);
  ASSERT_TRUE(put(c, h, "x", md(), mq::MQPMO_NO_SYNCPOINT | mq::MQPMO_FAIL_IF_QUIESCING).ok());
  auto bad_get = c.get(h, no_wait(mq::MQGMO_NO_SYNCPOINT | 0x80 /* MARK_SKIP_BACKOUT */));
  ASSERT_FALSE(bad_get.ok());
  EXPECT_EQ(rc_of(bad_get.error()), mq::MQRC_OPTIONS_ERROR);
  auto both = c.get(h, no_wait(mq::MQGMO_SYNCPOINT | mq::MQGMO_SYNCPOINT_IF_PERSISTENT));
  ASSERT_FALSE(both.ok());
  EXPECT_EQ(rc_of(both.error()), mq::MQRC_OPTIONS_ERROR);
  // Accepted and harmless: CONVERT, FAIL_IF_QUIESCING, ACCEPT_TRUNCATED_MSG.
  auto g = c.get(h, no_wait(mq::MQGMO_NO_SYNCPOINT | mq::MQGMO_CONVERT | mq::MQGMO_FAIL_IF_QUIESCING |
                            mq::MQGMO_ACCEPT_TRUNCATED_MSG));
  ASSERT_TRUE(g.ok()) << g.error().to_string();
}

// F3: MQGMO_SYNCPOINT_IF_PERSISTENT (0x1000) ignored: a persistent message is got outside syncpoint.
TEST_F(review, SyncpointIfPersistentIsHonoured) {
  auto& c = connect();
  const auto h = open(c, "APP.IN", mq::MQOO_OUTPUT | mq::MQOO_INPUT_SHARED | mq::MQOO_INQUIRE);
  ASSERT_TRUE(put(c, h, "p", md(mq::MQPER_PERSISTENT)).ok());
  auto g = c.get(h, no_wait(0x1000 /* MQGMO_SYNCPOINT_IF_PERSISTENT */));
  ASSERT_TRUE(g.ok());
  ASSERT_TRUE(c.backout().ok());
  auto st = mqi::inquire_queue(c, h);
  ASSERT_TRUE(st.ok());
  EXPECT_EQ(st->current_depth, 1) << "persistent message not restored by MQBACK";
}

// F4: a browse/inquire-only handle does not stop DELETE QLOCAL; after DEFINE again the old handle
// reads the new queue instead of MQRC_Q_DELETED (2052).
TEST_F(review, BrowseHandleSurvivesDeleteAndRedefine) {
  auto& c = connect();
  auto& admin = connect("admin2");
  const auto hb = open(c, "APP.IN", mq::MQOO_BROWSE);
  mqsc(admin, "DELETE QLOCAL(APP.IN)\nDEFINE QLOCAL(APP.IN)\n");
  const auto hp = open(admin, "APP.IN", mq::MQOO_OUTPUT);
  ASSERT_TRUE(put(admin, hp, "new").ok());
  auto g = c.get(hb, no_wait(mq::MQGMO_BROWSE_FIRST));
  ASSERT_FALSE(g.ok()) << "old handle browsed the redefined queue";
  EXPECT_EQ(rc_of(g.error()), mq::MQRC_Q_DELETED);
}

class xmit_review : public engine_test {
  std::string extra_mqsc() override {
    return "DEFINE QLOCAL(XQ) USAGE(XMITQ)\n"
           "DEFINE QREMOTE(REMOTE.Q) RNAME(TARGET.Q) RQMNAME(QM2) XMITQ(XQ)\n";
  }
};
// F5: a channel's get from the transmission queue makes a COD report (only the destination's get may).
TEST_F(xmit_review, GetFromXmitqMakesNoCod) {
  auto& c = connect();
  mq::mqmd m = md();
  m.report = mq::MQRO_COD;
  m.reply_to_q = padded("REPLY", mq::MQ_Q_NAME_LENGTH);
  ASSERT_TRUE(c.put1(mqi::object_descriptor{"REMOTE.Q", ""}, m, bytes_view::of("far"), 0).ok());
  const auto xq = open(c, "XQ", mq::MQOO_INPUT_SHARED);
  ASSERT_TRUE(c.get(xq, no_wait()).ok());
  const auto r = open(c, "REPLY", mq::MQOO_INPUT_SHARED);
  auto cod = c.get(r, no_wait());
  EXPECT_FALSE(cod.ok()) << "spurious COD, feedback " << (cod.ok() ? cod->md.feedback : 0);
}

TEST_F(xmit_review, PutToXmitqDirectlyMakesNoCoa) {
  auto& c = connect();
  mq::mqmd m = md();
  m.report = mq::MQRO_COA | mq::MQRO_COD;
  m.reply_to_q = padded("REPLY", mq::MQ_Q_NAME_LENGTH);
  const auto xq = open(c, "XQ", mq::MQOO_OUTPUT | mq::MQOO_INPUT_SHARED);
  ASSERT_TRUE(put(c, xq, "direct", m, mq::MQPMO_SYNCPOINT).ok());
  ASSERT_TRUE(c.commit().ok());
  ASSERT_TRUE(c.get(xq, no_wait(mq::MQGMO_SYNCPOINT)).ok());
  ASSERT_TRUE(c.commit().ok());
  const auto r = open(c, "REPLY", mq::MQOO_INPUT_SHARED);
  auto rep = c.get(r, no_wait());
  EXPECT_FALSE(rep.ok()) << "spurious report, feedback " << (rep.ok() ? rep->md.feedback : 0);
}

class qmgr_xmit_review : public engine_test {
  std::string extra_mqsc() override { return "DEFINE QLOCAL(QM2) USAGE(XMITQ)\n"; }
};
// F6: authority is checked on the local queue of the same name, not the transmission queue used.
TEST_F(qmgr_xmit_review, PutToRemoteQmgrChecksTheXmitq) {
  auto& root = connect();
  mqsc(root,
       "SET AUTHREC PROFILE(QM1) OBJTYPE(QMGR) PRINCIPAL('alice') AUTHADD(CONNECT)\n"
       "SET AUTHREC PROFILE('APP.IN') OBJTYPE(QUEUE) PRINCIPAL('alice') AUTHADD(PUT)\n");
  auto c = qm_->connect(principal{"alice", {}, false, "app"});
  ASSERT_TRUE(c.ok());
  auto direct = (*c)->open(mqi::object_descriptor{"QM2", ""}, mq::MQOO_OUTPUT);
  EXPECT_FALSE(direct.ok());
  auto h = (*c)->open(mqi::object_descriptor{"APP.IN", "QM2"}, mq::MQOO_OUTPUT);
  EXPECT_FALSE(h.ok()) << "alice may put to QM2 via xmitq QM2 without PUT on it; resolved "
                       << (h.ok() ? h->resolved_q + "@" + h->resolved_qmgr : "");
  // PUT on the transmission queue is what counts, whatever the object's name.
  mqsc(root, "SET AUTHREC PROFILE('QM2') OBJTYPE(QUEUE) PRINCIPAL('alice') AUTHADD(PUT)\n");
  EXPECT_TRUE((*c)->open(mqi::object_descriptor{"NOT.HERE", "QM2"}, mq::MQOO_OUTPUT).ok());
}

// F7: MSGDLVSQ(FIFO) is accepted but ignored: gets still go by priority.
TEST_F(review, FifoQueueIgnoresPriority) {
  auto& c = connect();
  mqsc(c, "DEFINE QLOCAL(FIFO.Q) MSGDLVSQ(FIFO)\n");
  const auto h = open(c, "FIFO.Q", mq::MQOO_OUTPUT | mq::MQOO_INPUT_SHARED);
  mq::mqmd lo = md();
  lo.priority = 0;
  mq::mqmd hi = md();
  hi.priority = 9;
  ASSERT_TRUE(put(c, h, "first", lo).ok());
  ASSERT_TRUE(put(c, h, "second", hi).ok());
  auto g = c.get(h, no_wait());
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(text_of(g->data), "first");
}

// F8: MAXUMSGS is not enforced (2024 MQRC_SYNCPOINT_LIMIT_REACHED).
TEST_F(review, MaxumsgsIsEnforced) {
  auto& c = connect();
  mqsc(c, "ALTER QMGR MAXUMSGS(2)\n");
  const auto h = open(c, "APP.IN", mq::MQOO_OUTPUT);
  ASSERT_TRUE(put(c, h, "1", md(), mq::MQPMO_SYNCPOINT).ok());
  ASSERT_TRUE(put(c, h, "2", md(), mq::MQPMO_SYNCPOINT).ok());
  auto third = put(c, h, "3", md(), mq::MQPMO_SYNCPOINT);
  ASSERT_FALSE(third.ok());
  EXPECT_EQ(rc_of(third.error()), mq::MQRC_SYNCPOINT_LIMIT_REACHED);
  ASSERT_TRUE(c.commit().ok());
  // Gets under syncpoint count too.
  const auto hi = open(c, "APP.IN", mq::MQOO_INPUT_SHARED);
  ASSERT_TRUE(c.get(hi, no_wait(mq::MQGMO_SYNCPOINT)).ok());
  ASSERT_TRUE(c.get(hi, no_wait(mq::MQGMO_SYNCPOINT)).ok());
  ASSERT_TRUE(put(c, h, "4", md(), mq::MQPMO_NO_SYNCPOINT).ok());
  auto g3 = c.get(hi, no_wait(mq::MQGMO_SYNCPOINT));
  ASSERT_FALSE(g3.ok());
  EXPECT_EQ(rc_of(g3.error()), mq::MQRC_SYNCPOINT_LIMIT_REACHED);
}

TEST_F(review, HandlesWrapWithoutOverflow) {
  detail::engine_first_hobj = INT_MAX - 1;
  auto& c = connect();
  detail::engine_first_hobj = 1;
  std::set<mqi::hobj> seen;
  for (int i = 0; i < 3; ++i) {
    const auto h = open(c, "APP.IN", mq::MQOO_INQUIRE);
    EXPECT_GT(h, 0);
    seen.insert(h);
  }
  EXPECT_EQ(seen.size(), 3u);
  EXPECT_EQ(seen.count(1), 1u) << "the handle after INT_MAX is 1";
}

TEST_F(review, PutHonoursFailIfQuiescing) {
  auto& c = connect();
  const auto h = open(c, "APP.IN", mq::MQOO_OUTPUT);
  qm_->quiesce();
  auto p = put(c, h, "x", md(), mq::MQPMO_NO_SYNCPOINT | mq::MQPMO_FAIL_IF_QUIESCING);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(rc_of(p.error()), mq::MQRC_Q_MGR_QUIESCING);
  auto p1 = c.put1(mqi::object_descriptor{"APP.IN", ""}, md(), bytes_view::of("x"),
                   mq::MQPMO_NO_SYNCPOINT | mq::MQPMO_FAIL_IF_QUIESCING);
  ASSERT_FALSE(p1.ok());
  EXPECT_EQ(rc_of(p1.error()), mq::MQRC_Q_MGR_QUIESCING);
  EXPECT_TRUE(put(c, h, "y").ok()) << "without the option the put goes on";
}

// CLEAR / DELETE PURGE against the log: a failed write removes nothing; the wait is outside the mutex.
std::atomic<std::int32_t> refuse_append{0};
std::mutex gate_mu;
std::condition_variable gate_cv;
bool hold_wait = false, waiting = false;

std::int32_t hook(detail::log_hook_point where) {
  if (where == detail::log_hook_point::append) return refuse_append.load();
  std::unique_lock<std::mutex> lk(gate_mu);
  if (hold_wait) {
    waiting = true;
    gate_cv.notify_all();
    gate_cv.wait(lk, [] { return !hold_wait; });
  }
  return 0;
}

class clear_review : public engine_test {
 protected:
  void SetUp() override {
    refuse_append = 0;
    hold_wait = waiting = false;
    detail::engine_log_hook = &hook;
    engine_test::SetUp();
  }
  void TearDown() override {
    release();
    engine_test::TearDown();
    detail::engine_log_hook = nullptr;
  }
  static void release() {
    {
      std::lock_guard<std::mutex> g(gate_mu);
      hold_wait = false;
    }
    gate_cv.notify_all();
  }
};

TEST_F(clear_review, ClearAndDeletePurgeFailWhenTheLogDoes) {
  auto& c = connect();
  const auto h = open(c, "APP.IN", mq::MQOO_OUTPUT);
  ASSERT_TRUE(put(c, h, "kept", md(mq::MQPER_PERSISTENT)).ok());
  ASSERT_TRUE(c.close(h).ok());
  refuse_append = mq::MQRC_Q_SPACE_NOT_AVAILABLE;
  const std::string out = mqsc(c, "CLEAR QLOCAL(APP.IN)\nDELETE QLOCAL(APP.IN) PURGE\n", 10);
  EXPECT_NE(out.find(imsb::msg::IMB1188E), std::string::npos) << out;
  refuse_append = 0;
  restart();
  auto& c2 = connect();
  const auto hi = open(c2, "APP.IN", mq::MQOO_INPUT_SHARED);
  auto g = c2.get(hi, no_wait());
  ASSERT_TRUE(g.ok()) << "the failed CLEAR removed the message";
  EXPECT_EQ(text_of(g->data), "kept");
}

TEST_F(clear_review, ClearWaitsForTheLogOutsideTheMutex) {
  auto& c = connect();
  auto& other = connect("other");
  const auto h = open(c, "APP.IN", mq::MQOO_OUTPUT);
  ASSERT_TRUE(put(c, h, "p", md(mq::MQPER_PERSISTENT)).ok());
  ASSERT_TRUE(c.close(h).ok());
  {
    std::lock_guard<std::mutex> g(gate_mu);
    hold_wait = true;
  }
  std::thread t([&] { mqsc(c, "CLEAR QLOCAL(APP.IN)\n"); });
  {
    std::unique_lock<std::mutex> lk(gate_mu);
    const bool reached = gate_cv.wait_for(lk, std::chrono::seconds(10), [] { return waiting; });
    EXPECT_TRUE(reached) << "CLEAR did not wait for the log through finish()";
  }
  // The engine's mutex is free while CLEAR waits: another connection works, and sees the message gone
  // (locked) rather than half-cleared.
  const auto hr = open(other, "REPLY", mq::MQOO_OUTPUT);
  EXPECT_TRUE(put(other, hr, "meanwhile").ok());
  release();
  t.join();
  const auto hi = open(other, "APP.IN", mq::MQOO_INPUT_SHARED);
  EXPECT_FALSE(other.get(hi, no_wait()).ok());
}
// Over the client connection an MQI error names its call once, not "MQPUT at offset 0: MQPUT at ...".
TEST_F(review, ClientErrorsNameTheCallOnce) {
  const std::string run = tmp_.path() + "/run";
  ::mkdir(run.c_str(), 0700);
  const char* old = std::getenv("IMSBRIDGE_RUNTIME_DIR");
  const std::optional<std::string> saved = old ? std::optional<std::string>(old) : std::nullopt;
  ::setenv("IMSBRIDGE_RUNTIME_DIR", run.c_str(), 1);
  server_options so;
  auto sock = bindings_socket_path(tmp_.path(), "QM1");
  ASSERT_TRUE(sock.ok()) << sock.error().to_string();
  so.bindings_socket = *sock;
  so.credential_file = tmp_.path() + "/credentials";
  so.os_administrators = true;
  auto srv = server::start(*qm_, so);
  ASSERT_TRUE(srv.ok()) << srv.error().to_string();
  connect_options o;
  o.target = "QM1";
  o.prefix = tmp_.path();
  o.appl_name = "engine_review";
  auto c = qmgr::connect(o);
  ASSERT_TRUE(c.ok()) << c.error().to_string();
  auto h = (*c)->open(mqi::object_descriptor{"APP.IN", ""}, mq::MQOO_OUTPUT);
  ASSERT_TRUE(h.ok()) << h.error().to_string();
  mq::mqmd m = md();
  m.expiry = 0;  // MQRC_EXPIRY_ERROR, from the message rules: field "MQPUT: MQMD.Expiry"
  auto p = (*c)->put(h->handle, m, bytes_view::of(std::string("x")), mq::MQPMO_NO_SYNCPOINT);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(rc_of(p.error()), mq::MQRC_EXPIRY_ERROR);
  const std::string text = p.error().to_string();
  EXPECT_EQ(text.find("MQPUT"), text.rfind("MQPUT")) << text;
  EXPECT_EQ(text.find(" at offset "), text.rfind(" at offset ")) << text;
  EXPECT_EQ(p.error().field, "MQPUT: MQMD.Expiry") << text;
  c->reset();
  srv->reset();
  if (saved)
    ::setenv("IMSBRIDGE_RUNTIME_DIR", saved->c_str(), 1);
  else
    ::unsetenv("IMSBRIDGE_RUNTIME_DIR");
}

}  // namespace
}  // namespace imsb::qmgr::test
