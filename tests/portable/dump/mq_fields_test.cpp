#include "imsb/dump/mq_fields.hpp"

#include <gtest/gtest.h>

#include "imsb/mq/constants.hpp"
#include "imsb/mq/mqiih.hpp"
#include "imsb/mq/mqmd.hpp"

namespace imsb::dump {
namespace {

using namespace imsb::mq;

TEST(MqFields, ReportOptionsAreSpelledOut) {
  EXPECT_EQ(describe_report(MQRO_EXCEPTION_WITH_DATA | MQRO_PASS_MSG_ID),
            "MQRO_EXCEPTION_WITH_DATA + MQRO_PASS_MSG_ID");
  EXPECT_EQ(describe_report(MQRO_EXCEPTION | MQRO_COA_WITH_FULL_DATA | MQRO_COD | MQRO_PASS_CORREL_ID),
            "MQRO_EXCEPTION + MQRO_COA_WITH_FULL_DATA + MQRO_COD + MQRO_PASS_CORREL_ID");
  EXPECT_EQ(describe_report(MQRO_EXPIRATION_WITH_FULL_DATA | MQRO_DISCARD_MSG | MQRO_PASS_DISCARD_AND_EXPIRY),
            "MQRO_EXPIRATION_WITH_FULL_DATA + MQRO_PASS_DISCARD_AND_EXPIRY + MQRO_DISCARD_MSG");
  EXPECT_EQ(describe_report(MQRO_PAN | MQRO_NAN | MQRO_ACTIVITY), "MQRO_PAN + MQRO_NAN + MQRO_ACTIVITY");
  EXPECT_EQ(describe_report(0x10000000), "unknown options X'10000000'");
  // 0x02000000 alone is the "with data" bit without the exception bit: no option.
  EXPECT_EQ(describe_report(0x02000000), "unknown options X'02000000'");
  EXPECT_NE(describe_report(MQRO_NONE).find("MQRO_NONE"), std::string::npos);
}

TEST(MqFields, CodedValues) {
  EXPECT_NE(describe_msg_type(MQMT_REQUEST).find("MQMT_REQUEST"), std::string::npos);
  EXPECT_EQ(describe_msg_type(70000), "application-defined message type");
  EXPECT_EQ(describe_msg_type(0), "not a valid message type");
  EXPECT_EQ(describe_expiry(125), "12.5 seconds left (tenths of a second)");
  EXPECT_NE(describe_expiry(MQEI_UNLIMITED).find("MQEI_UNLIMITED"), std::string::npos);
  EXPECT_NE(describe_persistence(MQPER_PERSISTENT).find("MQPER_PERSISTENT"), std::string::npos);
  EXPECT_EQ(describe_persistence(7), "not a valid persistence");
  EXPECT_EQ(describe_priority(5), "");
  EXPECT_EQ(describe_priority(10), "not a valid priority (0..9)");
  EXPECT_NE(describe_put_appl_type(MQAT_IMS_BRIDGE).find("MQAT_IMS_BRIDGE"), std::string::npos);
  EXPECT_EQ(describe_msg_flags(MQMF_SEGMENT | MQMF_LAST_SEGMENT), "MQMF_SEGMENT + MQMF_LAST_SEGMENT");
}

TEST(MqFields, EncodingNamesEachPartAndThePlatform) {
  EXPECT_EQ(
      describe_encoding(546),
      "integers little-endian (MQENC_INTEGER_REVERSED), decimal reversed, float IEEE reversed (native on "
      "Linux x86-64 and Windows)");
  EXPECT_EQ(describe_encoding(785),
            "integers big-endian (MQENC_INTEGER_NORMAL), decimal normal, float S/390 (native on z/OS)");
  EXPECT_EQ(describe_encoding(0), "integer byte order undefined");
  EXPECT_EQ(describe_encoding(0x1003), "integer byte order not valid; unknown bits X'00001000'");
}

TEST(MqFields, CcsidAndFormat) {
  EXPECT_EQ(describe_ccsid(500), "EBCDIC International (IBM-500)");
  EXPECT_NE(describe_ccsid(0).find("MQCCSI_Q_MGR"), std::string::npos);
  EXPECT_NE(describe_ccsid(9999).find("cannot show"), std::string::npos);
  EXPECT_EQ(describe_format("MQIMS   "), "MQFMT_IMS: an MQIIH follows");
  EXPECT_EQ(describe_format(std::string("MQDEAD\0\0", 8)), "MQFMT_DEAD_LETTER_HEADER: an MQDLH follows");
  EXPECT_NE(describe_format("        ").find("MQFMT_NONE"), std::string::npos);
  EXPECT_NE(describe_format("PARTMID ").find("MFS map name"), std::string::npos);
  EXPECT_EQ(describe_ccsid(273), "EBCDIC, not converted by mqdump: text is shown as CCSID 037");
}

// A user format name is the MFS map name only in MQMD.Format without an MQIIH [C: BRIDGE-MSGS];
// after an MQIIH it names the data, and in ReplyToFormat it is what the reply's MQIIH will carry.
TEST(MqFields, UserFormatNameIsWordedForItsField) {
  const std::string md = describe_format("PARTMID ", format_field::message);
  EXPECT_NE(md.find("MFS map name"), std::string::npos) << md;
  EXPECT_EQ(describe_format("PARTMID "), md);  // the default
  const std::string iih = describe_format("PARTMID ", format_field::iih_format);
  EXPECT_EQ(iih.find("the name is the MFS map name"), std::string::npos) << iih;
  EXPECT_NE(iih.find("the data after the MQIIH"), std::string::npos) << iih;
  EXPECT_NE(iih.find("MQIIH.MFSMapName"), std::string::npos) << iih;
  const std::string reply = describe_format("PARTMID ", format_field::iih_reply_to_format);
  EXPECT_EQ(reply.find("MFS map name"), std::string::npos) << reply;
  EXPECT_NE(reply.find("the Format the reply's MQIIH will carry"), std::string::npos) << reply;
  EXPECT_NE(describe_format("MQSTR   ", format_field::iih_reply_to_format).find("MQFMT_STRING"),
            std::string::npos);
  EXPECT_NE(describe_format("MQSTR   ", format_field::iih_reply_to_format).find("the reply's MQIIH"),
            std::string::npos);
  EXPECT_NE(describe_format("        ", format_field::iih_reply_to_format).find("MOD name"),
            std::string::npos);
  EXPECT_EQ(describe_format("MQIMSVS ", format_field::iih_format),
            "MQFMT_IMS_VAR_STRING: LLZZ segments of character data follow");
}

TEST(MqFields, FieldMeaningPassesTheFormatField) {
  const mq::layout& iih = mq::mqiih_layout();
  mq::field_value f;
  f.desc = mq::find_field(iih, "Format");
  f.text = "PARTMID ";
  EXPECT_EQ(field_meaning("MQIIH", f, 819), describe_format(f.text, format_field::iih_format));
  EXPECT_EQ(field_meaning("MQMD", f, 819), describe_format(f.text, format_field::message));
  f.desc = mq::find_field(iih, "ReplyToFormat");
  EXPECT_EQ(field_meaning("MQIIH", f, 819), describe_format(f.text, format_field::iih_reply_to_format));
}

TEST(MqFields, MqiihValues) {
  EXPECT_EQ(describe_iih_flags(MQIIH_PASS_EXPIRATION | MQIIH_IGNORE_PURG),
            "MQIIH_PASS_EXPIRATION + MQIIH_IGNORE_PURG");
  EXPECT_EQ(describe_iih_flags(0x42), "undefined flags X'00000042' (ignored)");
  EXPECT_EQ(describe_iih_flags(MQIIH_REPLY_FORMAT_NONE | MQIIH_CM0_REQUEST_RESPONSE),
            "MQIIH_REPLY_FORMAT_NONE + MQIIH_CM0_REQUEST_RESPONSE");
  EXPECT_NE(describe_tran_state('C').find("MQITS_IN_CONVERSATION"), std::string::npos);
  EXPECT_NE(describe_commit_mode('1').find("CM1"), std::string::npos);
  EXPECT_EQ(describe_commit_mode('2'), "not a valid CommitMode");
  EXPECT_NE(describe_security_scope('X').find("MQISS_CHECK is assumed"), std::string::npos);
}

TEST(MqFields, HeaderNodeHasEveryFieldAtItsAbsoluteOffset) {
  mqmd md;
  md.version = 2;
  md.report = MQRO_COA;
  md.feedback = MQFB_BUFFER_OVERFLOW;
  md.format = "MQIMS   ";
  bytes buf(10, 0xFF);  // the MQMD starts at offset 10
  encode_mqmd(md, 785, 500, buf);
  node n = mq_header_node(mqmd_layout(2), buf, 10, 785, 500);
  EXPECT_EQ(n.kind, node_kind::structure);
  EXPECT_EQ(n.name, "MQMD");
  EXPECT_EQ(n.offset, 10u);
  EXPECT_EQ(n.length, 364u);
  ASSERT_EQ(n.children.size(), 29u);
  const node* report = n.find("Report");
  ASSERT_NE(report, nullptr);
  EXPECT_EQ(report->offset, 18u);
  EXPECT_EQ(report->value, "X'00000100'");
  EXPECT_EQ(report->number, MQRO_COA);
  EXPECT_EQ(report->meaning, "MQRO_COA");
  const node* fb = n.find("Feedback");
  ASSERT_NE(fb, nullptr);
  EXPECT_NE(fb->meaning.find("MQFB_BUFFER_OVERFLOW"), std::string::npos);
  EXPECT_EQ(n.find("StrucId")->meaning, "EBCDIC");
  EXPECT_EQ(n.find("Format")->value, "'MQIMS   '");
  EXPECT_EQ(n.find("Encoding")->value.substr(0, 3), "546");  // the MQMD's default Encoding field
  EXPECT_EQ(n.find("MsgId")->value, "X'000000000000000000000000000000000000000000000000'");
  EXPECT_EQ(n.find("MsgId")->meaning, "MQMI_NONE");
  EXPECT_EQ(n.find("OriginalLength")->offset, 370u);
}

TEST(MqFields, ShortBufferGivesTheFieldsThatFit) {
  mqiih iih;
  bytes buf;
  encode_mqiih(iih, 546, 819, buf);
  buf.resize(30);
  node n = mq_header_node(mqiih_layout(), buf, 0, 546, 819);
  EXPECT_EQ(n.length, 30u);
  ASSERT_EQ(n.children.size(), 6u);  // StrucId .. Format (ends at 28)
  EXPECT_EQ(n.children.back().name, "Format");
}

TEST(MqFields, MqiihFieldMeanings) {
  mqiih iih;
  iih.struc_length = 80;
  iih.commit_mode = '1';
  iih.lterm_override = "LTERM1  ";
  bytes buf;
  encode_mqiih(iih, 273, 819, buf);
  node n = mq_header_node(mqiih_layout(), buf, 0, 273, 819);
  EXPECT_EQ(n.find("StrucLength")->meaning, "not valid: must be 84 (MQIIH_LENGTH_1)");
  EXPECT_NE(n.find("CommitMode")->meaning.find("MQICM_SEND_THEN_COMMIT"), std::string::npos);
  EXPECT_EQ(n.find("LTermOverride")->meaning, "");
  EXPECT_EQ(n.find("TranInstanceId")->meaning, "MQITII_NONE: not in a conversation");
  EXPECT_EQ(n.find("Encoding")->meaning, "reserved (0)");
}

}  // namespace
}  // namespace imsb::dump
