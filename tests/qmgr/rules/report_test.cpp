// make_report: each kind, with and without data, and the MsgId/CorrelId/discard/expiry options of the
// original [C: JAVA-MQRO, XMS-PASSCORREL, XMS-PASSMSGID].

#include <gtest/gtest.h>

#include "imsb/mq/chain.hpp"
#include "imsb/mq/mqdlh.hpp"
#include "imsb/mq/mqiih.hpp"
#include "rules_fixture.hpp"

namespace imsb::qmgr::rules::test {
namespace {

using mq::mqmd;

mqmd original(std::int32_t report) {
  mqmd md;
  md.version = mq::MQMD_VERSION_2;
  md.report = report;
  md.msg_type = mq::MQMT_DATAGRAM;
  md.msg_id.fill(0xA1);
  md.correl_id.fill(0xC2);
  md.reply_to_q = pad("REPLY.Q", 48);
  md.reply_to_q_mgr = pad("QM2", 48);
  md.user_identifier = pad("bob", 12);
  md.priority = 7;
  md.persistence = mq::MQPER_PERSISTENT;
  md.format = std::string(mq::MQFMT_STRING);
  md.encoding = mq::MQENC_NATIVE_ZOS;
  md.coded_char_set_id = 37;
  md.expiry = 600;  // one minute
  return md;
}

bytes data_of(std::size_t n) {
  bytes b(n);
  for (std::size_t i = 0; i < n; ++i) b[i] = static_cast<std::uint8_t>(i);
  return b;
}

struct kind_case {
  report_kind kind;
  std::int32_t plain, with_data, full_data, feedback;
};
constexpr kind_case kinds[] = {
    {report_kind::coa, mq::MQRO_COA, mq::MQRO_COA_WITH_DATA, mq::MQRO_COA_WITH_FULL_DATA, mq::MQFB_COA},
    {report_kind::cod, mq::MQRO_COD, mq::MQRO_COD_WITH_DATA, mq::MQRO_COD_WITH_FULL_DATA, mq::MQFB_COD},
    {report_kind::expiration, mq::MQRO_EXPIRATION, mq::MQRO_EXPIRATION_WITH_DATA,
     mq::MQRO_EXPIRATION_WITH_FULL_DATA, mq::MQFB_EXPIRATION},
    {report_kind::exception, mq::MQRO_EXCEPTION, mq::MQRO_EXCEPTION_WITH_DATA,
     mq::MQRO_EXCEPTION_WITH_FULL_DATA, mq::MQFB_PAN + 1000},  // the exception's feedback is the caller's
};

TEST(MakeReport, EachKindOnlyWhenAskedFor) {
  const bytes data = data_of(300);
  for (const kind_case& k : kinds) {
    for (const kind_case& other : kinds) {
      auto r = make_report(k.kind, original(other.plain), data, k.feedback, test_now_ms(), make_ctx());
      EXPECT_EQ(r.has_value(), k.kind == other.kind)
          << static_cast<int>(k.kind) << static_cast<int>(other.kind);
    }
    EXPECT_FALSE(make_report(k.kind, original(mq::MQRO_NONE), data, k.feedback, test_now_ms(), make_ctx()));
  }
}

TEST(MakeReport, NoReplyToQNoReport) {
  mqmd md = original(mq::MQRO_COA);
  md.reply_to_q = pad("", 48);
  EXPECT_FALSE(make_report(report_kind::coa, md, data_of(10), 0, test_now_ms(), make_ctx()));
}

TEST(MakeReport, DataNoneFirstHundredOrAll) {
  const bytes data = data_of(300);
  for (const kind_case& k : kinds) {
    SCOPED_TRACE(static_cast<int>(k.kind));
    auto plain = make_report(k.kind, original(k.plain), data, k.feedback, test_now_ms(), make_ctx());
    ASSERT_TRUE(plain);
    EXPECT_TRUE(plain->data.empty());
    auto some = make_report(k.kind, original(k.with_data), data, k.feedback, test_now_ms(), make_ctx());
    ASSERT_TRUE(some);
    EXPECT_EQ(some->data, bytes(data.begin(), data.begin() + 100));
    auto all = make_report(k.kind, original(k.full_data), data, k.feedback, test_now_ms(), make_ctx());
    ASSERT_TRUE(all);
    EXPECT_EQ(all->data, data);
    auto short_data =
        make_report(k.kind, original(k.with_data), data_of(30), k.feedback, test_now_ms(), make_ctx());
    ASSERT_TRUE(short_data);
    EXPECT_EQ(short_data->data, data_of(30));
  }
}

// WITH_DATA keeps the MQ headers at the front whole, then 100 bytes of application data
// [I: JAVA-MQRO]: a report of Format MQDEAD with only 100 of the MQDLH's 172 bytes would not decode.
TEST(MakeReport, WithDataKeepsTheHeadersWhole) {
  const bytes app = data_of(300);
  // An MQIIH message (the headers in the original's encoding and CCSID).
  mqmd ims = original(mq::MQRO_COA_WITH_DATA);
  ims.format = std::string(mq::MQFMT_IMS);
  mq::mqiih iih;
  iih.format = std::string(mq::MQFMT_STRING);
  bytes ims_data;
  mq::encode_mqiih(iih, ims.encoding, ims.coded_char_set_id, ims_data);
  ims_data.insert(ims_data.end(), app.begin(), app.end());
  auto r = make_report(report_kind::coa, ims, ims_data, 0, test_now_ms(), make_ctx());
  ASSERT_TRUE(r);
  ASSERT_EQ(r->data.size(), mq::MQIIH_LENGTH_1 + 100);
  EXPECT_EQ(r->data, bytes(ims_data.begin(), ims_data.begin() + mq::MQIIH_LENGTH_1 + 100));
  EXPECT_TRUE(mq::decode_mqiih(r->data, r->md.encoding, r->md.coded_char_set_id).ok());

  // A dead-letter message of that MQIIH message: MQDLH, MQIIH, then the data.
  auto dl = make_dead_letter(ims, ims_data, mq::MQRC_Q_FULL, "APP.Q", "QM1", "DLQ", make_ctx());
  auto d = make_report(report_kind::coa, dl.md, dl.data, 0, test_now_ms(), make_ctx());
  ASSERT_TRUE(d);
  EXPECT_EQ(d->md.format, std::string(mq::MQFMT_DEAD_LETTER_HEADER));
  ASSERT_EQ(d->data.size(), mq::MQDLH_LENGTH_1 + mq::MQIIH_LENGTH_1 + 100);
  EXPECT_EQ(d->data, bytes(dl.data.begin(), dl.data.begin() + static_cast<std::ptrdiff_t>(d->data.size())));
  auto chain = mq::walk_chain(d->data, d->md.format, d->md.encoding, d->md.coded_char_set_id);
  ASSERT_TRUE(chain.ok()) << chain.error().to_string();
  EXPECT_EQ(chain->headers.size(), 2u);
  EXPECT_EQ(chain->data_offset, mq::MQDLH_LENGTH_1 + mq::MQIIH_LENGTH_1);

  // An MQDLH with less than 100 bytes of data after it: all of it.
  auto small_dl = make_dead_letter(original(mq::MQRO_COA_WITH_DATA), data_of(30), mq::MQRC_Q_FULL, "APP.Q",
                                   "QM1", "DLQ", make_ctx());
  auto s = make_report(report_kind::coa, small_dl.md, small_dl.data, 0, test_now_ms(), make_ctx());
  ASSERT_TRUE(s);
  EXPECT_EQ(s->data, small_dl.data);
  EXPECT_TRUE(mq::decode_mqdlh(s->data, s->md.encoding, s->md.coded_char_set_id).ok());

  // A header that does not decode (Format MQIMS, data too short for an MQIIH) counts as data.
  auto bad = make_report(report_kind::coa, ims, app, 0, test_now_ms(), make_ctx());
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->data, bytes(app.begin(), app.begin() + 100));
}

TEST(MakeReport, DescriptorOfTheReport) {
  for (const kind_case& k : kinds) {
    SCOPED_TRACE(static_cast<int>(k.kind));
    const mqmd orig = original(k.plain);
    auto r = make_report(k.kind, orig, data_of(5), k.feedback, test_now_ms(), make_ctx());
    ASSERT_TRUE(r);
    EXPECT_EQ(r->queue, "REPLY.Q");
    EXPECT_EQ(r->qmgr, "QM2");
    EXPECT_EQ(r->md.msg_type, mq::MQMT_REPORT);
    EXPECT_EQ(r->md.feedback, k.feedback);
    EXPECT_EQ(r->md.priority, 7);
    EXPECT_EQ(r->md.persistence, mq::MQPER_PERSISTENT);
    EXPECT_EQ(r->md.format, std::string(mq::MQFMT_STRING));
    EXPECT_EQ(r->md.encoding, mq::MQENC_NATIVE_ZOS);
    EXPECT_EQ(r->md.coded_char_set_id, 37);
    EXPECT_EQ(r->md.expiry, mq::MQEI_UNLIMITED);
    EXPECT_EQ(r->md.report, mq::MQRO_NONE);
    EXPECT_EQ(r->md.put_appl_type, mq::MQAT_QMGR);
    EXPECT_EQ(r->md.put_appl_name, pad("QM1", 28));
    EXPECT_EQ(r->md.put_date, "20260304");
    EXPECT_EQ(r->md.put_time, "05060789");
    EXPECT_EQ(r->md.user_identifier, pad("bob", 12));
    EXPECT_EQ(r->md.reply_to_q, pad("", 48));
    // Defaults: a new MsgId, the original's MsgId as CorrelId.
    EXPECT_NE(r->md.msg_id, orig.msg_id);
    EXPECT_EQ(std::string(r->md.msg_id.begin(), r->md.msg_id.begin() + 16), "AMQ QM1         ");
    EXPECT_EQ(r->md.correl_id, orig.msg_id);
  }
}

TEST(MakeReport, PassMsgIdAndPassCorrelId) {
  const mqmd orig = original(mq::MQRO_COD | mq::MQRO_PASS_MSG_ID);
  auto r = make_report(report_kind::cod, orig, {}, 0, test_now_ms(), make_ctx());
  ASSERT_TRUE(r);
  EXPECT_EQ(r->md.msg_id, orig.msg_id);
  EXPECT_EQ(r->md.correl_id, orig.msg_id);

  const mqmd orig2 = original(mq::MQRO_COD | mq::MQRO_PASS_CORREL_ID);
  r = make_report(report_kind::cod, orig2, {}, 0, test_now_ms(), make_ctx());
  ASSERT_TRUE(r);
  EXPECT_NE(r->md.msg_id, orig2.msg_id);
  EXPECT_EQ(r->md.correl_id, orig2.correl_id);

  const mqmd orig3 = original(mq::MQRO_COD | mq::MQRO_PASS_CORREL_ID | mq::MQRO_PASS_MSG_ID);
  r = make_report(report_kind::cod, orig3, {}, 0, test_now_ms(), make_ctx());
  ASSERT_TRUE(r);
  EXPECT_EQ(r->md.msg_id, orig3.msg_id);
  EXPECT_EQ(r->md.correl_id, orig3.correl_id);
}

TEST(MakeReport, DiscardAloneIsNotPassed) {
  auto r = make_report(report_kind::exception, original(mq::MQRO_EXCEPTION | mq::MQRO_DISCARD_MSG), {},
                       mq::MQRC_Q_FULL, test_now_ms(), make_ctx());
  ASSERT_TRUE(r);
  EXPECT_EQ(r->md.report, mq::MQRO_NONE);
  EXPECT_EQ(r->md.expiry, mq::MQEI_UNLIMITED);
  EXPECT_EQ(r->md.feedback, mq::MQRC_Q_FULL);
}

TEST(MakeReport, PassDiscardAndExpiry) {
  // Put 20 s before now with 60 s of expiry: 40 s left.
  const std::int64_t put = test_now_ms() - 20000;
  auto r = make_report(report_kind::coa,
                       original(mq::MQRO_COA | mq::MQRO_PASS_DISCARD_AND_EXPIRY | mq::MQRO_DISCARD_MSG), {},
                       0, put, make_ctx());
  ASSERT_TRUE(r);
  EXPECT_EQ(r->md.report, mq::MQRO_DISCARD_MSG);
  EXPECT_EQ(r->md.expiry, 400);

  r = make_report(report_kind::coa, original(mq::MQRO_COA | mq::MQRO_PASS_DISCARD_AND_EXPIRY), {}, 0, put,
                  make_ctx());
  ASSERT_TRUE(r);
  EXPECT_EQ(r->md.report, mq::MQRO_NONE);
  EXPECT_EQ(r->md.expiry, 400);

  mqmd unlimited = original(mq::MQRO_COA | mq::MQRO_PASS_DISCARD_AND_EXPIRY);
  unlimited.expiry = mq::MQEI_UNLIMITED;
  r = make_report(report_kind::coa, unlimited, {}, 0, put, make_ctx());
  ASSERT_TRUE(r);
  EXPECT_EQ(r->md.expiry, mq::MQEI_UNLIMITED);

  // An expiration report of a message already expired still gets a positive Expiry.
  r = make_report(report_kind::expiration, original(mq::MQRO_EXPIRATION | mq::MQRO_PASS_DISCARD_AND_EXPIRY),
                  {}, 0, test_now_ms() - 120000, make_ctx());
  ASSERT_TRUE(r);
  EXPECT_EQ(r->md.expiry, 1);
}

}  // namespace
}  // namespace imsb::qmgr::rules::test
