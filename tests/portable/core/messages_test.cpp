#include "imsb/core/messages.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>

TEST(messages, registry_ids_are_unique_well_formed_and_in_their_ranges) {
  std::set<std::string_view> seen;
  for (const auto& m : imsb::message_registry()) {
    ASSERT_EQ(m.id.size(), 8u) << m.id;
    EXPECT_EQ(m.id.substr(0, 3), "IMB") << m.id;
    for (char c : m.id.substr(3, 4)) EXPECT_TRUE(c >= '0' && c <= '9') << m.id;
    EXPECT_NE(std::string_view("IWES").find(m.id[7]), std::string_view::npos) << m.id;
    EXPECT_LE(m.id[3], '5') << m.id << ": ranges are IMB0xxx to IMB5xxx";
    EXPECT_TRUE(seen.insert(m.id).second) << "duplicate " << m.id;
    EXPECT_FALSE(m.text.empty());
    EXPECT_FALSE(m.action.empty());
  }
  EXPECT_EQ(imsb::find_message(imsb::msg::IMB0001E)->id, imsb::msg::IMB0001E);
  EXPECT_EQ(imsb::find_message(std::string("IMB") + "9999E"), nullptr);
}
