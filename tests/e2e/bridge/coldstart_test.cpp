// An IMS cold start end to end (docs/design/resync.md; a cold-started Tpipe resets to 1 [C: RESYNC]).
//
// imsemu's `FAULT RESTART COLD` drops every Tpipe, queued input and output (the phone book stays). At the
// bridge's next bid IMS's SRVresynch no longer lists the synchronized Tpipe CSQ0001S that carried
// messages: the bridge resets its numbers to 0 (the next input is number 1) and says so once with
// IMB2021W. A synchronized Tpipe with nothing to lose — numbers 0/0, nothing in flight: CSQ0002S that
// never carried a message, or CSQ0001S after the cold start until its next message — gets no IMB2021W,
// at that bid or any later one. A request in flight when IMS cold-starts is sent again as number 1 and
// answered once, and IMB2021W says it is sent again.

#include <gtest/gtest.h>

#include <regex>
#include <string>
#include <vector>

#include "bridge_e2e.hpp"
#include "imsb/core/messages.hpp"

namespace imsb::test {
namespace {

// The lines of `text` that hold `part`.
std::vector<std::string> lines_with(const std::string& text, std::string_view part) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);)
    if (contains(l, part)) out.push_back(l);
  return out;
}

// IVTNO's input columns: trancode 8, process code 8, last name 10, first name 10, extension 10.
std::string ivtno(const std::string& process, const std::string& last, const std::string& first = {},
                  const std::string& extension = {}) {
  return pad("IVTNO", 8) + pad(process, 8) + pad(last, 10) + pad(first, 10) + pad(extension, 10);
}

class coldstart : public ::testing::Test {
 protected:
  void SetUp() override {
    rig_ = std::make_unique<bridge_rig>(qm_mode::embedded);
    const std::string e = rig_->start({}, {"--bridge.backoff-initial-ms=100", "--bridge.backoff-max-ms=400"});
    ASSERT_TRUE(e.empty()) << e;
  }
  void TearDown() override {
    if (HasFailure()) std::cerr << rig_->state() << "\n" << rig_->logs();
    rig_.reset();
  }

  std::string tpipe_line(const std::string& tp) const { return rig_->tpipe_line(tp); }
  bool wait_tpipe(const std::string& tp, const std::function<bool(const std::string&)>& ok) const {
    return rig_->wait_tpipe(tp, ok);
  }
  static std::function<bool(const std::string&)> numbers(const std::string& send,
                                                         const std::string& receive) {
    return [send, receive](const std::string& l) {
      return field(l, "SENDSEQ") == send && field(l, "RCVSEQ") == receive && field(l, "INFLIGHT") == "NONE";
    };
  }

  // A CM0 persistent request on `queue`; its reply's message (IVTNO's first 40 columns), or "" after
  // a failed assertion.
  std::string send_cm0(const std::string& text, const std::string& queue = bridge_q) {
    auto o = request({text}, '0');
    o.bridge_queue = queue;
    const auto id = rig_->put_request(o, queue);
    auto m = rig_->get(reply_q, id);
    EXPECT_TRUE(m) << "no reply to '" << text << "' on " << queue;
    if (!m) return {};
    const auto r = bridge::decode_imsreq_reply(*m);
    EXPECT_EQ(r.segments.size(), 1u) << r.raw_text;
    return r.segments.empty() ? std::string() : rtrim(r.segments.front().substr(0, 40));
  }

  // FAULT RESTART `kind` and wait until the bridge has bid again and its partner is ACTIVE.
  void restart_ims(const std::string& kind) {
    const std::size_t ims_ready = lines_with(rig_->ims_log(), imsb::msg::IMB5080I).size();
    const std::size_t bids = lines_with(rig_->bridge_log(), imsb::msg::IMB2004I).size();
    const std::string a = joined(rig_->ims_command("FAULT RESTART " + kind));
    ASSERT_TRUE(contains(a, imsb::msg::IMB5066I)) << a;
    const auto until = std::chrono::steady_clock::now() + rig_wait;
    auto done = [&] {
      if (lines_with(rig_->ims_log(), imsb::msg::IMB5080I).size() <= ims_ready) return false;
      if (lines_with(rig_->bridge_log(), imsb::msg::IMB2004I).size() <= bids) return false;
      for (const auto& l : rig_->bridge_command("DISPLAY PARTNER"))
        if (contains(l, std::string("PARTNER(") + xcf_group + "." + ims_member + ")") &&
            field(l, "STATE") == "ACTIVE")
          return true;
      return false;
    };
    while (!done()) {
      ASSERT_LT(std::chrono::steady_clock::now(), until)
          << "the bridge is not ACTIVE again after FAULT RESTART " << kind << "\n"
          << joined(rig_->bridge_command("DISPLAY PARTNER"));
      std::this_thread::sleep_for(milliseconds(20));
    }
  }

  std::vector<std::string> cold_lines() { return lines_with(rig_->bridge_log(), imsb::msg::IMB2021W); }

  std::unique_ptr<bridge_rig> rig_;
};

