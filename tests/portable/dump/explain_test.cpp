#include "imsb/dump/explain.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "imsb/core/messages.hpp"
#include "imsb/dump/render.hpp"
#include "imsb/mq/codes.hpp"
#include "json_check.hpp"

namespace imsb::dump {
namespace {

std::vector<std::string> kinds(const explanation& ex) {
  std::vector<std::string> out;
  for (const auto& c : ex.document.children) out.push_back(c.name);
  return out;
}

const node* field(const node& n, const std::string& name) {
  for (const auto& c : n.children)
    if (c.name == name) return &c;
  return nullptr;
}

TEST(Explain, FeedbackNumberAndName) {
  for (const char* code : {"294", "MQFB_BUFFER_OVERFLOW", "mqfb_buffer_overflow", "X'126'", "0x126"}) {
    SCOPED_TRACE(code);
    explanation ex = explain_code(code);
    ASSERT_TRUE(ex.known);
    ASSERT_EQ(kinds(ex), std::vector<std::string>{"MQFB"});
    const node& fb = ex.document.children[0];
    EXPECT_EQ(fb.number, 294);
    EXPECT_EQ(fb.value, "294 (X'00000126')");
    EXPECT_EQ(fb.meaning, mq::describe_feedback(294));
    EXPECT_NE(ex.document.meaning.find("MQFB"), std::string::npos);
  }
}

TEST(Explain, ReasonCode) {
  explanation ex = explain_code("2087");
  ASSERT_TRUE(ex.known);
  ASSERT_EQ(kinds(ex), std::vector<std::string>{"MQRC"});
  EXPECT_NE(ex.document.children[0].meaning.find("MQRC_UNKNOWN_REMOTE_Q_MGR"), std::string::npos);
  EXPECT_EQ(explain_code("MQRC_UNKNOWN_REMOTE_Q_MGR").document.children[0].number, 2087);
}

TEST(Explain, AmbiguousNumberGivesBoth) {
  explanation ex = explain_code("0");
  ASSERT_TRUE(ex.known);
  EXPECT_EQ(kinds(ex), (std::vector<std::string>{"MQRC", "MQFB"}));
  EXPECT_EQ(ex.document.meaning, "more than one meaning: MQRC, MQFB");
}

TEST(Explain, SenseAndReasonGiveTheFeedback) {
  explanation ex = explain_code("sense 0x1A reason 0x27");
  ASSERT_TRUE(ex.known);
  ASSERT_EQ(kinds(ex), std::vector<std::string>{"OTMA sense"});
  const node& s = ex.document.children[0];
  EXPECT_EQ(s.number, 0x1A);
  EXPECT_NE(s.meaning.find("OTMA_SENSE_REJECTED_SEE_REASON"), std::string::npos);
  ASSERT_NE(field(s, "reason"), nullptr);
  EXPECT_EQ(field(s, "reason")->value, "X'0027' (39)");
  ASSERT_NE(field(s, "feedback"), nullptr);
  EXPECT_EQ(field(s, "feedback")->number, 600 + 0x27);
}

TEST(Explain, SenseFormsAreHex) {
  for (const char* code : {"sense X'30'", "sense 0x30", "sense 30", "SENSE x'0030'"}) {
    SCOPED_TRACE(code);
    explanation ex = explain_code(code);
    ASSERT_TRUE(ex.known);
    const node& s = ex.document.children[0];
    EXPECT_NE(s.meaning.find("OTMA_SENSE_FLOOD"), std::string::npos);
    EXPECT_EQ(field(s, "feedback")->number, 348);
  }
}

TEST(Explain, HexCanBeASenseCode) {
  explanation ex = explain_code("0x1A");
  ASSERT_TRUE(ex.known);
  EXPECT_EQ(kinds(ex), std::vector<std::string>{"OTMA sense"});
  EXPECT_NE(field(ex.document.children[0], "note"), nullptr);  // give the reason too
}

TEST(Explain, ImsFeedbackRangesDecodeBackToSenseAndReason) {
  explanation ex = explain_code("348");
  ASSERT_TRUE(ex.known);
  const node& fb = ex.document.children[0];
  ASSERT_NE(field(fb, "sense"), nullptr);
  EXPECT_EQ(field(fb, "sense")->value, "X'0030' (48)");
  EXPECT_EQ(field(fb, "reason"), nullptr);

  explanation ex2 = explain_code("639");
  ASSERT_TRUE(ex2.known);
  const node& fb2 = ex2.document.children[0];
  EXPECT_EQ(field(fb2, "sense")->value, "X'001A' (26)");
  EXPECT_EQ(field(fb2, "reason")->value, "X'0027' (39)");

  explanation ex3 = explain_code("MQFB_IMS_ERROR+48");
  ASSERT_TRUE(ex3.known);
  EXPECT_EQ(ex3.document.children[0].number, 348);
  EXPECT_TRUE(explain_code("855").known);
  EXPECT_TRUE(explain_code("301").known);
}

TEST(Explain, SenseAndReasonNames) {
  explanation ex = explain_code("OTMA_SENSE_FLOOD");
  ASSERT_TRUE(ex.known);
  EXPECT_EQ(ex.document.children[0].number, 0x30);
  explanation ex2 = explain_code("OTMA_REASON_33_USER_ID_REQUIRED");
  ASSERT_TRUE(ex2.known);
  EXPECT_EQ(field(ex2.document.children[0], "reason")->value, "X'0002' (2)");
}

TEST(Explain, UnknownCodesSayWhy) {
  for (const char* code : {"bogus", "99999999", "-5", "", "MQRC_NOT_A_CODE", "sense", "sense 0x1A reason",
                           "sense zz", "sense 0x99", "294 295", "0x", "X''", "12345678901"}) {
    SCOPED_TRACE(code);
    explanation ex = explain_code(code);
    EXPECT_FALSE(ex.known);
    ASSERT_FALSE(ex.document.children.empty());
    EXPECT_EQ(ex.document.children.back().kind, node_kind::error);
    EXPECT_EQ(ex.document.children.back().id, imsb::msg::IMB4005E);
    EXPECT_EQ(test::json_error(render_json(ex.document)), "");
  }
}

TEST(Explain, RendersWithoutOffsets) {
  const std::string t = render_text(explain_code("294").document);
  EXPECT_EQ(t.substr(0, 13), "explain: 294 ");
  EXPECT_NE(t.find("\nMQFB                     294 (X'00000126')  = MQFB_BUFFER_OVERFLOW"), std::string::npos)
      << t;
}

}  // namespace
}  // namespace imsb::dump
