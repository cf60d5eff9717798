// Security data [C: IMS-SEC, ICON-SEC]: flag, subfield-length byte, len/type/data subfields.
#include <gtest/gtest.h>

#include "imsb/otma/message.hpp"
#include "imsb/otma/security_data.hpp"
#include "otma_test_support.hpp"

namespace imsb::otma {
namespace {

using test::hex;

constexpr std::size_t at = 100;  // an arbitrary section offset for error reports

bytes section_of(const security_data& se) {
  bytes out;
  append_security_data(se, out);
  return out;
}

TEST(SecurityData, UserIdAndProfileAsIMSConnectWritesThem) {
  security_data se;
  se.flag = security_flag::check;
  se.set_user_id("USER1");
  se.set_profile("GROUP1");
  bytes b = section_of(se);
  // len X'18', flag C'C', X'14' of subfields = user ID + group, each X'09' type + 8 [C: ICON-SEC]
  EXPECT_EQ(b, hex("0018 C3 14 09 02 E4E2C5D9F1404040 09 03 C7D9D6E4D7F14040"));
  auto back = decode_security_data(b, at);
  ASSERT_TRUE(back.ok()) << back.error().to_string();
  EXPECT_EQ(*back, se);
  EXPECT_EQ(back->user_id(), "USER1");
  EXPECT_EQ(back->profile(), "GROUP1");
  EXPECT_FALSE(back->utoken().has_value());
}

TEST(SecurityData, FlagLetters) {
  EXPECT_EQ(security_flag::none, 0xD5);   // C'N'
  EXPECT_EQ(security_flag::check, 0xC3);  // C'C'
  EXPECT_EQ(security_flag::full, 0xC6);   // C'F'
  EXPECT_EQ(security_type::utoken, 0x00);
  EXPECT_EQ(security_type::user_id, 0x02);
  EXPECT_EQ(security_type::profile, 0x03);
}

TEST(SecurityData, UtokenSubfieldAsInTheClientBidSample) {
  security_data se;
  bytes token(80);
  for (std::size_t i = 0; i < token.size(); ++i) token[i] = static_cast<std::uint8_t>(i);
  se.set_utoken(token);
  bytes b = section_of(se);
  ASSERT_EQ(b.size(), 86u);
  EXPECT_EQ(test::slice(b, 0, 6), hex("0056 C3 52 51 00"));  // [C-hex] IMS-SAMPLE
  auto back = decode_security_data(b, at);
  ASSERT_TRUE(back.ok());
  ASSERT_TRUE(back->utoken());
  EXPECT_EQ(back->utoken()->to_bytes(), token);
}

TEST(SecurityData, NoSubfields) {
  security_data se;
  se.flag = security_flag::none;
  bytes b = section_of(se);
  EXPECT_EQ(b, hex("0004 D5 00"));
  auto back = decode_security_data(b, at);
  ASSERT_TRUE(back.ok());
  EXPECT_TRUE(back->subfields.empty());
  EXPECT_FALSE(back->user_id());
}

TEST(SecurityData, UnknownTypesAndOrderKept) {
  bytes b = hex("0016 C6 12 05 04 D5C5E3E4 01 7F 09 02 E4E2C5D9F1404040");
  auto back = decode_security_data(b, at);
  ASSERT_TRUE(back.ok()) << back.error().to_string();
  ASSERT_EQ(back->subfields.size(), 3u);
  EXPECT_EQ(back->subfields[0].type, security_type::network_user_id);
  EXPECT_EQ(back->subfields[0].data, hex("D5C5E3E4"));
  EXPECT_EQ(back->subfields[1].type, 0x7F);
  EXPECT_TRUE(back->subfields[1].data.empty());
  EXPECT_EQ(back->user_id(), "USER1");
  EXPECT_EQ(section_of(*back), b);
}

TEST(SecurityData, SetUserIdReplacesTheExistingSubfield) {
  security_data se;
  se.set_user_id("A");
  se.set_user_id("BBBBBBBBBB");  // cut at 8
  ASSERT_EQ(se.subfields.size(), 1u);
  EXPECT_EQ(se.user_id(), "BBBBBBBB");
}

// IMS calls byte 3 "reserved" [C: IMS-SEC]; IMS Connect puts the subfields' length there [C: ICON-SEC],
// but a sender that does not is still within IBM's definition. The subfields are walked by the
// section length, and byte 3 comes back as it came.
TEST(SecurityData, SubfieldLengthByteIsReservedAndKept) {
  for (const char* text : {"000E C3 0B 09 02 E4E2C5D9F1404040",     // says 11, holds 10
                           "000E C3 00 09 02 E4E2C5D9F1404040",     // says 0
                           "000E C3 FF 09 02 E4E2C5D9F1404040"}) {  // says 255
    bytes b = hex(text);
    auto r = decode_security_data(b, at);
    ASSERT_TRUE(r.ok()) << text << ": " << r.error().to_string();
    EXPECT_EQ(r->user_id(), "USER1") << text;
    EXPECT_EQ(section_of(*r), b) << text;
  }
  // The same subfields with the byte IMS Connect would write: a different section, not equal.
  auto odd = decode_security_data(hex("000E C3 0B 09 02 E4E2C5D9F1404040"), at);
  auto usual = decode_security_data(hex("000E C3 0A 09 02 E4E2C5D9F1404040"), at);
  ASSERT_TRUE(odd.ok() && usual.ok());
  EXPECT_NE(*odd, *usual);
  security_data built;
  built.set_user_id("USER1");
  EXPECT_EQ(built, *usual);  // what is not given explicitly is written as the subfields' length
}

TEST(SecurityData, SubfieldLengthByteInAWholeMessage) {
  bytes b = test::encode_ok([] {
    otma_message m;
    m.mci.message_type = msg_type::transaction;
    security_data se;
    se.set_user_id("USER1");
    m.security = se;
    return m;
  }());
  b[mci_size + 3] = 0x00;
  auto r = decode_message(b);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ(test::encode_ok(*r), b);
}

TEST(SecurityData, SubfieldRunningPastTheSection) {
  bytes b = hex("000E C3 0A 0A 02 E4E2C5D9F1404040");  // subfield says 10 = type + 9, only 9 left
  auto r = decode_security_data(b, at);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().field, "OTMA.security_data.subfield[0].length");
  EXPECT_EQ(r.error().offset, at + 4);
}

TEST(SecurityData, SubfieldOfLengthZero) {
  bytes b = hex("0005 C3 01 00");
  auto r = decode_security_data(b, at);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().field, "OTMA.security_data.subfield[0].length");
}

