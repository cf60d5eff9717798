#include "imsb/mq/codes.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <regex>
#include <set>
#include <string>

#include "imsb/core/result.hpp"
#include "imsb/mq/constants.hpp"
#include "vectors.hpp"

namespace imsb::mq {
namespace {

bool starts_with(const std::string& s, std::string_view prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

TEST(MqCodes, LookupBothWays) {
  const code_info* by_value = find_mqrc(2148);
  ASSERT_NE(by_value, nullptr);
  EXPECT_EQ(by_value->name, "MQRC_IIH_ERROR");
  const code_info* by_name = find_mqrc("MQRC_IIH_ERROR");
  ASSERT_NE(by_name, nullptr);
  EXPECT_EQ(by_name->value, 2148);
  EXPECT_EQ(by_name, by_value);

  ASSERT_NE(find_mqfb(296), nullptr);
  EXPECT_EQ(find_mqfb(296)->name, "MQFB_IIH_ERROR");
  ASSERT_NE(find_mqfb("MQFB_DATA_LENGTH_ZERO"), nullptr);
  EXPECT_EQ(find_mqfb("MQFB_DATA_LENGTH_ZERO")->value, 291);

  EXPECT_EQ(find_mqrc(2149), nullptr);
  EXPECT_EQ(find_mqrc(-1), nullptr);
  EXPECT_EQ(find_mqrc("MQRC_NO_SUCH_THING"), nullptr);
  EXPECT_EQ(find_mqrc("MQFB_IIH_ERROR"), nullptr);  // the tables are separate
  EXPECT_EQ(find_mqfb(297), nullptr);
  EXPECT_EQ(find_mqfb(""), nullptr);
}

void expect_table_consistent(const std::vector<code_info>& table, std::string_view prefix,
                             const code_info* (*by_value)(std::int32_t),
                             const code_info* (*by_name)(std::string_view)) {
  ASSERT_FALSE(table.empty());
  std::set<std::string_view> names;
  for (std::size_t i = 0; i < table.size(); ++i) {
    const code_info& c = table[i];
    SCOPED_TRACE(std::string(c.name));
    EXPECT_EQ(c.name.substr(0, prefix.size()), prefix);
    EXPECT_FALSE(c.meaning.empty());
    EXPECT_TRUE(names.insert(c.name).second) << "duplicate name";
    if (i > 0) {
      EXPECT_LT(table[i - 1].value, c.value) << "not in value order";
    }
    ASSERT_NE(by_value(c.value), nullptr);
    EXPECT_EQ(by_value(c.value)->name, c.name);
    ASSERT_NE(by_name(c.name), nullptr);
    EXPECT_EQ(by_name(c.name)->value, c.value);
  }
}

TEST(MqCodes, TablesAreConsistent) {
  expect_table_consistent(all_mqrc(), "MQRC_", find_mqrc, find_mqrc);
  expect_table_consistent(all_mqfb(), "MQFB_", find_mqfb, find_mqfb);
}

// Every MQRC_/MQFB_ constant in constants.hpp has a table entry with the same value: read from the
// header's text, so a constant added without a table entry fails here.
TEST(MqCodes, EveryConstantInConstantsHppIsInTheTables) {
  const std::string header =
      test::read_text(test::vectors_dir() + "/../../portable/include/imsb/mq/constants.hpp");
  const std::regex def(R"(inline constexpr std::int32_t (MQ(RC|FB)_[A-Z0-9_]+) = (-?(0x)?[0-9A-Fa-f]+);)");
  int rc_count = 0;
  int fb_count = 0;
  for (auto it = std::sregex_iterator(header.begin(), header.end(), def); it != std::sregex_iterator();
       ++it) {
    const std::string name = (*it)[1];
    const auto value = static_cast<std::int32_t>(std::strtol((*it)[3].str().c_str(), nullptr, 0));
    SCOPED_TRACE(name);
    const bool is_rc = (*it)[2] == "RC";
    (is_rc ? rc_count : fb_count)++;
    const code_info* by_name = is_rc ? find_mqrc(name) : find_mqfb(name);
    ASSERT_NE(by_name, nullptr) << "no table entry";
    EXPECT_EQ(by_name->value, value);
    const code_info* by_value = is_rc ? find_mqrc(value) : find_mqfb(value);
    ASSERT_NE(by_value, nullptr);
    EXPECT_EQ(by_value->value, value);
  }
  EXPECT_EQ(rc_count, static_cast<int>(all_mqrc().size()));
  EXPECT_EQ(fb_count, static_cast<int>(all_mqfb().size()));
  EXPECT_GE(rc_count, 46);
  EXPECT_GE(fb_count, 31);
}

TEST(MqCodes, CompiledConstantsMatchTheirEntries) {
  const std::pair<std::int32_t, const char*> rcs[] = {
      {MQRC_IIH_ERROR, "MQRC_IIH_ERROR"},
      {MQRC_MD_ERROR, "MQRC_MD_ERROR"},
      {MQRC_DLH_ERROR, "MQRC_DLH_ERROR"},
      {MQRC_XQH_ERROR, "MQRC_XQH_ERROR"},
      {MQRC_FORMAT_ERROR, "MQRC_FORMAT_ERROR"},
      {MQRC_UNKNOWN_REMOTE_Q_MGR, "MQRC_UNKNOWN_REMOTE_Q_MGR"},
      {MQRC_Q_FULL, "MQRC_Q_FULL"},
      {MQRC_BRIDGE_STOPPED, "MQRC_BRIDGE_STOPPED"},
  };
  for (const auto& [value, name] : rcs) EXPECT_EQ(find_mqrc(value)->name, name);
  const std::pair<std::int32_t, const char*> fbs[] = {
      {MQFB_IIH_ERROR, "MQFB_IIH_ERROR"},   {MQFB_NOT_AUTHORIZED_FOR_IMS, "MQFB_NOT_AUTHORIZED_FOR_IMS"},
      {MQFB_IMS_ERROR, "MQFB_IMS_ERROR"},   {MQFB_IMS_NACK_1A_REASON_LAST, "MQFB_IMS_NACK_1A_REASON_LAST"},
      {MQFB_EXPIRATION, "MQFB_EXPIRATION"},
  };
  for (const auto& [value, name] : fbs) EXPECT_EQ(find_mqfb(value)->name, name);
  EXPECT_EQ(MQRC_IIH_ERROR, 0x864);
  EXPECT_EQ(MQRC_BRIDGE_STARTED, 0x84D);
  EXPECT_EQ(MQFB_IMS_LAST, 0x18F);
  EXPECT_EQ(MQFB_IMS_NACK_1A_REASON_LAST, 0x357);
}

TEST(MqCodes, DescribeFeedbackImsRanges) {
  // spec/mq.md §3.3: "Dead letter reason code 326 (X'146')" = 300 + sense X'1A'.
  EXPECT_EQ(describe_feedback(326), "MQFB_IMS_ERROR+26 (326): IMS-OTMA NAK sense X'001A'");
  EXPECT_EQ(describe_feedback(301), "MQFB_IMS_ERROR+1 (301): IMS-OTMA NAK sense X'0001'");
  EXPECT_EQ(describe_feedback(399), "MQFB_IMS_ERROR+99 (399): IMS-OTMA NAK sense X'0063'");
  EXPECT_EQ(describe_feedback(335), "MQFB_IMS_ERROR+35 (335): IMS-OTMA NAK sense X'0023'");
  EXPECT_EQ(describe_feedback(600),
            "MQFB_IMS_NACK_1A_REASON_FIRST+0 (600): OTMA NAK sense X'001A', reason X'00'");
  EXPECT_EQ(describe_feedback(605),
            "MQFB_IMS_NACK_1A_REASON_FIRST+5 (605): OTMA NAK sense X'001A', reason X'05'");
  EXPECT_EQ(describe_feedback(855),
            "MQFB_IMS_NACK_1A_REASON_FIRST+255 (855): OTMA NAK sense X'001A', reason X'FF'");
}

TEST(MqCodes, DescribeFeedbackNamedAndOtherValues) {
  EXPECT_TRUE(starts_with(describe_feedback(296), "MQFB_IIH_ERROR (296): ")) << describe_feedback(296);
  EXPECT_TRUE(starts_with(describe_feedback(300), "MQFB_IMS_ERROR (300): "));
  EXPECT_TRUE(starts_with(describe_feedback(0), "MQFB_NONE (0): "));
  EXPECT_TRUE(starts_with(describe_feedback(258), "MQFB_EXPIRATION (258): "));
  EXPECT_TRUE(starts_with(describe_feedback(2053), "MQRC_Q_FULL (2053): ")) << describe_feedback(2053);
  EXPECT_EQ(describe_feedback(70000), "MQFB 70000: application feedback");
  EXPECT_EQ(describe_feedback(400), "MQFB 400: unknown system feedback");
  EXPECT_EQ(describe_feedback(-5), "MQFB -5: not a valid feedback value");
  EXPECT_EQ(describe_feedback(1000000000), "MQFB 1000000000: not a valid feedback value");
}

TEST(MqCodes, DescribeReason) {
  EXPECT_TRUE(starts_with(describe_reason(2148), "MQRC_IIH_ERROR (2148): "));
  EXPECT_EQ(describe_reason(9999), "MQRC 9999: unknown reason code");
}

TEST(MqCodes, ErrorCategories) {
  const std::error_code rc = make_mqrc(MQRC_IIH_ERROR);
  EXPECT_EQ(rc.value(), 2148);
  EXPECT_EQ(&rc.category(), &mqrc_category());
  EXPECT_STREQ(rc.category().name(), "mqrc");
  EXPECT_TRUE(starts_with(rc.message(), "MQRC_IIH_ERROR (2148): ")) << rc.message();
  EXPECT_TRUE(static_cast<bool>(rc));
  EXPECT_FALSE(static_cast<bool>(make_mqrc(MQRC_NONE)));

  const std::error_code fb = make_mqfb(MQFB_DATA_LENGTH_ZERO);
  EXPECT_EQ(&fb.category(), &mqfb_category());
  EXPECT_STREQ(fb.category().name(), "mqfb");
  EXPECT_TRUE(starts_with(fb.message(), "MQFB_DATA_LENGTH_ZERO (291): ")) << fb.message();
  EXPECT_EQ(make_mqfb(326).message(), describe_feedback(326));
  EXPECT_NE(make_mqfb(2148), make_mqrc(2148));  // same number, different categories

  decode_error e{make_mqrc(MQRC_IIH_ERROR), "MQIIH.StrucLength", 8, "is 80, must be 84"};
  EXPECT_NE(e.to_string().find("MQRC_IIH_ERROR (2148)"), std::string::npos) << e.to_string();
}

}  // namespace
}  // namespace imsb::mq
