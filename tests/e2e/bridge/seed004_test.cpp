// The statements of IBM's "How the WebSphere MQ-IMS bridge deals with messages" [C: BRIDGE-MSGS], each
// checked on both sides: the reply on the reply-to queue (or the dead letter) AND what IMS received
// (SHOWOTMA's report, /DIS TMEMBER ... TPIPE). Every test runs with the queue manager embedded in imsbridge
// (local:QM1) and as a strmqm daemon (bindings).

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "bridge_e2e.hpp"
#include "imsb/mq/bridge_validator.hpp"
#include "imsb/mq/codes.hpp"

namespace imsb::test {
namespace {

class seed004 : public ::testing::TestWithParam<qm_mode> {
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
  // Puts `o` and returns its reply (or report) decoded; fails the test when none comes.
  std::optional<bridge::imsreq_reply> round_trip(const bridge::imsreq_options& o,
                                                 const std::string& queue = bridge_q) {
    const auto id = rig_->put_request(o, queue);
    auto m = rig_->get(o.reply_queue, id);
    if (!m) {
      ADD_FAILURE() << "no reply on " << o.reply_queue;
      return std::nullopt;
    }
    return bridge::decode_imsreq_reply(*m);
  }

  std::unique_ptr<bridge_rig> rig_;
};

// MQIIH + one LLZZ segment, CM0: IMS gets the transaction with commit mode 0 on a synchronized Tpipe; the
// reply has an MQIIH with CommitMode '0' and TranState blank [C: REPLY-IIH].
TEST_P(seed004, MqiihSingleSegmentCm0) {
  auto r = round_trip(request({"SHOWOTMA"}, '0'));
  ASSERT_TRUE(r);
  ASSERT_FALSE(r->problem) << r->problem->to_string();
  EXPECT_EQ(r->md.msg_type, mq::MQMT_REPLY);
  EXPECT_EQ(r->md.feedback, mq::MQFB_NONE);
  EXPECT_EQ(r->md.format, mq::MQFMT_IMS);
  ASSERT_TRUE(r->iih);
  EXPECT_EQ(r->iih->commit_mode, '0');
  EXPECT_EQ(r->iih->tran_state, ' ');
  const auto f = showotma_fields(r->segments);
  EXPECT_EQ(f.count("TRAN") ? f.at("TRAN") : "", "SHOWOTMA") << joined(r->segments);
  EXPECT_EQ(f.count("COMMITMODE") ? f.at("COMMITMODE") : "", "0");
  EXPECT_EQ(f.count("SYNCHRONIZED") ? f.at("SYNCHRONIZED") : "", "Y");
  EXPECT_EQ(f.count("SEGMENTS") ? f.at("SEGMENTS") : "", "1");
  EXPECT_EQ(f.count("LENGTHS") ? f.at("LENGTHS") : "", "12");  // LL = 4 + "SHOWOTMA"
}

// MQIIH + several segments: IMS gets each one with its own LL, in order; ECHO gives them back.
TEST_P(seed004, MqiihMultiSegment) {
  auto r = round_trip(request({"SHOWOTMA", "SECOND SEGMENT", "3"}, '1'));
  ASSERT_TRUE(r);
  const auto f = showotma_fields(r->segments);
  EXPECT_EQ(f.count("SEGMENTS") ? f.at("SEGMENTS") : "", "3") << joined(r->segments);
  EXPECT_EQ(f.count("LENGTHS") ? f.at("LENGTHS") : "", "12,18,5");
  EXPECT_EQ(f.count("COMMITMODE") ? f.at("COMMITMODE") : "", "1");

  auto e = round_trip(request({"ECHO     ONE", "TWO", "THREE THREE"}, '1'));
  ASSERT_TRUE(e);
  ASSERT_FALSE(e->problem) << e->problem->to_string();
  EXPECT_EQ(e->segments, (std::vector<std::string>{"ECHO     ONE", "TWO", "THREE THREE"}));
}

// No MQIIH: the transaction code from bytes 5-12, CM0, MQMD.Format as the MFS map name, security scope
// CHECK [C: BRIDGE-MSGS]; the reply has no MQIIH and takes its Format from the output MOD name
// [C: REPLY-MD].
TEST_P(seed004, NoMqiihDefaults) {
  auto o = request({"SHOWOTMA MOD=OUTMAP1"});
  o.iih = false;
  o.mfs = "INMAP1";
  auto r = round_trip(o);
  ASSERT_TRUE(r);
  ASSERT_FALSE(r->problem) << r->problem->to_string();
  EXPECT_FALSE(r->iih);
  EXPECT_EQ(r->md.format, "OUTMAP1 ");
  EXPECT_EQ(r->md.feedback, mq::MQFB_NONE);
  const auto f = showotma_fields(r->segments);
  EXPECT_EQ(f.count("TRAN") ? f.at("TRAN") : "", "SHOWOTMA") << joined(r->segments);
  EXPECT_EQ(f.count("COMMITMODE") ? f.at("COMMITMODE") : "", "0");
  EXPECT_EQ(f.count("SYNCHRONIZED") ? f.at("SYNCHRONIZED") : "", "Y");
  EXPECT_EQ(f.count("MODNAME") ? f.at("MODNAME") : "", "INMAP1");
  EXPECT_EQ(f.count("SECFLAG") ? f.at("SECFLAG") : "", "C");
}

// The length check: each MQFB code the validator gives (bridge_validator.cpp) puts the message on the
// dead-letter queue with MQDLH.Reason = that code, and (MQRO_EXCEPTION_WITH_DATA) an exception report
// with that Feedback on the reply-to queue. IMS never sees it: the bridge queue goes on.
TEST_P(seed004, LengthCheckFeedbackOnDlq) {
  struct bad_case {
    const char* what;
    std::int32_t feedback;
    bytes data;
    bool iih;
  };
  auto llzz = [](std::uint16_t ll, const std::string& text) {
    // Sized once and filled: g++ 12 at -O2 misreads an insert after 4 bytes as out of bounds.
    bytes b(4 + text.size());
    store_u16(b.data(), ll, byte_order::little);
    std::copy(text.begin(), text.end(), b.begin() + 4);
    return b;
  };
  std::vector<bad_case> cases;
  cases.push_back({"LL zero", mq::MQFB_DATA_LENGTH_ZERO, llzz(0, "ECHO"), false});
  cases.push_back({"LL negative", mq::MQFB_DATA_LENGTH_NEGATIVE, llzz(0x8001, "ECHO"), false});
  cases.push_back({"LL too big", mq::MQFB_DATA_LENGTH_TOO_BIG, llzz(32765, std::string(32761, 'X')), false});
  cases.push_back({"LL past the end", mq::MQFB_BUFFER_OVERFLOW, llzz(20, "ECHO"), false});
  {
    bytes b = llzz(8, "ECHO");
    b.push_back('X');  // one byte after the last segment
    cases.push_back({"one byte over", mq::MQFB_LENGTH_OFF_BY_ONE, b, false});
  }
  {
    mq::mqiih iih;
    iih.commit_mode = '7';  // not '0' or '1'
    bytes b;
    mq::encode_mqiih(iih, mq::MQENC_NATIVE_LINUX_X86, 819, b);
    const bytes seg = llzz(8, "ECHO");
    b.insert(b.end(), seg.begin(), seg.end());
    cases.push_back({"MQIIH CommitMode", mq::MQFB_IIH_ERROR, b, true});
  }
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    mq::mqmd md;
    md.version = mq::MQMD_VERSION_2;
    md.msg_type = mq::MQMT_REQUEST;
    md.report = mq::MQRO_EXCEPTION_WITH_DATA;
    md.format = std::string(c.iih ? mq::MQFMT_IMS : mq::MQFMT_NONE);
    md.coded_char_set_id = 819;
    md.reply_to_q = pad(reply_q, 48);
    const auto id = rig_->put(bridge_q, md, c.data);
    auto report = rig_->get(reply_q, id);
    ASSERT_TRUE(report) << "no exception report";
    EXPECT_EQ(report->md.msg_type, mq::MQMT_REPORT);
    EXPECT_EQ(report->md.feedback, c.feedback) << mq::describe_feedback(report->md.feedback);
    // The dead letter: MQDLH.Reason, then the original message.
    auto dead = rig_->get_any(dead_q);
    ASSERT_TRUE(dead) << "nothing on the dead-letter queue";
    EXPECT_EQ(dead->md.format, mq::MQFMT_DEAD_LETTER_HEADER);
    auto dlh = mq::decode_mqdlh(bytes_view(dead->data), dead->md.encoding, dead->md.coded_char_set_id);
    ASSERT_TRUE(dlh) << dlh.error().to_string();
    EXPECT_EQ(dlh->reason, c.feedback) << mq::describe_feedback(dlh->reason);
    EXPECT_EQ(rtrim(dlh->dest_q_name), bridge_q);
    EXPECT_EQ(dead->md.msg_id, id);
  }
  // IMS never saw any of them: no Tpipe of ours exists there yet.
  EXPECT_TRUE(rig_->ims_tpipes().empty()) << joined(rig_->ims_command("/DIS TMEMBER MQXCF1 TPIPE ALL"));
  // The queue goes on.
  auto r = round_trip(request({"ECHO AFTER"}, '1'));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->segments, std::vector<std::string>{"ECHO AFTER"});
}

