// Flood back-off and relief end to end [C: IMS-FLOOD, IMS-SERVER-STATE]: IMS's TIB count for our member
// reaches 80 % of its limit (DFS1988W) and IMS reports server state degraded (X'3C'); the bridge pauses every
// queue of that partner (IMB2011W; DISPLAY shows FLOODED and PAUSED). When the count falls to 50 % IMS
// relieves the flood (DFS0767I, server state normal) and the bridge resumes at once (IMB2012I), long before
// its back-off would end. Nothing is lost. The NAK X'30' at the limit itself is trouble_test.cpp's
// FloodNakBacksOffThenRelief.

#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include "bridge_e2e.hpp"
#include "imsb/core/messages.hpp"

namespace imsb::test {
namespace {

constexpr int tib_limit = 200;  // the smallest IMS allows [C: IMS-FLOOD]
constexpr int flood = 165;      // > 80 % of it, < the limit: degraded, never a NAK

std::string state_of(const std::vector<std::string>& lines, const std::string& key) {
  const std::regex re("STATE\\(([^)]*)\\)");
  for (const auto& l : lines) {
    std::smatch m;
    if (contains(l, key) && std::regex_search(l, m, re)) return m[1].str();
  }
  return {};
}

class flood_control : public ::testing::Test {
 protected:
  void SetUp() override {
    rig_ = std::make_unique<bridge_rig>(qm_mode::embedded);
    // ivp.def with INPUT=200 (the TIB limit of our member).
    std::string defs = read_file(examples_dir() + "/imsemu/ivp.def");
    const auto at = defs.find("INPUT=5000");
    ASSERT_NE(at, std::string::npos) << "ivp.def has no INPUT=5000";
    defs.replace(at, 10, "INPUT=" + std::to_string(tib_limit));
    rig_->ims_config = rig_->dir.file("flood.def");
    {
      std::ofstream f(rig_->ims_config);
      f << defs;
    }
    // All of the flood in flight at once on one Tpipe; a back-off of a minute, so that only relief can
    // resume the queues within the test.
    const std::string e =
        rig_->start({}, {"--bridge.cm1-window=" + std::to_string(flood + 10),
                         "--bridge.backoff-initial-ms=60000", "--bridge.backoff-max-ms=60000"});
    ASSERT_TRUE(e.empty()) << e;
  }
  void TearDown() override {
    if (HasFailure()) std::cerr << rig_->state() << "\n" << rig_->logs();
    rig_.reset();
  }
  bool wait_state(const std::string& cmd, const std::string& key, const std::string& want) {
    const auto until = std::chrono::steady_clock::now() + rig_wait;
    for (;;) {
      if (state_of(rig_->bridge_command(cmd), key) == want) return true;
      if (std::chrono::steady_clock::now() >= until) return false;
      std::this_thread::sleep_for(milliseconds(20));
    }
  }
  std::unique_ptr<bridge_rig> rig_;
};

TEST_F(flood_control, DegradedPausesAllQueuesReliefResumes) {
  ASSERT_FALSE(rig_->ims_command("FAULT HOLD RUNS").empty());
  std::vector<std::array<std::uint8_t, 24>> ids;
  for (int i = 0; i < flood; ++i) {
    auto o = request({"ECHO FLOOD " + std::to_string(i)}, '1');
    o.persistence = mq::MQPER_NOT_PERSISTENT;
    ids.push_back(rig_->put_request(o));
  }
  // IMS: 80 % of the TIB limit, degraded; the bridge: paused.
  ASSERT_TRUE(bridge_rig::wait_text([this] { return rig_->ims_log(); }, "DFS1988W")) << rig_->ims_log();
  ASSERT_TRUE(bridge_rig::wait_text([this] { return rig_->bridge_log(); }, imsb::msg::IMB2011W))
      << rig_->bridge_log();
  EXPECT_TRUE(contains(rig_->bridge_log(), "degraded")) << rig_->bridge_log();
  EXPECT_TRUE(wait_state("DISPLAY PARTNER", std::string(xcf_group) + "." + ims_member, "FLOODED"))
      << joined(rig_->bridge_command("DISPLAY PARTNER"));
  // Every queue of the partner, not only the one that flooded it.
  EXPECT_TRUE(wait_state("DISPLAY QUEUE", std::string("QUEUE(") + bridge_q + ")", "PAUSED"))
      << joined(rig_->bridge_command("DISPLAY QUEUE"));
  EXPECT_TRUE(wait_state("DISPLAY QUEUE", std::string("QUEUE(") + bridge_q2 + ")", "PAUSED"))
      << joined(rig_->bridge_command("DISPLAY QUEUE"));
  auto o2 = request({"ECHO WHILE FLOODED"}, '1');
  o2.bridge_queue = bridge_q2;
  const auto held = rig_->put_request(o2, bridge_q2);
  EXPECT_FALSE(rig_->get(reply_q, held, milliseconds(1000))) << "sent while the partner is flooded";
  EXPECT_EQ(rig_->depth(bridge_q2), 1);
  EXPECT_FALSE(contains(rig_->ims_log(), "DFS1989E")) << "the limit itself was reached";

  // Relief: IMS runs what it holds; at 50 % DFS0767I and server state normal; the bridge resumes.
  ASSERT_FALSE(rig_->ims_command("FAULT RELEASE RUNS").empty());
  ASSERT_TRUE(bridge_rig::wait_text([this] { return rig_->ims_log(); }, "DFS0767I")) << rig_->ims_log();
  ASSERT_TRUE(bridge_rig::wait_text([this] { return rig_->bridge_log(); }, imsb::msg::IMB2012I))
      << rig_->bridge_log();
  auto r = rig_->get(reply_q, held);
  ASSERT_TRUE(r) << "not sent after relief";
  EXPECT_EQ(bridge::decode_imsreq_reply(*r).segments, std::vector<std::string>{"ECHO WHILE FLOODED"});
  EXPECT_TRUE(wait_state("DISPLAY PARTNER", std::string(xcf_group) + "." + ims_member, "ACTIVE"))
      << joined(rig_->bridge_command("DISPLAY PARTNER"));

  // No message lost: each of the flood gets its one reply; nothing on the dead-letter queue.
  for (int i = 0; i < flood; ++i) {
    auto m = rig_->get(reply_q, ids[static_cast<std::size_t>(i)]);
    ASSERT_TRUE(m) << "no reply to flood message " << i;
    EXPECT_EQ(bridge::decode_imsreq_reply(*m).segments,
              std::vector<std::string>{"ECHO FLOOD " + std::to_string(i)});
  }
  EXPECT_EQ(rig_->depth(reply_q), 0);
  EXPECT_EQ(rig_->depth_when(bridge_q, 0), 0);
  EXPECT_EQ(rig_->depth(dead_q), 0);
}

}  // namespace
}  // namespace imsb::test
