// describe(return_code) and the names of states and events (imsb/xcf/member.hpp).
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "imsb/xcf/member.hpp"

namespace imsb::xcf {
namespace {

TEST(XcfDescribe, NamesTheCodeInZosStyle) {
  EXPECT_EQ(describe(codes::not_active), "rc 8 rsn X'04': target member not active");
  EXPECT_EQ(describe(codes::ok), "rc 0 rsn X'00': ok");
  EXPECT_EQ(describe(codes::was_quiesced), "rc 4 rsn X'0C': re-joined a quiesced member");
  EXPECT_EQ(describe(codes::resource_shortage),
            "rc 12 rsn X'00': resource shortage: buffers for the target are full");
}

TEST(XcfDescribe, EveryDeclaredCodeHasItsOwnMeaning) {
  const return_code all[] = {codes::ok,
                             codes::first_active,
                             codes::was_failed,
                             codes::was_quiesced,
                             codes::not_active,
                             codes::already_active,
                             codes::already_quiesced,
                             codes::too_big,
                             codes::bad_name,
                             codes::not_authorized,
                             codes::protocol_error,
                             codes::not_found,
                             codes::resource_shortage,
                             codes::link_down,
                             codes::injected_failure};
  std::set<std::string> seen;
  for (const auto& c : all) {
    const std::string text = describe(c);
    const std::string prefix = "rc " + std::to_string(c.rc) + " rsn X'";
    EXPECT_EQ(text.rfind(prefix, 0), 0u) << text;
    const auto colon = text.find("': ");
    ASSERT_NE(colon, std::string::npos) << text;
    EXPECT_GT(text.size(), colon + 3) << text;
    EXPECT_TRUE(seen.insert(text.substr(colon + 3)).second) << "meaning used twice: " << text;
  }
}

TEST(XcfDescribe, UnknownCodesShowNumbersOnly) {
  EXPECT_EQ(describe({16, 0}), "rc 16 rsn X'00'");
  EXPECT_EQ(describe({8, 0xFF}), "rc 8 rsn X'FF'");
  EXPECT_EQ(describe({4, 0x123}), "rc 4 rsn X'0123'");
  EXPECT_EQ(describe({0xFFFFFFFF, 0xFFFFFFFF}), "rc 4294967295 rsn X'FFFFFFFF'");
  EXPECT_EQ(describe({0, 4}), "rc 0 rsn X'04'");
}

TEST(XcfReturnCode, OkMeansDone) {
  EXPECT_TRUE(codes::ok.ok());
  EXPECT_TRUE(codes::was_failed.ok());
  EXPECT_FALSE(codes::not_active.ok());
  EXPECT_FALSE(codes::link_down.ok());
}

TEST(XcfNames, StatesAndEvents) {
  EXPECT_EQ(to_string(member_state::not_defined), "not-defined");
  EXPECT_EQ(to_string(member_state::created), "created");
  EXPECT_EQ(to_string(member_state::active), "active");
  EXPECT_EQ(to_string(member_state::quiesced), "quiesced");
  EXPECT_EQ(to_string(member_state::failed), "failed");
  EXPECT_EQ(to_string(static_cast<member_state>(9)), "unknown");
  std::set<std::string_view> kinds;
  for (int k = 1; k <= 7; ++k) kinds.insert(to_string(static_cast<event_kind>(k)));
  EXPECT_EQ(kinds.size(), 7u);
  EXPECT_EQ(kinds.count("unknown"), 0u);
  EXPECT_EQ(to_string(event_kind::status_missing), "status-missing");
  EXPECT_EQ(to_string(event_kind::user_state), "user-state");
  EXPECT_EQ(to_string(static_cast<event_kind>(0)), "unknown");
}

}  // namespace
}  // namespace imsb::xcf
