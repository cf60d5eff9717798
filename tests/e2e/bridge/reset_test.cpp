// RESET TPIPE with ACTION(COMMIT) and ACTION(BACKOUT) end to end ([C: RESYNC, RESET-TPIPE];
// docs/design/resync.md).
//
// The state that needs the operator: a synchronized Tpipe stopped by a sequence-number mismatch with a
// request in flight. IMS's journal is put back to an older copy (as after a restore from a backup): the
// bridge has sent input 3 (IMS logged it, its ACK withheld, its run held) when IMS goes down, and IMS
// comes back knowing only input 1. Resync finds in-flight 3 against IMS's receive number 1: IMB2020E, the
// Tpipe stopped on both sides, the request still on its queue and its in-flight record kept. Then:
//   ACTION(COMMIT)  — the operator says IMS has it: the request is removed, never replied to, and the send
//                     number becomes the in-flight one;
//   ACTION(BACKOUT) — IMS has not got it: the in-flight record goes and the request is sent again;
// RESET TPIPE resynchronizes (REPresynch X'08'): IMS takes the bridge's numbers and the Tpipe runs again.

#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include "bridge_e2e.hpp"
#include "imsb/core/messages.hpp"

namespace imsb::test {
namespace {

class reset_tpipe : public ::testing::TestWithParam<qm_mode> {
 protected:
  void SetUp() override {
    rig_ = std::make_unique<bridge_rig>(GetParam());
    const std::string e = rig_->start({}, {"--bridge.backoff-initial-ms=100", "--bridge.backoff-max-ms=400"});
    ASSERT_TRUE(e.empty()) << e;
    // The synchronized Tpipe of IMS.BRIDGE.Q1, as DISPLAY TPIPE names it.
    for (const auto& l : rig_->bridge_command("DISPLAY TPIPE"))
      if (contains(l, std::string("QUEUE(") + bridge_q + ")") && contains(l, "TYPE(SYNC)"))
        tpipe_ = field(l, "TPIPE");
    ASSERT_FALSE(tpipe_.empty()) << joined(rig_->bridge_command("DISPLAY TPIPE"));
  }
  void TearDown() override {
    if (HasFailure()) std::cerr << rig_->state() << "\n" << rig_->logs();
    rig_.reset();
  }

  std::string tpipe_line() const { return rig_->tpipe_line(tpipe_); }
  bool wait_tpipe(const std::function<bool(const std::string&)>& ok) const {
    return rig_->wait_tpipe(tpipe_, ok);
  }
  std::string reset(const std::string& rest) {
    return joined(rig_->bridge_command("RESET TPIPE(" + tpipe_ + ") XCFMNAME(" + ims_member + ") " + rest));
  }
  void echo(const std::string& text) {
    const auto id = rig_->put_request(request({text}, '0'));
    auto m = rig_->get(reply_q, id);
    ASSERT_TRUE(m) << "no reply to " << text;
    EXPECT_EQ(bridge::decode_imsreq_reply(*m).segments, std::vector<std::string>{text});
  }

  // Numbers 1/1, IMS's journal saved, numbers 2/2, then request `text` in flight as 3 when IMS goes and
  // comes back with the saved journal.
  void stop_with_request_in_flight(const std::string& text, std::array<std::uint8_t, 24>& id) {
    ASSERT_NO_FATAL_FAILURE(echo("ECHO FIRST"));
    ASSERT_TRUE(wait_tpipe([](const std::string& l) {
      return field(l, "SENDSEQ") == "1" && field(l, "RCVSEQ") == "1";
    })) << tpipe_line();
    const std::string state = rig_->dir.file("ims-state"), saved = rig_->dir.file("ims-state.saved");
    ASSERT_NO_FATAL_FAILURE(stop_ims(false));
    std::filesystem::copy(state, saved, std::filesystem::copy_options::recursive);
    ASSERT_EQ(rig_->start_ims(), "");
    ASSERT_NO_FATAL_FAILURE(echo("ECHO SECOND"));  // the bridge bid again; numbers 2/2

    ASSERT_FALSE(rig_->ims_command("FAULT HOLD RUNS").empty());
    ASSERT_FALSE(rig_->ims_command("FAULT WITHHOLD ACK 1").empty());
    id = rig_->put_request(request({text}, '0'));
    ASSERT_TRUE(wait_tpipe([](const std::string& l) { return field(l, "INFLIGHT") == "3"; })) << tpipe_line();
    ASSERT_TRUE(bridge_rig::wait_text([this] { return rig_->ims_log(); }, "withheld")) << rig_->ims_log();
    ASSERT_NO_FATAL_FAILURE(stop_ims(true));
    std::filesystem::remove_all(state);
    std::filesystem::rename(saved, state);
    ASSERT_EQ(rig_->start_ims(), "");

    ASSERT_TRUE(wait_tpipe([](const std::string& l) {
      return contains(l, "STATE(STOPPED") && field(l, "INFLIGHT") == "3";
    })) << tpipe_line();
    ASSERT_TRUE(bridge_rig::wait_text([this] { return rig_->bridge_log(); }, imsb::msg::IMB2020E))
        << rig_->bridge_log();
    // Stopped: the request stays on its queue, unanswered, and nothing is dead-lettered.
    EXPECT_FALSE(rig_->get(reply_q, id, milliseconds(500)));
    EXPECT_EQ(rig_->depth(bridge_q), 1);
    EXPECT_EQ(rig_->depth(dead_q), 0);
  }
  void stop_ims(bool kill) {
    rig_->ims.signal(kill ? SIGKILL : SIGTERM);
    ASSERT_TRUE(rig_->ims.wait_exit(milliseconds(20000)).has_value());
  }

