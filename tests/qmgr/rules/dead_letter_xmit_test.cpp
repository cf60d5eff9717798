// make_dead_letter and make_xmit, decoded back with the MQDLH and MQXQH codecs [C: DLH-DOC, XQH-DOC].

#include <gtest/gtest.h>

#include "imsb/mq/mqdlh.hpp"
#include "imsb/mq/mqxqh.hpp"
#include "rules_fixture.hpp"

namespace imsb::qmgr::rules::test {
namespace {

mq::mqmd original() {
  mq::mqmd md;
  md.version = mq::MQMD_VERSION_2;
  md.msg_type = mq::MQMT_REQUEST;
  md.report = mq::MQRO_EXCEPTION;
  md.msg_id.fill(0x5A);
  md.correl_id.fill(0x3C);
  md.reply_to_q = pad("REPLY.Q", 48);
  md.user_identifier = pad("bob", 12);
  md.put_appl_type = mq::MQAT_UNIX;
  md.put_appl_name = pad("app", 28);
  md.format = std::string(mq::MQFMT_IMS);
  md.encoding = mq::MQENC_NATIVE_ZOS;
  md.coded_char_set_id = 37;
  md.priority = 3;
  md.persistence = mq::MQPER_PERSISTENT;
  md.expiry = 1234;
  md.group_id.fill(0x77);
  md.msg_seq_number = 3;
  return md;
}

const bytes payload{0xC1, 0xC2, 0xC3, 0x00, 0xFF};

TEST(MakeDeadLetter, HeaderThenData) {
  const mq::mqmd orig = original();
  const outgoing out = make_dead_letter(orig, payload, mq::MQFB_IIH_ERROR, "IMS.BRIDGE.Q", "QM1",
                                        "SYSTEM.DEAD.LETTER.QUEUE", make_ctx());
  EXPECT_EQ(out.queue, "SYSTEM.DEAD.LETTER.QUEUE");
  EXPECT_EQ(out.qmgr, "");
  ASSERT_EQ(out.data.size(), mq::MQDLH_LENGTH_1 + payload.size());
  EXPECT_EQ(bytes(out.data.begin() + 172, out.data.end()), payload);

  // The MQMD: the original's, but describing the MQDLH.
  EXPECT_EQ(out.md.format, std::string(mq::MQFMT_DEAD_LETTER_HEADER));
  auto dlh = mq::decode_mqdlh(out.data, out.md.encoding, out.md.coded_char_set_id);
  ASSERT_TRUE(dlh.ok()) << dlh.error().to_string();
  EXPECT_EQ(dlh->reason, mq::MQFB_IIH_ERROR);
  EXPECT_EQ(dlh->dest_q_name, pad("IMS.BRIDGE.Q", 48));
  EXPECT_EQ(dlh->dest_q_mgr_name, pad("QM1", 48));
  EXPECT_EQ(dlh->encoding, mq::MQENC_NATIVE_ZOS);
  EXPECT_EQ(dlh->coded_char_set_id, 37);
  EXPECT_EQ(dlh->format, std::string(mq::MQFMT_IMS));
  EXPECT_EQ(dlh->put_appl_type, mq::MQAT_QMGR);
  EXPECT_EQ(dlh->put_appl_name, pad("QM1", 28));
  EXPECT_EQ(dlh->put_date, "20260304");
  EXPECT_EQ(dlh->put_time, "05060789");

  // Everything else of the MQMD is the original's (context passed).
  mq::mqmd expect = orig;
  expect.format = out.md.format;
  expect.encoding = out.md.encoding;
  expect.coded_char_set_id = out.md.coded_char_set_id;
  EXPECT_EQ(out.md, expect);
  EXPECT_EQ(out.md.user_identifier, pad("bob", 12));
}

TEST(MakeDeadLetter, LongQmgrNameIsCutTo28) {
  put_context ctx = make_ctx();
  ctx.qmgr_name = std::string(40, 'Q');
  const outgoing out = make_dead_letter(original(), {}, mq::MQRC_Q_FULL, "A", "", "DLQ", ctx);
  auto dlh = mq::decode_mqdlh(out.data, out.md.encoding, out.md.coded_char_set_id);
  ASSERT_TRUE(dlh.ok());
  EXPECT_EQ(dlh->put_appl_name, std::string(28, 'Q'));
  EXPECT_EQ(dlh->reason, mq::MQRC_Q_FULL);
  EXPECT_EQ(dlh->dest_q_mgr_name, pad("", 48));
  EXPECT_EQ(out.data.size(), 172u);
}

TEST(MakeXmit, HeaderThenData) {
  const mq::mqmd orig = original();
  const outgoing out = make_xmit(orig, payload, "QM2.XMITQ", "APP.IN", "QM2");
  EXPECT_EQ(out.queue, "QM2.XMITQ");
  EXPECT_EQ(out.qmgr, "");
  ASSERT_EQ(out.data.size(), mq::MQXQH_LENGTH_1 + payload.size());
  EXPECT_EQ(bytes(out.data.begin() + 428, out.data.end()), payload);
  EXPECT_EQ(out.md.format, std::string(mq::MQFMT_XMIT_Q_HEADER));

  auto xqh = mq::decode_mqxqh(out.data, out.md.encoding, out.md.coded_char_set_id);
  ASSERT_TRUE(xqh.ok()) << xqh.error().to_string();
  EXPECT_EQ(xqh->remote_q_name, pad("APP.IN", 48));
  EXPECT_EQ(xqh->remote_q_mgr_name, pad("QM2", 48));
  // The embedded MQMD is the original as version 1 (its version-2 fields are not carried).
  const mq::mqmd& e = xqh->msg_desc;
  EXPECT_EQ(e.version, mq::MQMD_VERSION_1);
  EXPECT_EQ(e.msg_id, orig.msg_id);
  EXPECT_EQ(e.correl_id, orig.correl_id);
  EXPECT_EQ(e.format, std::string(mq::MQFMT_IMS));
  EXPECT_EQ(e.encoding, mq::MQENC_NATIVE_ZOS);
  EXPECT_EQ(e.coded_char_set_id, 37);
  EXPECT_EQ(e.msg_type, mq::MQMT_REQUEST);
  EXPECT_EQ(e.report, mq::MQRO_EXCEPTION);
  EXPECT_EQ(e.expiry, 1234);
  EXPECT_EQ(e.priority, 3);
  EXPECT_EQ(e.persistence, mq::MQPER_PERSISTENT);
  EXPECT_EQ(e.reply_to_q, pad("REPLY.Q", 48));
  EXPECT_EQ(e.user_identifier, pad("bob", 12));
  EXPECT_EQ(e.put_appl_name, pad("app", 28));
  EXPECT_EQ(e.group_id, mq::MQGI_NONE);
  EXPECT_EQ(e.msg_seq_number, 1);

  // The separate MQMD keeps the original's fields but describes the MQXQH.
  mq::mqmd expect = orig;
  expect.format = out.md.format;
  expect.encoding = out.md.encoding;
  expect.coded_char_set_id = out.md.coded_char_set_id;
  EXPECT_EQ(out.md, expect);
}

// As the queue manager puts it, the separate MQMD's origin is the queue manager [I: XQH-DOC];
// the embedded MQMD keeps the application's.
TEST(MakeXmit, SeparateMdOriginIsTheQueueManager) {
  const mq::mqmd orig = original();
  const outgoing out = make_xmit(orig, payload, "QM2.XMITQ", "APP.IN", "QM2", make_ctx());
  EXPECT_EQ(out.md.put_appl_type, mq::MQAT_QMGR);
  EXPECT_EQ(out.md.put_appl_name, pad("QM1", 28));
  auto xqh = mq::decode_mqxqh(out.data, out.md.encoding, out.md.coded_char_set_id);
  ASSERT_TRUE(xqh.ok()) << xqh.error().to_string();
  EXPECT_EQ(xqh->msg_desc.put_appl_type, mq::MQAT_UNIX);
  EXPECT_EQ(xqh->msg_desc.put_appl_name, pad("app", 28));
  // Everything else is what the overload without a context gives.
  outgoing plain = make_xmit(orig, payload, "QM2.XMITQ", "APP.IN", "QM2");
  plain.md.put_appl_type = mq::MQAT_QMGR;
  plain.md.put_appl_name = pad("QM1", 28);
  EXPECT_EQ(out.md, plain.md);
  EXPECT_EQ(out.data, plain.data);
  EXPECT_EQ(out.queue, plain.queue);
}

}  // namespace
}  // namespace imsb::qmgr::rules::test