// An LTERM as the transaction code: IMS NAKs and says why in DFS1288E, which is the reply (the request
// is consumed, not dead-lettered: the second outcome of docs/design/errors.md).
TEST_P(seed004, LtermAsTrancodeGetsDfs1288e) {
  auto r = round_trip(request({"IVTNOLT  HELLO"}, '1'));
  ASSERT_TRUE(r);
  EXPECT_TRUE(contains(joined(r->segments) + r->raw_text, "DFS1288E")) << joined(r->segments) << r->raw_text;
  EXPECT_EQ(rig_->depth(dead_q), 0);
  EXPECT_EQ(rig_->depth_when(bridge_q, 0), 0);
}

// An IMS command returns its output as the reply [C: IMS-CMDS].
TEST_P(seed004, ImsCommandReturnsItsOutput) {
  auto r = round_trip(request({"/DIS TRAN IVTNO"}, '1'));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->md.feedback, mq::MQFB_NONE);
  EXPECT_TRUE(contains(joined(r->segments), "IVTNO")) << joined(r->segments) << r->raw_text;
}

// CM0 travels on a synchronized Tpipe that /DIS TMEMBER ... TPIPE ALL shows as SYN; CM1 on the other,
// not synchronized.
TEST_P(seed004, Cm0OnSynchronizedTpipeCm1OnTheOther) {
  auto r0 = round_trip(request({"SHOWOTMA"}, '0'));
  auto r1 = round_trip(request({"SHOWOTMA"}, '1'));
  ASSERT_TRUE(r0 && r1);
  const auto f0 = showotma_fields(r0->segments), f1 = showotma_fields(r1->segments);
  ASSERT_TRUE(f0.count("TPIPE") && f1.count("TPIPE")) << joined(r0->segments) << joined(r1->segments);
  const std::string t0 = f0.at("TPIPE"), t1 = f1.at("TPIPE");
  EXPECT_NE(t0, t1);
  EXPECT_EQ(f0.at("SYNCHRONIZED"), "Y");
  EXPECT_EQ(f1.count("SYNCHRONIZED") ? f1.at("SYNCHRONIZED") : "", "N");
  // The names (docs/design/tpipes.md): prefix CSQ + the queue's number in base 36 + S or N, 8 characters
  // at most.
  EXPECT_EQ(t0.rfind("CSQ", 0), 0u) << t0;
  EXPECT_LE(t0.size(), 8u) << t0;
  EXPECT_EQ(t0.back(), 'S') << t0;
  EXPECT_EQ(t1.back(), 'N') << t1;
  const auto tpipes = rig_->ims_tpipes();
  ASSERT_TRUE(tpipes.count(t0)) << joined(rig_->ims_command("/DIS TMEMBER MQXCF1 TPIPE ALL"));
  ASSERT_TRUE(tpipes.count(t1)) << joined(rig_->ims_command("/DIS TMEMBER MQXCF1 TPIPE ALL"));
  EXPECT_TRUE(contains(tpipes.at(t0), "SYN"));
  EXPECT_FALSE(contains(tpipes.at(t1), "SYN"));
}

INSTANTIATE_TEST_SUITE_P(modes, seed004, ::testing::Values(qm_mode::embedded, qm_mode::client),
                         [](const ::testing::TestParamInfo<qm_mode>& i) {
                           return std::string(to_string(i.param));
                         });

}  // namespace
}  // namespace imsb::test
