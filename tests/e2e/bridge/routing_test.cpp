// Where replies go and what character data looks like on each side: a reply to a queue on another queue
// manager lands on the transmission queue with the right MQXQH, directly or through a queue-manager alias;
// a reply-to alias is honoured; an ASCII little-endian request reaches IMS as EBCDIC and its reply comes
// back in the queue manager's CCSID, as does an EBCDIC big-endian one.

#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "bridge_e2e.hpp"
#include "imsb/mq/mqxqh.hpp"

namespace imsb::test {
namespace {

class routing : public ::testing::TestWithParam<qm_mode> {
 protected:
  void SetUp() override {
    rig_ = std::make_unique<bridge_rig>(GetParam());
    const std::string e = rig_->start();
    ASSERT_TRUE(e.empty()) << e;
  }
  void TearDown() override {
    if (HasFailure()) std::cerr << rig_->state() << "\n" << rig_->logs();
    rig_.reset();
  }

  // An ECHO request whose reply goes to (reply_to_q, reply_to_q_mgr); its MsgId.
  std::array<std::uint8_t, 24> echo_to(const std::string& q, const std::string& qmgr,
                                       const std::string& text) {
    auto o = request({text}, '1');
    auto m = bridge::build_imsreq_message(o, mq::MQENC_NATIVE_LINUX_X86, 819);
    m.md.reply_to_q = pad(q, 48);
    m.md.reply_to_q_mgr = pad(qmgr, 48);
    return rig_->put(bridge_q, m.md, m.data);
  }

  // The next message on the transmission queue: its MQXQH and the reply after it.
  void expect_on_xmitq(const std::array<std::uint8_t, 24>& request_id, const std::string& remote_q,
                       const std::string& remote_qmgr, const std::string& text) {
    auto m = rig_->get_any("QM2.XMIT");
    ASSERT_TRUE(m) << "nothing on QM2.XMIT";
    EXPECT_EQ(m->md.format, mq::MQFMT_XMIT_Q_HEADER);
    auto xqh = mq::decode_mqxqh(bytes_view(m->data), m->md.encoding, m->md.coded_char_set_id);
    ASSERT_TRUE(xqh) << xqh.error().to_string();
    EXPECT_EQ(rtrim(xqh->remote_q_name), remote_q);
    EXPECT_EQ(rtrim(xqh->remote_q_mgr_name), remote_qmgr);
    // The reply's own MQMD, as the far queue manager will see it [C: REPLY-MD].
    EXPECT_EQ(xqh->msg_desc.correl_id, request_id);
    EXPECT_EQ(xqh->msg_desc.msg_type, mq::MQMT_REPLY);
    EXPECT_EQ(xqh->msg_desc.format, mq::MQFMT_IMS);
    // The reply data after the 428-byte MQXQH: MQIIH and the echoed segment.
    mqi::message inner;
    inner.md = xqh->msg_desc;
    const std::size_t at = 428;
    ASSERT_GT(m->data.size(), at);
    inner.data.assign(m->data.begin() + static_cast<std::ptrdiff_t>(at), m->data.end());
    const auto r = bridge::decode_imsreq_reply(inner);
    ASSERT_FALSE(r.problem) << r.problem->to_string();
    EXPECT_EQ(r.segments, std::vector<std::string>{text});
    // mqdump reads the same out of the transmission-queue message.
    const std::string file = rig_->dir.file("xmit.bin");
    {
      std::ofstream f(file, std::ios::binary);
      f.write(reinterpret_cast<const char*>(m->data.data()), static_cast<std::streamsize>(m->data.size()));
    }
    const ran d = rig_->run(IMSB_MQDUMP, {"--format", "MQXMIT", file}, {}, false);
    EXPECT_EQ(d.code, 0) << d.both();
    EXPECT_TRUE(contains(d.out, remote_q)) << d.both();
    EXPECT_TRUE(contains(d.out, remote_qmgr)) << d.both();
  }

