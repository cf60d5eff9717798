// imsreq as a real program against the running bridge: its exit codes (0 reply, 1 report, 2 usage, 8
// connection or timeout) and output; a 3-step IVTCV conversation ended by /EXIT; a wrong conversation ID
// that gets IMS's error back instead of a hang.

#include <gtest/gtest.h>

#include <regex>
#include <string>
#include <vector>

#include "bridge_e2e.hpp"
#include "imsb/core/messages.hpp"
#include "imsb/mq/bridge_validator.hpp"

namespace imsb::test {
namespace {

std::vector<std::string> with(std::vector<std::string> base, const std::vector<std::string>& more) {
  base.insert(base.end(), more.begin(), more.end());
  return base;
}

// The 32 hex digits after "TranInstanceId=" in imsreq's output, and the TranState.
std::string instance_id(const std::string& out) {
  std::smatch m;
  return std::regex_search(out, m, std::regex("TranInstanceId=([0-9A-F]{32})")) ? m[1].str() : "";
}
bool in_conversation(const std::string& out) { return contains(out, "TranState=C "); }

// IVTCV's columns: trancode 8, process code 8, last name 10 (ims/programs.hpp).
std::string ivtcv(const std::string& code, const std::string& last) {
  return pad("IVTCV", 8) + pad(code, 8) + last;
}

// What imsreq puts passes the bridge's own validation, with the fields the options name; in both
// encodings and character families.
TEST(imsreq_message, PassesBridgeValidation) {
  auto parsed = bridge::parse_imsreq_args({"-m", "QM1", "-q", "BQ", "-r", "RQ", "--conversation",
                                           "00112233445566778899AABBCCDDEEFF", "--lterm", "LT1", "--mfs",
                                           "MAP1", "--userid", "clerk1", "IVTCV   DISPLAY X", "SEG2"});
  ASSERT_TRUE(parsed) << parsed.error().to_string();
  for (const auto& [enc, ccsid] : {std::pair<std::int32_t, std::int32_t>{mq::MQENC_NATIVE_LINUX_X86, 819},
                                   std::pair<std::int32_t, std::int32_t>{mq::MQENC_NATIVE_ZOS, 37}}) {
    SCOPED_TRACE(ccsid);
    const auto m = bridge::build_imsreq_message(*parsed, enc, ccsid);
    EXPECT_EQ(m.md.format, mq::MQFMT_IMS);
    EXPECT_EQ(m.md.report, mq::MQRO_EXCEPTION_WITH_DATA);
    EXPECT_EQ(rtrim(m.md.reply_to_q), "RQ");
    EXPECT_EQ(rtrim(m.md.user_identifier), "clerk1");
    auto v = mq::validate_bridge_message(bytes_view(m.data), m.md.format, enc, ccsid);
    ASSERT_TRUE(v) << v.error().to_string();
    EXPECT_EQ(v->trancode, "IVTCV   ");
    EXPECT_EQ(v->commit_mode, '1');
    EXPECT_EQ(v->tran_state, 'C');
    EXPECT_EQ(v->lterm_override, "LT1     ");
    EXPECT_EQ(v->mfs_map_name, "MAP1    ");
    ASSERT_EQ(v->segments.size(), 2u);
    ASSERT_TRUE(v->iih);
    EXPECT_EQ(to_hex(bytes_view(v->iih->tran_instance_id.data(), 16)), "00112233445566778899AABBCCDDEEFF");
    // Read back as a reply would be.
    mqi::message back;
    back.md = m.md;
    back.data = m.data;
    const auto r = bridge::decode_imsreq_reply(back);
    ASSERT_FALSE(r.problem) << r.problem->to_string();
    EXPECT_EQ(r.segments, (std::vector<std::string>{"IVTCV   DISPLAY X", "SEG2"}));
  }
  auto no_iih = bridge::parse_imsreq_args({"-q", "BQ", "-r", "RQ", "--no-iih", "--mfs", "MAP2", "ECHO X"});
  ASSERT_TRUE(no_iih) << no_iih.error().to_string();
  const auto m = bridge::build_imsreq_message(*no_iih, mq::MQENC_NATIVE_LINUX_X86, 819);
  EXPECT_EQ(m.md.format, "MAP2    ");
  auto v = mq::validate_bridge_message(bytes_view(m.data), m.md.format, m.md.encoding, 819);
  ASSERT_TRUE(v) << v.error().to_string();
  EXPECT_FALSE(v->iih);
  EXPECT_EQ(v->trancode, "ECHO    ");
  EXPECT_EQ(v->mfs_map_name, "MAP2    ");
}

// --passticket's application name is upper-cased, as the key file's names are (passticket_keys::load),
// so "mvsqm1" finds the key of MVSQM1.
TEST(imsreq_options, PassTicketApplIsUpperCased) {
  auto parsed = bridge::parse_imsreq_args({"-q", "BQ", "-r", "RQ", "--passticket", "mvsqm1", "ECHO X"});
  ASSERT_TRUE(parsed) << parsed.error().to_string();
  EXPECT_EQ(parsed->passticket_appl, "MVSQM1");
}

TEST(imsreq_usage, ExitCode2) {
  bridge_rig rig(qm_mode::embedded);
  ran r = rig.imsreq({"-m", qm_name, "-r", reply_q, "ECHO"});  // no -q
  EXPECT_EQ(r.code, 2) << r.both();
  EXPECT_TRUE(contains(r.err, imsb::msg::IMB4910E)) << r.both();
  r = rig.imsreq({"-m", qm_name, "-q", bridge_q, "-r", reply_q, "--conversation", "12AB", "IVTCV"});
  EXPECT_EQ(r.code, 2) << r.both();
  r = rig.imsreq({"-m", qm_name, "-q", bridge_q, "-r", reply_q, "--no-iih", "--commit-mode", "1", "ECHO"});
  EXPECT_EQ(r.code, 2) << r.both();
  r = rig.imsreq({"--help"});
  EXPECT_EQ(r.code, 0) << r.both();
  EXPECT_TRUE(contains(r.out, "usage: imsreq")) << r.both();
}

TEST(imsreq_usage, NoQueueManagerIsExitCode8) {
  bridge_rig rig(qm_mode::embedded);  // nothing started: no queue manager in its prefix
  ran r = rig.imsreq({"--prefix", rig.prefix(), "-m", qm_name, "-q", bridge_q, "-r", reply_q, "ECHO"});
  EXPECT_EQ(r.code, 8) << r.both();
  EXPECT_TRUE(contains(r.err, imsb::msg::IMB4911E)) << r.both();
}

class imsreq_e2e : public ::testing::Test {
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
  ran req(const std::vector<std::string>& args) { return rig_->imsreq(with(rig_->imsreq_base(), args)); }

