// A PassTicket used twice, end to end [C: PASSTICKET]: the bridge validates it and takes it once; the same
// ticket again is refused with MQFB_NOT_AUTHORIZED_FOR_IMS (298): the request goes to the dead-letter queue
// with that feedback and the requester gets an exception report. The ticket older than 20 minutes is the unit
// test's (tests/bridge/security_test.cpp, passticket_older_than_20_minutes_is_refused: an injected clock).

#include <gtest/gtest.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <string>
#include <vector>

#include "bridge_e2e.hpp"
#include "imsb/bridge/security.hpp"

namespace imsb::test {
namespace {

std::string os_user() {
  const passwd* pw = ::getpwuid(::geteuid());
  return pw != nullptr ? pw->pw_name : "";
}

class passticket : public ::testing::Test {
 protected:
  void SetUp() override {
    rig_ = std::make_unique<bridge_rig>(qm_mode::embedded);
    keys_ = rig_->dir.file("passticket.keys");
    {
      std::ofstream k(keys_);
      k << "IMSAPPL " << std::string(64, 'b') << "\n";
    }
    ::chmod(keys_.c_str(), 0600);
    // NONE: every message is authenticated, none from a cache [C: APP-ACCESS].
    const std::string e = rig_->start({}, {"--partner.access=NONE", "--bridge.passticket-keys=" + keys_});
    ASSERT_TRUE(e.empty()) << e;
  }
  void TearDown() override {
    if (HasFailure()) std::cerr << rig_->state() << "\n" << rig_->logs();
    rig_.reset();
  }
  ran imsreq_with(const std::string& authenticator) {
    auto args = rig_->imsreq_base();
    args.insert(args.end(), {"--persistent", "--commit-mode", "1", "--userid", os_user(), "--authenticator",
                             authenticator, "ECHO TICKET"});
    return rig_->imsreq(args);
  }

  std::unique_ptr<bridge_rig> rig_;
  std::string keys_;
};

TEST_F(passticket, UsedTwiceSecondRefused298) {
  ASSERT_FALSE(os_user().empty());
  auto keys = bridge::passticket_keys::load(keys_);
  ASSERT_TRUE(keys) << keys.error().to_string();
  const auto now =
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
          .count();
  auto ticket = keys->generate(os_user(), "IMSAPPL", now);
  ASSERT_TRUE(ticket) << ticket.error().to_string();
  ASSERT_EQ(ticket->size(), 8u);

  ran r = imsreq_with(*ticket);
  EXPECT_EQ(r.code, 0) << r.both();
  EXPECT_TRUE(contains(r.out, "ECHO TICKET")) << r.both();
  EXPECT_EQ(rig_->depth(dead_q), 0);

  // The same ticket again: a replay.
  r = imsreq_with(*ticket);
  EXPECT_EQ(r.code, 1) << r.both();
  EXPECT_TRUE(contains(r.out, "MQFB_NOT_AUTHORIZED_FOR_IMS (298)")) << r.both();
  EXPECT_FALSE(contains(r.out + r.err, *ticket)) << "the ticket shown: " << r.both();
  // The request is on the dead-letter queue with Feedback 298 in its MQDLH, never sent to IMS.
  auto dl = rig_->get_any(dead_q, milliseconds(5000));
  ASSERT_TRUE(dl) << "nothing on the dead-letter queue";
  auto dlh = mq::decode_mqdlh(dl->data, dl->md.encoding, dl->md.coded_char_set_id);
  ASSERT_TRUE(dlh) << dlh.error().to_string();
  EXPECT_EQ(dlh->reason, mq::MQFB_NOT_AUTHORIZED_FOR_IMS);
  EXPECT_EQ(rig_->depth_when(bridge_q, 0), 0);
  EXPECT_FALSE(contains(rig_->bridge_log(), *ticket)) << "the bridge logged the ticket";

  // Another ticket (tickets go by the minute: this one made a minute ago) still works: the refusal was
  // for the replay, not the user.
  ticket = keys->generate(os_user(), "IMSAPPL", now - 60);
  ASSERT_TRUE(ticket);
  r = imsreq_with(*ticket);
  EXPECT_EQ(r.code, 0) << r.both();
}

}  // namespace
}  // namespace imsb::test
