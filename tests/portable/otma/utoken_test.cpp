// Our signed UTOKEN's layout ([D], docs/design/otma.md; utoken.hpp): encode, decode, every refusal.
#include "imsb/otma/utoken.hpp"

#include <gtest/gtest.h>

#include "imsb/otma/security_data.hpp"
#include "imsb/otma/sense.hpp"
#include "otma_test_support.hpp"

namespace imsb::otma {
namespace {

using test::hex;

utoken_fields sample_fields() {
  utoken_fields f;
  f.user_id = "USER1";
  f.group = "GROUP1";
  f.issued_at = 1700000000;  // X'6553F100'
  f.valid_for = 300;         // X'012C'
  f.nonce = 0x0123456789ABCDEFu;
  return f;
}

bytes sample_tag() {
  bytes t(32);
  for (std::size_t i = 0; i < t.size(); ++i) t[i] = static_cast<std::uint8_t>(i);
  return t;
}

// Written out by hand from the layout in utoken.hpp: on s390x as on x86 the token must be these bytes.
const char* const golden =
    "50 C9"                                                             // length 80, our version
    "E4E2C5D9F1404040"                                                  // 'USER1   ' EBCDIC
    "C7D9D6E4D7F14040"                                                  // 'GROUP1  '
    "000000006553F100"                                                  // issued-at 1700000000
    "0000012C"                                                          // valid for 300 s
    "0123456789ABCDEF"                                                  // nonce
    "000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F"  // tag
    "00000000000000000000";                                             // padding

TEST(Utoken, EncodesTheGoldenBytes) {
  const bytes token = encode_utoken(sample_fields(), sample_tag());
  EXPECT_EQ(token.size(), utoken_layout::size);
  EXPECT_EQ(to_hex(token), to_hex(hex(golden)));
}

TEST(Utoken, SignedPartIsTheFirst38Bytes) {
  const bytes part = utoken_signed_part(sample_fields());
  const bytes g = hex(golden);
  EXPECT_EQ(part, bytes(g.begin(), g.begin() + 38));
}

TEST(Utoken, DecodesTheGoldenBytes) {
  auto d = decode_utoken(hex(golden));
  ASSERT_TRUE(d.ok()) << d.error().to_string();
  EXPECT_EQ(d->fields.user_id, "USER1   ");  // padding kept, as decoded names are
  EXPECT_EQ(d->fields.group, "GROUP1  ");
  EXPECT_EQ(d->fields.issued_at, 1700000000u);
  EXPECT_EQ(d->fields.valid_for, 300u);
  EXPECT_EQ(d->fields.nonce, 0x0123456789ABCDEFu);
  EXPECT_EQ(bytes(d->tag.begin(), d->tag.end()), sample_tag());
  EXPECT_EQ(d->signed_part, utoken_signed_part(sample_fields()));
}

TEST(Utoken, RoundTripsLargeValuesAndEmptyGroup) {
  utoken_fields f;
  f.user_id = "ABCDEFGHIJ";  // cut at 8
  f.issued_at = 0xFEDCBA9876543210u;
  f.valid_for = 0xFFFFFFFFu;
  f.nonce = 0x8000000000000001u;
  bytes tag(32, 0xA5);
  const bytes token = encode_utoken(f, tag);
  auto d = decode_utoken(token);
  ASSERT_TRUE(d.ok()) << d.error().to_string();
  EXPECT_EQ(d->fields.user_id, "ABCDEFGH");
  EXPECT_EQ(d->fields.group, "        ");
  EXPECT_EQ(d->fields.issued_at, f.issued_at);
  EXPECT_EQ(d->fields.valid_for, f.valid_for);
  EXPECT_EQ(d->fields.nonce, f.nonce);
  EXPECT_EQ(encode_utoken(d->fields, bytes_view(d->tag.data(), d->tag.size())), token);
}

TEST(Utoken, ShortTagIsZeroFilled) {
  const bytes token = encode_utoken(sample_fields(), hex("FFFF"));
  EXPECT_EQ(token[38], 0xFF);
  EXPECT_EQ(token[39], 0xFF);
  EXPECT_EQ(token[40], 0x00);
  EXPECT_EQ(token.size(), 80u);
}

TEST(Utoken, TravelsInTheSecurityDataSubfield) {
  security_data se;
  se.set_user_id("USER1");
  se.set_utoken(hex(golden));
  bytes section;
  append_security_data(se, section);
  auto back = decode_security_data(section, 0);
  ASSERT_TRUE(back.ok()) << back.error().to_string();
  ASSERT_TRUE(back->utoken().has_value());
  auto d = decode_utoken(*back->utoken());
  ASSERT_TRUE(d.ok()) << d.error().to_string();
  EXPECT_EQ(d->fields.user_id, "USER1   ");
}

void expect_error(const bytes& token, const std::string& field, std::size_t offset) {
  auto d = decode_utoken(token);
  ASSERT_FALSE(d.ok()) << field;
  EXPECT_EQ(d.error().field, field);
  EXPECT_EQ(d.error().offset, offset);
  EXPECT_EQ(d.error().code, make_sense(sense::security_violation));
  EXPECT_FALSE(d.error().detail.empty());
}

TEST(UtokenErrors, WrongLength) {
  bytes g = hex(golden);
  expect_error(bytes(g.begin(), g.end() - 1), "UTOKEN.length", 0);
  g.push_back(0);
  expect_error(g, "UTOKEN.length", 0);
  expect_error(bytes{}, "UTOKEN.length", 0);
}

TEST(UtokenErrors, ByteZeroNotTheLength) {
  bytes g = hex(golden);
  g[0] = 0x4F;
  expect_error(g, "UTOKEN.length_byte", 0);
}

TEST(UtokenErrors, RacfTokenVersionIsNotOurs) {
  // IBM's client-bid sample carries a RACF UTOKEN starting `50 01` [C-hex: IMS-SAMPLE].
  bytes g = hex(golden);
  g[1] = 0x01;
  expect_error(g, "UTOKEN.version", 1);
}

TEST(UtokenErrors, NonZeroPadding) {
  bytes g = hex(golden);
  g[75] = 0x01;
  expect_error(g, "UTOKEN.padding", 75);
}

TEST(UtokenErrors, NulInsideUserOrGroup) {
  bytes g = hex(golden);
  g[2 + 5] = 0x00;  // 'USER1' then NUL: would encode back as a blank
  expect_error(g, "UTOKEN.user_id", 7);
  g = hex(golden);
  g[10] = 0x00;
  expect_error(g, "UTOKEN.group", 10);
}

TEST(UtokenErrors, AnyNonNulNameByteIsAccepted) {
  // EBCDIC 037 maps every byte to one ISO 8859-1 character: only a NUL breaks the round trip.
  for (int b = 1; b < 256; ++b) {
    bytes g = hex(golden);
    g[9] = static_cast<std::uint8_t>(b);
    auto d = decode_utoken(g);
    ASSERT_TRUE(d.ok()) << b << ": " << d.error().to_string();
    EXPECT_EQ(encode_utoken(d->fields, bytes_view(d->tag.data(), d->tag.size())), g) << b;
  }
}

}  // namespace
}  // namespace imsb::otma
