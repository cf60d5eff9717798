// The four access levels [C: APP-ACCESS] through imsreq: what the bridge lets
// through and what IMS receives (SHOWOTMA's USERID and TOKEN, with a UTOKEN key shared by imsbridge and
// imsemu). A refusal is MQFB_NOT_AUTHORIZED_FOR_IMS (298), reported to the requester.

#include <gtest/gtest.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <string>
#include <vector>

#include "bridge_e2e.hpp"

namespace imsb::test {
namespace {

std::string os_user() {
  const passwd* pw = ::getpwuid(::geteuid());
  return pw != nullptr ? pw->pw_name : "";
}
std::string upper(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return s;
}

class security : public ::testing::Test {
 protected:
  void start(const std::string& access) {
    rig_ = std::make_unique<bridge_rig>(qm_mode::embedded);
    keys_ = rig_->dir.file("passticket.keys");
    utoken_ = rig_->dir.file("utoken.key");
    {
      std::ofstream k(keys_);
      k << "IMSAPPL " << std::string(64, 'a') << "\n";
      std::ofstream u(utoken_);
      u << std::string(64, '5') << "\n";
    }
    ::chmod(keys_.c_str(), 0600);
    ::chmod(utoken_.c_str(), 0600);
    const std::string e = rig_->start(
        {},  // the sample storage class has PASSTKTA(IMSAPPL)
        {"--partner.access=" + access, "--bridge.passticket-keys=" + keys_, "--bridge.utoken-key=" + utoken_},
        {"--utoken-key", utoken_});
    ASSERT_TRUE(e.empty()) << e;
  }
  void TearDown() override {
    if (HasFailure() && rig_) std::cerr << rig_->state() << "\n" << rig_->logs();
  }
  ran showotma(const std::vector<std::string>& extra) {
    auto args = rig_->imsreq_base();
    args.insert(args.end(), {"--persistent", "--commit-mode", "1"});
    args.insert(args.end(), extra.begin(), extra.end());
    args.push_back("SHOWOTMA");
    return rig_->imsreq(args);
  }
  std::vector<std::string> ticket() const { return {"--passticket", "IMSAPPL", "--passticket-keys", keys_}; }

  std::unique_ptr<bridge_rig> rig_;
  std::string keys_, utoken_;
};

TEST_F(security, ControlSendsNoToken) {
  ASSERT_NO_FATAL_FAILURE(start("CONTROL"));
  const ran r = showotma({"--userid", os_user()});
  EXPECT_EQ(r.code, 0) << r.both();
  EXPECT_TRUE(contains(upper(r.out), "USERID=" + upper(os_user()))) << r.both();
  EXPECT_TRUE(contains(r.out, "TOKEN=NONE")) << r.both();
}

TEST_F(security, UpdateChecksOnlyThatTheUserExists) {
  ASSERT_NO_FATAL_FAILURE(start("UPDATE"));
  ran r = showotma({"--userid", os_user()});
  EXPECT_EQ(r.code, 0) << r.both();
  EXPECT_TRUE(contains(r.out, "TOKEN=VERIFIED")) << r.both();
  r = showotma({"--userid", "nosuchusr9"});
  EXPECT_EQ(r.code, 1) << r.both();
  EXPECT_TRUE(contains(r.out, "MQFB_NOT_AUTHORIZED_FOR_IMS (298)")) << r.both();
}

TEST_F(security, ReadAuthenticatesOnceThenCaches) {
  ASSERT_NO_FATAL_FAILURE(start("READ"));
  ran r = showotma({"--userid", os_user()});  // never authenticated: refused
  EXPECT_EQ(r.code, 1) << r.both();
  EXPECT_TRUE(contains(r.out, "(298)")) << r.both();
  auto with_ticket = ticket();
  with_ticket.insert(with_ticket.end(), {"--userid", os_user()});
  r = showotma(with_ticket);
  EXPECT_EQ(r.code, 0) << r.both();
  EXPECT_TRUE(contains(r.out, "TOKEN=VERIFIED")) << r.both();
  r = showotma({"--userid", os_user()});  // cached for the OTMACON age
  EXPECT_EQ(r.code, 0) << r.both();
}

TEST_F(security, NoneAuthenticatesEveryMessage) {
  ASSERT_NO_FATAL_FAILURE(start("NONE"));
  auto with_ticket = ticket();
  with_ticket.insert(with_ticket.end(), {"--userid", os_user()});
  ran r = showotma(with_ticket);
  EXPECT_EQ(r.code, 0) << r.both();
  EXPECT_TRUE(contains(r.out, "TOKEN=VERIFIED")) << r.both();
  r = showotma({"--userid", os_user()});  // no cache at NONE
  EXPECT_EQ(r.code, 1) << r.both();
  r = showotma({"--userid", os_user(), "--authenticator", "WRONGPW"});
  EXPECT_EQ(r.code, 1) << r.both();
  EXPECT_TRUE(contains(r.out, "(298)")) << r.both();
}

}  // namespace
}  // namespace imsb::test
