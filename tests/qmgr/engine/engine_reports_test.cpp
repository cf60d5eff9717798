// Reports (COA, COD, expiration), the dead-letter queue and transmission queues (queue_manager.hpp;
// [C: JAVA-MQRO, DLH-DOC, XQH-DOC]).

#include "engine_fixture.hpp"
#include "imsb/core/messages.hpp"
#include "imsb/mq/mqdlh.hpp"
#include "imsb/mq/mqxqh.hpp"

namespace imsb::qmgr::test {
namespace {

class reports : public engine_test {
  std::string extra_mqsc() override {
    return "DEFINE QLOCAL(XQ) USAGE(XMITQ)\n"
           "DEFINE QREMOTE(REMOTE.Q) RNAME(TARGET.Q) RQMNAME(QM2) XMITQ(XQ)\n";
  }

 protected:
  static mq::mqmd asking(std::int32_t report, const std::string& reply_to = "REPLY") {
    mq::mqmd m = md();
    m.report = report;
    m.reply_to_q = padded(reply_to, mq::MQ_Q_NAME_LENGTH);
    return m;
  }
};

TEST_F(reports, CoaOnPutAndCodWhenTheGetCommits) {
  auto& c = connect();
  const auto h = open(c, "APP.IN", mq::MQOO_OUTPUT | mq::MQOO_INPUT_SHARED);
  const auto r = open(c, "REPLY", mq::MQOO_INPUT_SHARED);
  auto p = put(c, h, "payload", asking(mq::MQRO_COA | mq::MQRO_COD));
  ASSERT_TRUE(p.ok()) << p.error().to_string();
  auto coa = c.get(r, no_wait());
  ASSERT_TRUE(coa.ok()) << coa.error().to_string();
  EXPECT_EQ(coa->md.msg_type, mq::MQMT_REPORT);
  EXPECT_EQ(coa->md.feedback, mq::MQFB_COA);
  EXPECT_EQ(coa->md.correl_id, p->md.msg_id);

  ASSERT_TRUE(c.get(h, no_wait(mq::MQGMO_SYNCPOINT)).ok());
  EXPECT_EQ(rc_of(c.get(r, no_wait()).error()), mq::MQRC_NO_MSG_AVAILABLE);  // not before the commit
  ASSERT_TRUE(c.commit().ok());
  auto cod = c.get(r, no_wait());
  ASSERT_TRUE(cod.ok()) << cod.error().to_string();
  EXPECT_EQ(cod->md.feedback, mq::MQFB_COD);
  EXPECT_EQ(cod->md.correl_id, p->md.msg_id);
}

TEST_F(reports, CoaOfASyncpointPutIsInItsUnitOfWork) {
  auto& c = connect();
  const auto h = open(c, "APP.IN", mq::MQOO_OUTPUT);
  const auto r = open(c, "REPLY", mq::MQOO_INPUT_SHARED);
  ASSERT_TRUE(put(c, h, "x", asking(mq::MQRO_COA), mq::MQPMO_SYNCPOINT).ok());
  EXPECT_EQ(rc_of(c.get(r, no_wait()).error()), mq::MQRC_NO_MSG_AVAILABLE);
  ASSERT_TRUE(c.backout().ok());
  EXPECT_EQ(rc_of(c.get(r, no_wait()).error()), mq::MQRC_NO_MSG_AVAILABLE);
}

TEST_F(reports, ExpiredMessagesAreRemovedWithAnExpirationReport) {
  auto& c = connect();
  const auto h = open(c, "APP.IN", mq::MQOO_OUTPUT | mq::MQOO_INPUT_SHARED);
  const auto r = open(c, "REPLY", mq::MQOO_INPUT_SHARED);
  auto m = asking(mq::MQRO_EXPIRATION);
  m.expiry = 10;  // one second
  ASSERT_TRUE(put(c, h, "short lived", m).ok());
  const auto b = open(c, "APP.IN", mq::MQOO_BROWSE);
  EXPECT_TRUE(c.get(b, no_wait(mq::MQGMO_BROWSE_FIRST)).ok());  // there until it expires
  offset_ = std::chrono::milliseconds(2000);
  auto gone = c.get(h, no_wait());
  ASSERT_FALSE(gone.ok());
  EXPECT_EQ(rc_of(gone.error()), mq::MQRC_NO_MSG_AVAILABLE);
  auto rep = c.get(r, no_wait());
  ASSERT_TRUE(rep.ok()) << rep.error().to_string();
  EXPECT_EQ(rep->md.feedback, mq::MQFB_EXPIRATION);
  EXPECT_EQ(qm_->statistics().expired, 1u);
}

TEST_F(reports, RemainingExpiryIsReturned) {
  auto& c = connect();
  const auto h = open(c, "APP.IN", mq::MQOO_OUTPUT | mq::MQOO_INPUT_SHARED);
  auto m = md();
  m.expiry = 100;  // ten seconds
  ASSERT_TRUE(put(c, h, "x", m).ok());
  offset_ = std::chrono::milliseconds(4000);
  auto g = c.get(h, no_wait());
  ASSERT_TRUE(g.ok());
  EXPECT_GT(g->md.expiry, 0);
  EXPECT_LE(g->md.expiry, 60);
}

TEST_F(reports, AReportToAnUnknownReplyQueueGoesToTheDeadLetterQueue) {
  auto& c = connect();
  const auto h = open(c, "APP.IN", mq::MQOO_OUTPUT);
  ASSERT_TRUE(put(c, h, "x", asking(mq::MQRO_COA, "NO.SUCH.REPLY")).ok());
  const auto dlq = open(c, "DLQ", mq::MQOO_INPUT_SHARED);
  auto dead = c.get(dlq, no_wait());
  ASSERT_TRUE(dead.ok()) << dead.error().to_string();
  EXPECT_EQ(dead->md.format, std::string(mq::MQFMT_DEAD_LETTER_HEADER));
  auto dlh = mq::decode_mqdlh(dead->data, dead->md.encoding, 819);
  ASSERT_TRUE(dlh.ok()) << dlh.error().to_string();
  EXPECT_EQ(dlh->reason, mq::MQRC_UNKNOWN_OBJECT_NAME);
  EXPECT_EQ(dlh->dest_q_name.substr(0, 13), "NO.SUCH.REPLY");
  EXPECT_EQ(qm_->statistics().dead_lettered, 1u);
}

TEST_F(reports, AReportThatFitsNowhereIsDiscardedWithAnErrorLogLine) {
  auto& c = connect();
  mqsc(c, "ALTER QLOCAL(DLQ) PUT(DISABLED)\n");
  const auto h = open(c, "APP.IN", mq::MQOO_OUTPUT);
  ASSERT_TRUE(put(c, h, "x", asking(mq::MQRO_COA, "NO.SUCH.REPLY")).ok());
  const std::string log = error_log();
  EXPECT_NE(log.find(imsb::msg::IMB1181E), std::string::npos) << log;
  EXPECT_NE(log.find("NO.SUCH.REPLY"), std::string::npos) << log;
}

TEST_F(reports, ARemoteQueuePutsOnTheTransmissionQueueWithAnMqxqh) {
  auto& c = connect();
  auto p = c.put1(mqi::object_descriptor{"REMOTE.Q", ""}, md(), bytes_view::of("far away"), 0);
  ASSERT_TRUE(p.ok()) << p.error().to_string();
  EXPECT_EQ(p->resolved_q, "TARGET.Q");
  EXPECT_EQ(p->resolved_qmgr, "QM2");
  const auto xq = open(c, "XQ", mq::MQOO_INPUT_SHARED);
  auto x = c.get(xq, no_wait());
  ASSERT_TRUE(x.ok()) << x.error().to_string();
  EXPECT_EQ(x->md.format, std::string(mq::MQFMT_XMIT_Q_HEADER));
  auto xqh = mq::decode_mqxqh(x->data, x->md.encoding, 819);
  ASSERT_TRUE(xqh.ok()) << xqh.error().to_string();
  EXPECT_EQ(xqh->remote_q_name.substr(0, 9), "TARGET.Q ");
  EXPECT_EQ(xqh->remote_q_mgr_name.substr(0, 4), "QM2 ");
  const std::string all = text_of(x->data);
  EXPECT_EQ(all.substr(all.size() - 8), "far away");
}

}  // namespace
}  // namespace imsb::qmgr::test
