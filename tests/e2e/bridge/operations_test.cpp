// Operating the bridge end to end (the tests beyond seed004_test.cpp's): SUSPEND/RESUME, duplicate output
// from imsemu (no second reply), CM1 with several messages in flight, and the MQIIH flags that shape the
// reply [C: REPLY-IIH, IIH-FLAGS].

#include <gtest/gtest.h>

#include <regex>
#include <string>
#include <vector>

#include "bridge_e2e.hpp"

namespace imsb::test {
namespace {

// The number in "WORD(n)" of the first line holding `word`, or -1.
long field_number(const std::vector<std::string>& lines, const std::string& word) {
  const std::regex re(word + "\\((\\d+)\\)");
  for (const auto& l : lines) {
    std::smatch m;
    if (std::regex_search(l, m, re)) return std::stol(m[1].str());
  }
  return -1;
}

class operations : public ::testing::Test {
 protected:
  void SetUp() override {
    rig_ = std::make_unique<bridge_rig>(qm_mode::embedded);
    const std::string e = rig_->start();
    ASSERT_TRUE(e.empty()) << e;
  }
  void TearDown() override {
    if (HasFailure()) std::cerr << rig_->state() << "\n" << rig_->logs();
    rig_.reset();
  }

  // A request with this MQIIH (native encoding, CCSID 819) and segments.
  std::array<std::uint8_t, 24> put_iih(const mq::mqiih& iih, const std::vector<std::string>& segments,
                                       std::int32_t expiry = mq::MQEI_UNLIMITED) {
    mq::mqmd md;
    md.version = mq::MQMD_VERSION_2;
    md.msg_type = mq::MQMT_REQUEST;
    md.report = mq::MQRO_EXCEPTION_WITH_DATA;
    md.format = std::string(mq::MQFMT_IMS);
    md.coded_char_set_id = 819;
    md.persistence = mq::MQPER_PERSISTENT;
    md.expiry = expiry;
    md.reply_to_q = pad(reply_q, 48);
    bytes data;
    mq::encode_mqiih(iih, mq::MQENC_NATIVE_LINUX_X86, 819, data);
    const bytes segs = bridge::encode_llzz_segments(segments, mq::MQENC_NATIVE_LINUX_X86, 819);
    data.insert(data.end(), segs.begin(), segs.end());
    return rig_->put(bridge_q, md, data);
  }
  std::optional<bridge::imsreq_reply> reply_to(const std::array<std::uint8_t, 24>& id) {
    auto m = rig_->get(reply_q, id);
    if (!m) return std::nullopt;
    return bridge::decode_imsreq_reply(*m);
  }
  bool wait_command(const std::function<bool(const std::vector<std::string>&)>& ok, const std::string& cmd,
                    bool ims = false) {
    const auto until = std::chrono::steady_clock::now() + rig_wait;
    for (;;) {
      if (ok(ims ? rig_->ims_command(cmd) : rig_->bridge_command(cmd))) return true;
      if (std::chrono::steady_clock::now() >= until) return false;
      std::this_thread::sleep_for(milliseconds(20));
    }
  }

  std::unique_ptr<bridge_rig> rig_;
};

TEST_F(operations, SuspendHoldsRequestsResumeSendsThem) {
  const auto answer = rig_->bridge_command("SUSPEND QMGR FACILITY(IMSBRIDGE)");
  ASSERT_FALSE(answer.empty());
  ASSERT_TRUE(wait_command([](const auto& l) { return contains(joined(l), "SUSPENDED"); }, "DISPLAY QUEUE"))
      << joined(rig_->bridge_command("DISPLAY QUEUE"));
  const auto id = rig_->put_request(request({"ECHO WHILE SUSPENDED"}, '1'));
  // While suspended nothing is taken: no reply within a second, the request still queued.
  EXPECT_FALSE(rig_->get(reply_q, id, milliseconds(1000)));
  EXPECT_EQ(rig_->depth(bridge_q), 1);
  rig_->bridge_command("RESUME QMGR FACILITY(IMSBRIDGE)");
  auto r = reply_to(id);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->segments, std::vector<std::string>{"ECHO WHILE SUSPENDED"});
}

// imsemu sends the next output twice (same send sequence number on the synchronized Tpipe): the bridge
// ACKs the second and puts nothing (docs/design/commit-modes.md, CM0 step 6); DISPLAY PARTNER counts it.
TEST_F(operations, DuplicateOutputGivesNoSecondReply) {
  const auto fault = rig_->ims_command("FAULT DUPLICATE OUTPUT 1");
  ASSERT_FALSE(fault.empty());
  const auto id = rig_->put_request(request({"ECHO ONCE"}, '0'));
  auto r = reply_to(id);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->segments, std::vector<std::string>{"ECHO ONCE"});
  ASSERT_TRUE(
      wait_command([](const auto& l) { return field_number(l, "DUPOUTPUT") >= 1; }, "DISPLAY PARTNER"))
      << joined(rig_->bridge_command("DISPLAY PARTNER"));
  // IMS did send it twice (the same output, the same send number), and the bridge took it once.
  EXPECT_TRUE(contains(rig_->ims_log(), "sent twice")) << rig_->ims_log();
  EXPECT_FALSE(rig_->get(reply_q, id, milliseconds(500))) << "a second reply";
  EXPECT_EQ(rig_->depth(reply_q), 0);
  EXPECT_EQ(rig_->depth(dead_q), 0);
  // The receive number moved by one: the duplicate did not count as a second output.
  EXPECT_EQ(field_number(rig_->bridge_command("DISPLAY TPIPE(CSQ0001S)"), "RCVSEQ"), 1)
      << joined(rig_->bridge_command("DISPLAY TPIPE(CSQ0001S)"));
  // And the Tpipe goes on: the next output is taken as number 2.
  const auto next = rig_->put_request(request({"ECHO NEXT"}, '0'));
  r = reply_to(next);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->segments, std::vector<std::string>{"ECHO NEXT"});
}