  std::unique_ptr<bridge_rig> rig_;
};

TEST_P(routing, ReplyToAnotherQueueManagerLandsOnItsXmitq) {
  const auto id = echo_to("FAR.REPLY", "QM2", "ECHO FAR AWAY");
  expect_on_xmitq(id, "FAR.REPLY", "QM2", "ECHO FAR AWAY");
  EXPECT_EQ(rig_->depth(dead_q), 0);
}

TEST_P(routing, ReplyThroughAQueueManagerAlias) {
  // QM3 is QREMOTE(QM3) RNAME(' ') RQMNAME(QM2) XMITQ(QM2.XMIT): the MQXQH names QM2.
  const auto id = echo_to("FAR.REPLY", "QM3", "ECHO VIA ALIAS");
  expect_on_xmitq(id, "FAR.REPLY", "QM2", "ECHO VIA ALIAS");
}

TEST_P(routing, ReplyToAliasIsHonoured) {
  // MY.REPLY is QREMOTE RNAME(APP.REPLY2) RQMNAME(QM1): the reply lands on APP.REPLY2.
  const auto id = echo_to("MY.REPLY", "", "ECHO ALIASED");
  auto m = rig_->get(reply_q2, id);
  ASSERT_TRUE(m) << "no reply on APP.REPLY2";
  const auto r = bridge::decode_imsreq_reply(*m);
  EXPECT_EQ(r.segments, std::vector<std::string>{"ECHO ALIASED"});
  EXPECT_EQ(rig_->depth(reply_q), 0);
}

// ASCII (819) little-endian in: IMS (EBCDIC 037) reads the transaction code, so the text was converted;
// the reply comes back as CCSID 819, encoding 546 (docs/design/character-data.md).
TEST_P(routing, AsciiLittleEndianRequestReachesImsAsEbcdic) {
  auto o = request({"SHOWOTMA", "abc XYZ 123"}, '1');
  const auto id = rig_->put_request(o);
  auto m = rig_->get(reply_q, id);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->md.coded_char_set_id, 819);
  EXPECT_EQ(m->md.encoding & 0x0F, 2);  // integers reversed: little-endian
  const auto r = bridge::decode_imsreq_reply(*m);
  ASSERT_FALSE(r.problem) << r.problem->to_string();
  const auto f = showotma_fields(r.segments);
  EXPECT_EQ(f.count("TRAN") ? f.at("TRAN") : "", "SHOWOTMA") << joined(r.segments);
  EXPECT_EQ(f.count("LENGTHS") ? f.at("LENGTHS") : "", "12,15");  // LL big-endian to IMS, read right

  auto e = rig_->put_request(request({"ECHO", "lower case and {braces} ~"}, '1'));
  auto em = rig_->get(reply_q, e);
  ASSERT_TRUE(em);
  EXPECT_EQ(em->md.coded_char_set_id, 819);
  EXPECT_EQ(bridge::decode_imsreq_reply(*em).segments,
            (std::vector<std::string>{"ECHO", "lower case and {braces} ~"}));
}

// EBCDIC (037) big-endian in: the reply still comes back in the queue manager's CCSID and encoding.
TEST_P(routing, EbcdicBigEndianRequestRepliesInQueueManagerCcsid) {
  auto o = request({"ECHO", "FROM A MAINFRAME"}, '1');
  const auto m = bridge::build_imsreq_message(o, mq::MQENC_NATIVE_ZOS, 37);
  const auto id = rig_->put(bridge_q, m.md, m.data);
  auto reply = rig_->get(reply_q, id);
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->md.coded_char_set_id, 819);
  EXPECT_EQ(reply->md.encoding & 0x0F, 2);
  EXPECT_EQ(bridge::decode_imsreq_reply(*reply).segments,
            (std::vector<std::string>{"ECHO", "FROM A MAINFRAME"}));
}

INSTANTIATE_TEST_SUITE_P(modes, routing, ::testing::Values(qm_mode::embedded, qm_mode::client),
                         [](const ::testing::TestParamInfo<qm_mode>& i) {
                           return std::string(to_string(i.param));
                         });

}  // namespace
}  // namespace imsb::test