TEST(SecurityData, SecondSubfieldErrorNamesItsIndex) {
  bytes b = hex("0010 C3 0C 09 02 E4E2C5D9F1404040 05 03");
  auto r = decode_security_data(b, at);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().field, "OTMA.security_data.subfield[1].length");
  EXPECT_EQ(r.error().offset, at + 14);
}

TEST(SecurityData, IbmMaximaEnforced) {
  bytes user9 = hex("000F C3 0B 0A 02 E4E2C5D9F140404040");
  auto r = decode_security_data(user9, at);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().field, "OTMA.security_data.subfield[0].data");

  security_data se;
  se.set_utoken(bytes(81, 0));
  auto e = check_security_data(se, at);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->field, "OTMA.security_data.subfield[0].data");
  se.set_utoken(bytes(80, 0));
  EXPECT_FALSE(check_security_data(se, at));
}

TEST(SecurityData, SubfieldsOver255BytesCannotBeEncoded) {
  security_data se;
  se.subfields.push_back({0x7E, bytes(200, 1)});
  se.subfields.push_back({0x7F, bytes(60, 2)});  // 202 + 62 = 264 > 255
  auto e = check_security_data(se, at);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->field, "OTMA.security_data.subfield_length");
  se.subfields.pop_back();
  se.subfields.push_back({0x7F, bytes(51, 2)});  // 202 + 53 = 255
  EXPECT_FALSE(check_security_data(se, at));
  auto back = decode_security_data(section_of(se), at);
  ASSERT_TRUE(back.ok()) << back.error().to_string();
  EXPECT_EQ(*back, se);
}

// With byte 3 reserved, the section length alone bounds the subfields: more than 255 bytes of them
// decode, and encode as long as byte 3 is given (it cannot be their length then).
TEST(SecurityData, SubfieldsOver255BytesWithAnExplicitByte3) {
  security_data se;
  se.subfields.push_back({0x7E, bytes(200, 1)});
  se.subfields.push_back({0x7F, bytes(100, 2)});
  se.subfield_length = 0x00;
  EXPECT_FALSE(check_security_data(se, at));
  const bytes b = section_of(se);
  ASSERT_EQ(b.size(), 4u + 202 + 102);
  EXPECT_EQ(b[3], 0x00);
  auto back = decode_security_data(b, at);
  ASSERT_TRUE(back.ok()) << back.error().to_string();
  EXPECT_EQ(*back, se);
}

TEST(SecurityData, ShorterThanItsHeader) {
  auto r = decode_security_data(hex("0003 C3"), at);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().field, "OTMA.security_data.length");
}

}  // namespace
}  // namespace imsb::otma