  std::unique_ptr<bridge_rig> rig_;
  std::string tpipe_;
};

TEST_P(reset_tpipe, CommitRemovesTheRequestInFlight) {
  std::array<std::uint8_t, 24> id{};
  ASSERT_NO_FATAL_FAILURE(stop_with_request_in_flight("ECHO COMMITTED BY OPERATOR", id));
  // No SENDSEQ: with COMMIT the send number becomes the in-flight one, 3; the receive number stays 2.
  const std::string a = reset("ACTION(COMMIT)");
  EXPECT_TRUE(contains(a, imsb::msg::IMB2013I) && contains(a, "SENDSEQ(3) RCVSEQ(2) ACTION(COMMIT)")) << a;
  // The request is gone and never replied to.
  EXPECT_EQ(rig_->depth(bridge_q), 0);
  EXPECT_EQ(rig_->depth(dead_q), 0);
  // IMS took the numbers at the resync the reset started (REPresynch X'08') and the Tpipe runs again: the
  // next request is input 4, its reply output 3.
  ASSERT_TRUE(bridge_rig::wait_text([this] { return rig_->ims_log(); }, "action X'0008'")) << rig_->ims_log();
  ASSERT_NO_FATAL_FAILURE(echo("ECHO AFTER COMMIT"));
  EXPECT_TRUE(wait_tpipe([](const std::string& l) {
    return contains(l, "STATE(ACTIVE)") && field(l, "INFLIGHT") == "NONE" && field(l, "SENDSEQ") == "4" &&
           field(l, "RCVSEQ") == "3";
  })) << tpipe_line();
  EXPECT_FALSE(rig_->get(reply_q, id, milliseconds(300))) << "a reply to the committed request";
  const auto tps = rig_->ims_tpipes();
  ASSERT_TRUE(tps.count(tpipe_)) << joined(
      rig_->ims_command(std::string("/DIS TMEMBER ") + bridge_member + " TPIPE ALL"));
  EXPECT_TRUE(contains(tps.at(tpipe_), "SYN")) << tps.at(tpipe_);
}

TEST_P(reset_tpipe, BackoutSendsTheRequestAgain) {
  std::array<std::uint8_t, 24> id{};
  ASSERT_NO_FATAL_FAILURE(stop_with_request_in_flight("ECHO BACKED OUT BY OPERATOR", id));
  // IMS's numbers are 1/1 now: the operator sets ours to them.
  const std::string a = reset("SENDSEQ(1) RCVSEQ(1) ACTION(BACKOUT)");
  EXPECT_TRUE(contains(a, imsb::msg::IMB2013I) && contains(a, "SENDSEQ(1) RCVSEQ(1) ACTION(BACKOUT)")) << a;
  // The request goes again, as input 2, and gets its one reply.
  auto m = rig_->get(reply_q, id);
  ASSERT_TRUE(m) << "the backed-out request was not sent again";
  EXPECT_EQ(bridge::decode_imsreq_reply(*m).segments,
            std::vector<std::string>{"ECHO BACKED OUT BY OPERATOR"});
  EXPECT_EQ(rig_->depth_when(bridge_q, 0), 0);
  EXPECT_EQ(rig_->depth(dead_q), 0);
  EXPECT_TRUE(wait_tpipe([](const std::string& l) {
    return contains(l, "STATE(ACTIVE)") && field(l, "INFLIGHT") == "NONE" && field(l, "SENDSEQ") == "2" &&
           field(l, "RCVSEQ") == "2";
  })) << tpipe_line();
  EXPECT_FALSE(rig_->get(reply_q, id, milliseconds(300))) << "a second reply";
  // And runs on.
  ASSERT_NO_FATAL_FAILURE(echo("ECHO AFTER BACKOUT"));
  EXPECT_TRUE(wait_tpipe([](const std::string& l) {
    return field(l, "SENDSEQ") == "3" && field(l, "RCVSEQ") == "3";
  })) << tpipe_line();
}

INSTANTIATE_TEST_SUITE_P(modes, reset_tpipe, ::testing::Values(qm_mode::embedded, qm_mode::client),
                         [](const ::testing::TestParamInfo<qm_mode>& i) {
                           return std::string(to_string(i.param));
                         });

}  // namespace
}  // namespace imsb::test
