// Sense codes, the otma_sense category and the NAK ↔ MQ Feedback mapping ([C: IMS-FB-CODES];
// our codes for events IBM gives no value: [D], docs/design/otma.md).
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "imsb/otma/sense.hpp"

namespace imsb::otma {
namespace {

TEST(SenseTable, LooksUpBothWays) {
  for (const sense_info& s : sense_table) {
    auto by_code = find_sense(s.code);
    ASSERT_TRUE(by_code) << s.name;
    EXPECT_EQ(by_code->name, s.name);
    auto by_name = find_sense(s.name);
    ASSERT_TRUE(by_name) << s.name;
    EXPECT_EQ(by_name->code, s.code);
    EXPECT_EQ(s.name.rfind("OTMA_SENSE_", 0), 0u) << s.name;
    EXPECT_FALSE(s.meaning.empty());
  }
  EXPECT_FALSE(find_sense(std::uint16_t{0x0099}));
  EXPECT_FALSE(find_sense(std::string_view("OTMA_SENSE_NO_SUCH")));
  EXPECT_FALSE(find_sense(std::string_view("otma_sense_flood")));  // exact names
}

TEST(SenseTable, CodesAndNamesAreUnique) {
  std::set<std::uint16_t> codes;
  std::set<std::string_view> names;
  for (const sense_info& s : sense_table) {
    EXPECT_TRUE(codes.insert(s.code).second) << s.code;
    EXPECT_TRUE(names.insert(s.name).second) << s.name;
  }
  std::set<std::string_view> reason_names;
  for (const reason_info& r : reason_table) {
    EXPECT_TRUE(reason_names.insert(r.name).second) << r.name;
    EXPECT_TRUE(find_sense(r.sense)) << r.name;
  }
}

TEST(SenseTable, ConfirmedAndDesignCodesAreLabelled) {
  for (std::uint16_t d : {sense::invalid_message, sense::unknown_destination, sense::prefix_format_error,
                          sense::security_violation, sense::invalid_commit_mode, sense::invalid_name}) {
    auto s = find_sense(d);
    ASSERT_TRUE(s);
    EXPECT_FALSE(s->ibm_confirmed) << s->name;
    EXPECT_EQ(s->source, "[D] not IBM-verified");
  }
  for (std::uint16_t c :
       {sense::rrs_not_enabled, sense::rejected_see_reason, sense::cm1_on_synchronized_tpipe,
        sense::invalid_recoverable_seq, sense::seq_not_recoverable, sense::resume_tpipe_error,
        sense::syncpt_not_supported, sense::flood, sense::hold_queue_not_authorized}) {
    auto s = find_sense(c);
    ASSERT_TRUE(s);
    EXPECT_TRUE(s->ibm_confirmed) << s->name;
    EXPECT_EQ(s->source.rfind("[C", 0), 0u) << s->name;
  }
}

TEST(SenseTable, KnownValues) {
  EXPECT_EQ(find_sense("OTMA_SENSE_FLOOD")->code, 0x0030);
  EXPECT_EQ(find_sense("OTMA_SENSE_PREFIX_FORMAT_ERROR")->code, 0x0003);
  EXPECT_EQ(find_sense(std::uint16_t{0x001F})->name, "OTMA_SENSE_INVALID_RECOVERABLE_SEQ");
  EXPECT_EQ(find_sense(std::uint16_t{0x0023})->name, "OTMA_SENSE_SEQ_NOT_RECOVERABLE");
  EXPECT_EQ(find_sense(std::uint16_t{0x001C})->name, "OTMA_SENSE_CM1_ON_SYNC_TPIPE");
}

TEST(ReasonTable, HoldQueueReasonsOneToNine) {
  for (std::uint16_t r = 1; r <= 9; ++r) {
    auto info = find_reason(sense::hold_queue_not_authorized, r);
    ASSERT_TRUE(info) << r;
    EXPECT_EQ(find_reason(info->name)->reason, r);
  }
  EXPECT_FALSE(find_reason(sense::hold_queue_not_authorized, 10));
  EXPECT_EQ(find_reason(sense::resume_tpipe_error, 7)->name, "OTMA_REASON_28_CONTROL_BLOCK_TIMING");
  EXPECT_TRUE(find_reason(sense::rejected_see_reason, 0x1D));
}

TEST(SenseCategory, NameAndMessages) {
  std::error_code ec = make_sense(sense::flood);
  EXPECT_STREQ(ec.category().name(), "otma_sense");
  EXPECT_EQ(ec.value(), 0x30);
  EXPECT_EQ(&ec.category(), &otma_sense_category());
  EXPECT_NE(ec.message().find("X'0030'"), std::string::npos);
  EXPECT_NE(ec.message().find("OTMA_SENSE_FLOOD"), std::string::npos);
  EXPECT_NE(make_sense(sense::prefix_format_error).message().find("[D]"), std::string::npos);
  EXPECT_EQ(make_sense(sense::flood).message().find("[D]"), std::string::npos);
  EXPECT_NE(make_sense(0x0999).message().find("X'0999'"), std::string::npos);
  EXPECT_TRUE(make_sense(1));
  EXPECT_EQ(sense_hex(0x001A), "X'001A'");
  EXPECT_EQ(sense_hex(0xBEEF), "X'BEEF'");
}

TEST(Feedback, BoundariesFromTheBrief) {
  EXPECT_EQ(feedback_for_nak(0x1A, 0), 600);
  EXPECT_EQ(feedback_for_nak(0x1A, 255), 855);
  EXPECT_EQ(feedback_for_nak(0x30, 0), 348);
  EXPECT_EQ(feedback_for_nak(0x1F, 0), 331);
  EXPECT_EQ(feedback_for_nak(0x23, 0), 335);
  EXPECT_EQ(feedback_for_nak(0x30, 5), 348);  // the reason only matters for X'1A'
}

TEST(Feedback, OutsideTheRangesIsImsError) {
  EXPECT_EQ(feedback_for_nak(0x1A, 256), feedback::ims_error);
  EXPECT_EQ(feedback_for_nak(0x1A, 0xFFFF), 300);
  EXPECT_EQ(feedback_for_nak(0x63, 0), 399);
  EXPECT_EQ(feedback_for_nak(0x64, 0), 300);
  EXPECT_EQ(feedback_for_nak(0xFFFF, 0), 300);
  EXPECT_EQ(feedback_for_nak(0x01, 0), 301);
  EXPECT_EQ(feedback_for_nak(0x00, 0), 300);
}

TEST(Feedback, InverseMapping) {
  using nak = std::pair<std::uint16_t, std::uint16_t>;
  EXPECT_EQ(nak_for_feedback(348), (nak{0x30, 0}));
  EXPECT_EQ(nak_for_feedback(331), (nak{0x1F, 0}));
  EXPECT_EQ(nak_for_feedback(335), (nak{0x23, 0}));
  EXPECT_EQ(nak_for_feedback(301), (nak{0x01, 0}));
  EXPECT_EQ(nak_for_feedback(399), (nak{0x63, 0}));
  EXPECT_EQ(nak_for_feedback(600), (nak{0x1A, 0}));
  EXPECT_EQ(nak_for_feedback(855), (nak{0x1A, 255}));
  EXPECT_FALSE(nak_for_feedback(300));
  EXPECT_FALSE(nak_for_feedback(326));  // 300 + X'1A' is never produced
  EXPECT_FALSE(nak_for_feedback(400));
  EXPECT_FALSE(nak_for_feedback(599));
  EXPECT_FALSE(nak_for_feedback(856));
  EXPECT_FALSE(nak_for_feedback(0));
  EXPECT_FALSE(nak_for_feedback(-1));
}

TEST(Feedback, RoundTripOverTheWholeRanges) {
  for (std::uint16_t s = 1; s <= 0x63; ++s) {
    if (s == sense::rejected_see_reason) continue;
    auto back = nak_for_feedback(feedback_for_nak(s, 0));
    ASSERT_TRUE(back) << s;
    EXPECT_EQ(back->first, s);
  }
  for (std::uint16_t r = 0; r <= 255; ++r) {
    auto back = nak_for_feedback(feedback_for_nak(sense::rejected_see_reason, r));
    ASSERT_TRUE(back) << r;
    EXPECT_EQ(*back, std::make_pair(sense::rejected_see_reason, r));
  }
  for (std::int32_t fb = 250; fb < 900; ++fb) {
    if (auto n = nak_for_feedback(fb)) {
      EXPECT_EQ(feedback_for_nak(n->first, n->second), fb) << fb;
    }
  }
}

}  // namespace
}  // namespace imsb::otma