// CM1 on the non-synchronized Tpipe: with IMS's runs held, several requests are sent and outstanding at
// once (bridge.cm1-window, 4 by default); released, each gets its reply.
TEST_F(operations, Cm1SeveralInFlight) {
  ASSERT_FALSE(rig_->ims_command("FAULT HOLD RUNS").empty());
  std::vector<std::array<std::uint8_t, 24>> ids;
  for (int i = 0; i < 3; ++i)
    ids.push_back(rig_->put_request(request({"ECHO CM1 " + std::to_string(i)}, '1')));
  EXPECT_TRUE(wait_command([](const auto& l) { return field_number(l, "OUTSTANDING") >= 3; },
                           "DISPLAY TPIPE(CSQ0001N)"))
      << joined(rig_->bridge_command("DISPLAY TPIPE(CSQ0001N)"));
  // IMS's side: all three accepted and held at once (an IMB5030W line each), none answered yet.
  EXPECT_TRUE(bridge_rig::wait_text(
      [this] {
        const std::string log = rig_->ims_log();
        std::size_t n = 0;
        const std::string line = "fault: run of input";  // imsemu's IMB5030W "... held"
        for (auto at = log.find(line); at != std::string::npos; at = log.find(line, at + 1)) ++n;
        return n >= 3 ? std::string("three") : std::string();
      },
      "three"))
      << rig_->ims_log();
  EXPECT_EQ(rig_->depth(reply_q), 0);
  EXPECT_EQ(rig_->depth(bridge_q), 3);  // CM1: each request stays until its reply is put
  ASSERT_FALSE(rig_->ims_command("FAULT RELEASE RUNS").empty());
  for (int i = 0; i < 3; ++i) {
    auto r = reply_to(ids[static_cast<std::size_t>(i)]);
    ASSERT_TRUE(r) << i;
    EXPECT_EQ(r->segments, std::vector<std::string>{"ECHO CM1 " + std::to_string(i)});
  }
  // One reply each, nothing left over.
  EXPECT_EQ(rig_->depth(reply_q), 0);
  EXPECT_EQ(rig_->depth_when(bridge_q, 0), 0);
  EXPECT_EQ(rig_->depth(dead_q), 0);
  EXPECT_TRUE(wait_command([](const auto& l) { return field_number(l, "OUTSTANDING") == 0; },
                           "DISPLAY TPIPE(CSQ0001N)"))
      << joined(rig_->bridge_command("DISPLAY TPIPE(CSQ0001N)"));
}

// The reply MQIIH's Format: ReplyToFormat when given; else the output MOD name; MQFMT_NONE with
// MQIIH_REPLY_FORMAT_NONE [C: REPLY-IIH, IIH-FLAGS].
TEST_F(operations, ReplyFormatRules) {
  mq::mqiih iih;
  iih.commit_mode = '1';
  iih.reply_to_format = "MQSTR   ";
  auto r = reply_to(put_iih(iih, {"SHOWOTMA MOD=OUTM"}));
  ASSERT_TRUE(r && r->iih);
  EXPECT_EQ(r->iih->format, "MQSTR   ");

  iih.reply_to_format = std::string(mq::MQFMT_NONE);
  r = reply_to(put_iih(iih, {"SHOWOTMA MOD=OUTM"}));
  ASSERT_TRUE(r && r->iih);
  EXPECT_EQ(r->iih->format, "OUTM    ");

  iih.flags = mq::MQIIH_REPLY_FORMAT_NONE;
  r = reply_to(put_iih(iih, {"SHOWOTMA MOD=OUTM"}));
  ASSERT_TRUE(r && r->iih);
  EXPECT_EQ(r->iih->format, std::string(mq::MQFMT_NONE));
}

// MQIIH_PASS_EXPIRATION: the reply keeps what is left of the request's expiry; without it, unlimited
// [C: REPLY-MD, IIH-FLAGS].
TEST_F(operations, PassExpiration) {
  mq::mqiih iih;
  iih.commit_mode = '1';
  iih.flags = mq::MQIIH_PASS_EXPIRATION;
  auto r = reply_to(put_iih(iih, {"ECHO EXPIRING"}, 6000));
  ASSERT_TRUE(r);
  EXPECT_GT(r->md.expiry, 0);
  EXPECT_LE(r->md.expiry, 6000);

  iih.flags = mq::MQIIH_NONE;
  r = reply_to(put_iih(iih, {"ECHO EXPIRING"}, 6000));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->md.expiry, mq::MQEI_UNLIMITED);
}

}  // namespace
}  // namespace imsb::test
