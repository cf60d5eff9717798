// Bridge started and stopped events end to end [C: BRIDGE-EVENT, BRIDGE-STOPPED-EVENT]: PCF messages on
// SYSTEM.ADMIN.CHANNEL.EVENT when the partner's session becomes ready (MQRC_BRIDGE_STARTED 2125) and
// when it is lost or the bridge stops (MQRC_BRIDGE_STOPPED 2126, ReasonQualifier ERROR or OK), decoded
// by the mqdump program. Client mode: the queue manager outlives the bridge, so the event put at its
// clean stop can be read.

#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "bridge_e2e.hpp"
#include "imsb/mq/pcf.hpp"

namespace imsb::test {
namespace {

constexpr const char* event_q = "SYSTEM.ADMIN.CHANNEL.EVENT";

class events : public ::testing::Test {
 protected:
  void SetUp() override {
    rig_ = std::make_unique<bridge_rig>(qm_mode::client);
    const std::string e = rig_->start();
    ASSERT_TRUE(e.empty()) << e;
  }
  void TearDown() override {
    if (HasFailure()) std::cerr << rig_->state() << "\n" << rig_->logs();
    rig_.reset();
  }

  // The next event message, as mqdump prints it (the MQMD and the data in one file, as got).
  std::string next_event() {
    auto m = rig_->get_any(event_q);
    if (!m) return "<no event message>";
    bytes file;
    mq::encode_mqmd(m->md, m->md.encoding, m->md.coded_char_set_id, file);
    file.insert(file.end(), m->data.begin(), m->data.end());
    const std::string path = rig_->dir.file("event." + std::to_string(++events_));
    {
      std::ofstream f(path, std::ios::binary);
      f.write(reinterpret_cast<const char*>(file.data()), static_cast<std::streamsize>(file.size()));
    }
    const ran r = rig_->run(IMSB_MQDUMP, {path}, {}, false);
    if (r.code != 0) return "<mqdump failed> " + r.both();
    return r.out;
  }

  // What every bridge event of ours says: OTMA, group + member, the queue manager.
  static void expect_bridge(const std::string& dump) {
    EXPECT_TRUE(contains(dump, "MQFMT_EVENT") || contains(dump, "MQEVENT")) << dump;
    EXPECT_TRUE(contains(dump, "MQCFT_EVENT")) << dump;
    EXPECT_TRUE(contains(dump, "BridgeType")) << dump;
    EXPECT_TRUE(contains(dump, "MQBT_OTMA")) << dump;
    EXPECT_TRUE(contains(dump, "BridgeName")) << dump;
    // MQ_BRIDGE_NAME_LENGTH 24: the XCF group (8, blank padded) then the IMS member.
    EXPECT_TRUE(contains(dump, pad(xcf_group, 8) + ims_member)) << dump;
    EXPECT_TRUE(contains(dump, qm_name)) << dump;
  }

  std::unique_ptr<bridge_rig> rig_;
  int events_ = 0;
};

TEST_F(events, StartedLostStartedStoppedDecodedByMqdump) {
  // 1. The session became ready at start.
  std::string d = next_event();
  expect_bridge(d);
  EXPECT_TRUE(contains(d, "MQRC_BRIDGE_STARTED")) << d;
  EXPECT_FALSE(contains(d, "MQRC_BRIDGE_STOPPED")) << d;

  // 2. IMS goes away: the session is lost, an error stop.
  rig_->ims.signal(SIGTERM);
  ASSERT_TRUE(rig_->ims.wait_exit(milliseconds(20000)).has_value());
  d = next_event();
  expect_bridge(d);
  EXPECT_TRUE(contains(d, "MQRC_BRIDGE_STOPPED")) << d;
  EXPECT_TRUE(contains(d, "MQRQ_BRIDGE_STOPPED_ERROR")) << d;

  // 3. IMS is back (warm start on the same state): the bridge bids again, a second started event; work
  // flows again.
  ASSERT_EQ(rig_->start_ims(), "");
  d = next_event();
  expect_bridge(d);
  EXPECT_TRUE(contains(d, "MQRC_BRIDGE_STARTED")) << d;
  const auto id = rig_->put_request(request({"ECHO AFTER IMS RESTART"}, '0'));
  auto reply = rig_->get(reply_q, id);
  ASSERT_TRUE(reply);
  EXPECT_EQ(bridge::decode_imsreq_reply(*reply).segments, std::vector<std::string>{"ECHO AFTER IMS RESTART"});

  // 4. The bridge stops cleanly (SIGTERM quiesces): stopped, reason qualifier OK.
  rig_->stop_bridge();
  d = next_event();
  expect_bridge(d);
  EXPECT_TRUE(contains(d, "MQRC_BRIDGE_STOPPED")) << d;
  EXPECT_TRUE(contains(d, "MQRQ_BRIDGE_STOPPED_OK")) << d;

  // Nothing more: one event per change.
  EXPECT_FALSE(rig_->get_any(event_q, milliseconds(300)));
}

}  // namespace
}  // namespace imsb::test
