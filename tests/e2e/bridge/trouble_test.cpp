// The third outcome of docs/design/errors.md end to end: system trouble never loses a message. A flood NAK
// (X'30') backs the request out and retries it with back-off until IMS takes it; a dead-letter queue that
// cannot be used stops the queue with the bad message still on it.

#include <gtest/gtest.h>

#include <regex>
#include <string>
#include <vector>

#include "bridge_e2e.hpp"

namespace imsb::test {
namespace {

long field_number(const std::vector<std::string>& lines, const std::string& key, const std::string& word) {
  const std::regex re(word + "\\((\\d+)\\)");
  for (const auto& l : lines) {
    std::smatch m;
    if (contains(l, key) && std::regex_search(l, m, re)) return std::stol(m[1].str());
  }
  return -1;
}

class trouble : public ::testing::Test {
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
  std::unique_ptr<bridge_rig> rig_;
};

TEST_F(trouble, FloodNakBacksOffThenRelief) {
  ASSERT_FALSE(rig_->ims_command("FAULT NAK 0030").empty());
  const auto id = rig_->put_request(request({"ECHO AFTER FLOOD"}, '0'));
  auto m = rig_->get(reply_q, id);
  ASSERT_TRUE(m) << "no reply after the flood NAK";
  EXPECT_EQ(bridge::decode_imsreq_reply(*m).segments, std::vector<std::string>{"ECHO AFTER FLOOD"});
  EXPECT_EQ(rig_->depth(dead_q), 0);  // a resource NAK is no application error
  EXPECT_GE(field_number(rig_->bridge_command("DISPLAY QUEUE"), bridge_q, "BACKOUTS"), 1)
      << joined(rig_->bridge_command("DISPLAY QUEUE"));
}

TEST_F(trouble, UnusableDeadLetterQueueStopsTheQueue) {
  auto alter = rig_->qm().mqsc("ALTER QLOCAL(SYSTEM.DEAD.LETTER.QUEUE) PUT(DISABLED)\n");
  ASSERT_TRUE(alter && alter->exit_code == 0) << (alter ? joined(alter->lines) : alter.error().to_string());
  // LL 0: a bad message for the dead-letter queue, which refuses it.
  mq::mqmd md;
  md.format = std::string(mq::MQFMT_NONE);
  md.coded_char_set_id = 819;
  md.persistence = mq::MQPER_PERSISTENT;
  md.reply_to_q = pad(reply_q, 48);
  bytes data(4, 0);
  data.insert(data.end(), {'E', 'C', 'H', 'O'});
  rig_->put(bridge_q, md, data);
  const auto until = std::chrono::steady_clock::now() + rig_wait;
  bool stopped = false;
  while (!stopped && std::chrono::steady_clock::now() < until) {
    for (const auto& l : rig_->bridge_command("DISPLAY QUEUE"))
      if (contains(l, std::string("QUEUE(") + bridge_q + ")") && contains(l, "STOPPED")) stopped = true;
    if (!stopped) std::this_thread::sleep_for(milliseconds(20));
  }
  EXPECT_TRUE(stopped) << joined(rig_->bridge_command("DISPLAY QUEUE"));
  EXPECT_EQ(rig_->depth(bridge_q), 1);  // never lost
  EXPECT_EQ(rig_->depth(dead_q), 0);
  // The other bridge queue goes on.
  auto o = request({"ECHO OTHER QUEUE"}, '1');
  o.bridge_queue = bridge_q2;
  const auto id = rig_->put_request(o, bridge_q2);
  EXPECT_TRUE(rig_->get(reply_q, id));
}

}  // namespace
}  // namespace imsb::test