  std::unique_ptr<bridge_rig> rig_;
};

TEST_F(imsreq_e2e, NormalReplyIsExitCode0) {
  ran r = req({"--persistent", "--commit-mode", "1", "ECHO HELLO", "SECOND"});
  EXPECT_EQ(r.code, 0) << r.both();
  EXPECT_TRUE(contains(r.out, "ECHO HELLO\nSECOND\n")) << r.both();
  EXPECT_TRUE(contains(r.out, "MQIIH TranState=' '")) << r.both();
  EXPECT_TRUE(contains(r.out, "CommitMode=1")) << r.both();

  r = req({"--persistent", "SHOWOTMA"});  // CM0 (the default)
  EXPECT_EQ(r.code, 0) << r.both();
  EXPECT_TRUE(contains(r.out, "COMMITMODE=0")) << r.both();
  EXPECT_TRUE(contains(r.out, "SYNCHRONIZED=Y")) << r.both();

  r = req({"--persistent", "--no-iih", "--mfs", "MAPIN", "SHOWOTMA MOD=MAPOUT"});
  EXPECT_EQ(r.code, 0) << r.both();
  EXPECT_TRUE(contains(r.out, "MODNAME=MAPIN")) << r.both();
  EXPECT_TRUE(contains(r.out, "Format='MAPOUT  '")) << r.both();
  EXPECT_FALSE(contains(r.out, "MQIIH ")) << r.both();
}

TEST_F(imsreq_e2e, ReportIsExitCode1) {
  // An IMS command in a persistent commit-mode-0 message: refused as IBM refuses it, dead letter with
  // MQFB 335 (IMS's NAK X'23') and the exception report (docs/design/commit-modes.md, IMS commands).
  ran r = req({"--persistent", "--commit-mode", "0", "/DIS TRAN IVTNO"});
  EXPECT_EQ(r.code, 1) << r.both();
  EXPECT_TRUE(contains(r.out, "Feedback MQFB_IMS_ERROR+35 (335)")) << r.both();
  EXPECT_TRUE(contains(r.out, "OTMA NAK sense X'0023'")) << r.both();
  EXPECT_TRUE(contains(r.err, imsb::msg::IMB4916W)) << r.both();
  EXPECT_EQ(rig_->depth(dead_q), 1);
  // An unknown transaction is no report: DFS064 is IMS's ordinary reply (docs/design/errors.md).
  r = req({"--persistent", "--commit-mode", "1", "NOSUCHTR DATA"});
  EXPECT_EQ(r.code, 0) << r.both();
  EXPECT_TRUE(contains(r.out, "DFS064")) << r.both();
  // An LTERM as the transaction code: IMS NAKs and says why in DFS1288E, which the bridge returns as the
  // reply (docs/design/errors.md, the second outcome): IMS refused the request, so no normal reply (exit 1).
  r = req({"--persistent", "--commit-mode", "1", "IVTNOLT  HELLO"});
  EXPECT_EQ(r.code, 1) << r.both();
  EXPECT_TRUE(contains(r.out, "DFS1288E")) << r.both();
  EXPECT_TRUE(contains(r.err, imsb::msg::IMB4919W)) << r.both();
  EXPECT_TRUE(contains(r.err, "DFS1288E")) << r.both();
  EXPECT_EQ(rig_->depth(dead_q), 1);  // consumed, not dead-lettered
}

TEST_F(imsreq_e2e, NoReplyIsExitCode8) {
  // PLAIN.Q is no bridge queue: nothing answers.
  ran r = rig_->imsreq(
      {"--prefix", rig_->prefix(), "-m", qm_name, "-q", "PLAIN.Q", "-r", reply_q, "--wait", "300", "ECHO"});
  EXPECT_EQ(r.code, 8) << r.both();
  EXPECT_TRUE(contains(r.err, imsb::msg::IMB4914E)) << r.both();
  r = rig_->imsreq({"--prefix", rig_->prefix(), "-m", qm_name, "-q", "NO.SUCH.Q", "-r", reply_q, "ECHO"});
  EXPECT_EQ(r.code, 8) << r.both();
  EXPECT_TRUE(contains(r.err, imsb::msg::IMB4912E)) << r.both();
}

TEST_F(imsreq_e2e, ImsCommand) {
  ran r = req({"--non-persistent", "--commit-mode", "1", "/DIS TRAN IVTNO"});
  EXPECT_EQ(r.code, 0) << r.both();
  EXPECT_TRUE(contains(r.out, "IVTNO")) << r.both();
}

// A conversation as IBM describes it [C: CONV]: a new one (TranState ' ', CM1), two more steps with TranState
// 'C' and the TranInstanceId IMS returned, then /EXIT with the same ID. IMS shows the conversation on the
// Tpipe while it lasts and not after.
TEST_F(imsreq_e2e, ThreeStepConversationEndedByExit) {
  ran r = req({"--conversation", "new", "--persistent", ivtcv("ADD", "LASTCV")});
  ASSERT_EQ(r.code, 0) << r.both();
  EXPECT_TRUE(contains(r.out, "ENTER FIRST NAME, EXTENSION AND ZIP")) << r.both();
  ASSERT_TRUE(in_conversation(r.out)) << r.both();
  const std::string id = instance_id(r.out);
  ASSERT_EQ(id.size(), 32u) << r.both();
  ASSERT_NE(id, std::string(32, '0'));

  bool conv_shown = false;
  for (const auto& [name, status] : rig_->ims_tpipes())
    if (contains(status, "CONV")) conv_shown = true;
  EXPECT_TRUE(conv_shown) << joined(rig_->ims_command("/DIS TMEMBER MQXCF1 TPIPE ALL"));

  for (int step = 2; step <= 3; ++step) {
    SCOPED_TRACE(step);
    r = req({"--conversation", id, "--persistent", ivtcv("DISPLAY", "LASTCV")});
    ASSERT_EQ(r.code, 0) << r.both();
    EXPECT_TRUE(contains(r.out, "SPECIFIED PERSON WAS NOT FOUND")) << r.both();
    EXPECT_TRUE(in_conversation(r.out)) << r.both();
    EXPECT_EQ(instance_id(r.out), id) << r.both();
  }

  r = req({"--conversation", id, "--persistent", "/EXIT"});
  ASSERT_EQ(r.code, 0) << r.both();
  EXPECT_FALSE(in_conversation(r.out)) << r.both();
  for (const auto& [name, status] : rig_->ims_tpipes()) EXPECT_FALSE(contains(status, "CONV")) << name;

  // The ended conversation's ID is IMS's error now, not a hang.
  r = req({"--conversation", id, "--persistent", ivtcv("DISPLAY", "LASTCV")});
  EXPECT_EQ(r.code, 1) << r.both();
  EXPECT_TRUE(contains(r.out, "Feedback ")) << r.both();
}

TEST_F(imsreq_e2e, WrongConversationIdGetsImsError) {
  ran r = req({"--conversation", "new", "--persistent", ivtcv("ADD", "LASTWR")});
  ASSERT_EQ(r.code, 0) << r.both();
  ASSERT_TRUE(in_conversation(r.out)) << r.both();
  const std::string id = instance_id(r.out);
  std::string wrong = id;
  wrong[31] = wrong[31] == 'F' ? 'E' : 'F';
  r = rig_->imsreq(with(rig_->imsreq_base(), {"--wait", "20000", "--conversation", wrong, "--persistent",
                                              ivtcv("DISPLAY", "LASTWR")}));
  EXPECT_EQ(r.code, 1) << r.both();  // a report, within the wait
  EXPECT_TRUE(contains(r.out, "Feedback MQFB_IMS")) << r.both();
  EXPECT_TRUE(contains(r.out, "OTMA NAK sense")) << r.both();
}

// The same program over a strmqm daemon (bindings): the bridge in client mode.
TEST(imsreq_client_mode, NormalReply) {
  bridge_rig rig(qm_mode::client);
  const std::string e = rig.start();
  ASSERT_TRUE(e.empty()) << e;
  ran r = rig.imsreq(with(rig.imsreq_base(), {"--persistent", "ECHO FROM CLIENT MODE"}));
  EXPECT_EQ(r.code, 0) << r.both() << rig.logs();
  EXPECT_TRUE(contains(r.out, "ECHO FROM CLIENT MODE\n")) << r.both();
}

}  // namespace
}  // namespace imsb::test