TEST_F(coldstart, OnlyTpipesWithNumbersAreReported) {
  // Three CM0 requests on Q1: CSQ0001S numbers 3/3. Q2 stays unused.
  EXPECT_EQ(send_cm0(ivtno("ADD", "COLD1", "ANNA", "4711")), "ENTRY WAS ADDED");
  EXPECT_EQ(send_cm0(ivtno("DISPLAY", "COLD1")), "ENTRY WAS DISPLAYED");
  EXPECT_EQ(send_cm0(ivtno("DISPLAY", "NOBODY")), "SPECIFIED PERSON WAS NOT FOUND");
  ASSERT_TRUE(wait_tpipe("CSQ0001S", numbers("3", "3"))) << tpipe_line("CSQ0001S");
  ASSERT_TRUE(cold_lines().empty()) << rig_->bridge_log();

  ASSERT_NO_FATAL_FAILURE(restart_ims("COLD"));
  // One IMB2021W, for CSQ0001S, and nothing was in flight; none for the Tpipes that never carried a
  // message (CSQ0002S) nor for the non-synchronized ones (IMS lists only synchronized Tpipes).
  auto cold = cold_lines();
  ASSERT_EQ(cold.size(), 1u) << rig_->bridge_log();
  EXPECT_TRUE(contains(cold[0],
                       "does not know Tpipe CSQ0001S (IMS cold start): sequence numbers reset "
                       "(were send 3, receive 3)"))
      << cold[0];
  EXPECT_FALSE(contains(cold[0], "in flight")) << cold[0];
  // The numbers start again: 0/0, the next input is number 1.
  ASSERT_TRUE(wait_tpipe("CSQ0001S", numbers("0", "0"))) << tpipe_line("CSQ0001S");
  EXPECT_TRUE(contains(tpipe_line("CSQ0001S"), "STATE(ACTIVE)")) << tpipe_line("CSQ0001S");

  // A later bid (here an IMS warm restart) before CSQ0001S carries a message: IMS still does not list it,
  // but there is nothing to reset: no second IMB2021W.
  ASSERT_NO_FATAL_FAILURE(restart_ims("WARM"));
  cold = cold_lines();
  EXPECT_EQ(cold.size(), 1u) << rig_->bridge_log();

  // IMS takes the reset numbers: a request on Q1 goes as input 1 (its reply is output 1), and Q2 works.
  EXPECT_EQ(send_cm0(ivtno("DISPLAY", "COLD1")), "ENTRY WAS DISPLAYED");  // the phone book stayed
  EXPECT_EQ(send_cm0(ivtno("DISPLAY", "COLD1"), bridge_q2), "ENTRY WAS DISPLAYED");
  EXPECT_TRUE(wait_tpipe("CSQ0001S", numbers("1", "1"))) << tpipe_line("CSQ0001S");
  EXPECT_TRUE(wait_tpipe("CSQ0002S", numbers("1", "1"))) << tpipe_line("CSQ0002S");
  const auto tps = rig_->ims_tpipes();
  ASSERT_TRUE(tps.count("CSQ0001S")) << joined(
      rig_->ims_command(std::string("/DIS TMEMBER ") + bridge_member + " TPIPE ALL"));
  EXPECT_TRUE(contains(tps.at("CSQ0001S"), "SYN")) << tps.at("CSQ0001S");
  EXPECT_EQ(rig_->depth(dead_q), 0);
  for (const auto& l : lines_with(rig_->bridge_log(), imsb::msg::IMB2020E)) ADD_FAILURE() << l;
}

TEST_F(coldstart, RequestInFlightIsSentAgainOnce) {
  EXPECT_EQ(send_cm0(ivtno("DISPLAY", "NOBODY")), "SPECIFIED PERSON WAS NOT FOUND");
  ASSERT_TRUE(wait_tpipe("CSQ0001S", numbers("1", "1"))) << tpipe_line("CSQ0001S");

  // IMS logs input 2 but neither ACKs nor runs it; then it cold-starts and forgets it.
  ASSERT_FALSE(rig_->ims_command("FAULT HOLD RUNS").empty());
  ASSERT_FALSE(rig_->ims_command("FAULT WITHHOLD ACK 1").empty());
  auto o = request({ivtno("ADD", "INFLIGHT", "BERT", "0815")}, '0');
  const auto id = rig_->put_request(o);
  ASSERT_TRUE(wait_tpipe("CSQ0001S", [](const std::string& l) { return field(l, "INFLIGHT") == "2"; }))
      << tpipe_line("CSQ0001S");
  ASSERT_TRUE(bridge_rig::wait_text([this] { return rig_->ims_log(); }, "withheld")) << rig_->ims_log();
  ASSERT_NO_FATAL_FAILURE(restart_ims("COLD"));

  const auto cold = cold_lines();
  ASSERT_EQ(cold.size(), 1u) << rig_->bridge_log();
  EXPECT_TRUE(contains(cold[0],
                       "does not know Tpipe CSQ0001S (IMS cold start): sequence numbers reset "
                       "(were send 1, receive 1, in flight 2), the message in flight is sent "
                       "again as input 1"))
      << cold[0];

  // Sent again as input 1, run once: ADD answers "added" (a second run would say "failed").
  auto m = rig_->get(reply_q, id);
  ASSERT_TRUE(m) << "the request in flight was not sent again";
  const auto r = bridge::decode_imsreq_reply(*m);
  ASSERT_EQ(r.segments.size(), 1u) << r.raw_text;
  EXPECT_EQ(rtrim(r.segments.front().substr(0, 40)), "ENTRY WAS ADDED");
  EXPECT_TRUE(wait_tpipe("CSQ0001S", numbers("1", "1"))) << tpipe_line("CSQ0001S");
  EXPECT_FALSE(rig_->get(reply_q, id, milliseconds(500))) << "a second reply";
  EXPECT_EQ(rig_->depth_when(bridge_q, 0), 0);
  EXPECT_EQ(rig_->depth(dead_q), 0);
  // And the Tpipe runs on.
  EXPECT_EQ(send_cm0(ivtno("DISPLAY", "INFLIGHT")), "ENTRY WAS DISPLAYED");
  EXPECT_TRUE(wait_tpipe("CSQ0001S", numbers("2", "2"))) << tpipe_line("CSQ0001S");
  EXPECT_EQ(cold_lines().size(), 1u) << rig_->bridge_log();
}

}  // namespace
}  // namespace imsb::test
