// Truncated and inconsistent lengths at each section: the error names the section and the offset,
// and carries the [D] sense X'0003' prefix format error (docs/design/otma.md).
#include <gtest/gtest.h>

#include "imsb/otma/message.hpp"
#include "otma_test_support.hpp"

namespace imsb::otma {
namespace {

using test::encode_ok;

// MCI (transaction) + SD(70) + SE(14) + US(6) + AP(one 9-byte segment).
otma_message full_message() {
  otma_message m;
  m.mci.message_type = msg_type::transaction;
  m.state = state_data(transaction_state_data{});
  security_data se;
  se.set_user_id("USER1");
  m.security = se;
  m.user = user_data{{1, 2, 3, 4}};
  m.application = application_data{{{0, {0xC1, 0xC2, 0xC3, 0xC4, 0xC5}}}};
  return m;
}

constexpr std::size_t sd_at = mci_size;
constexpr std::size_t se_at = sd_at + 70;
constexpr std::size_t us_at = se_at + 14;
constexpr std::size_t ap_at = us_at + 6;

void expect_error(const bytes& b, const std::string& field, std::size_t offset, const std::string& why) {
  auto r = decode_message(b);
  ASSERT_FALSE(r.ok()) << why;
  EXPECT_EQ(r.error().field, field) << why << ": " << r.error().to_string();
  EXPECT_EQ(r.error().offset, offset) << why;
  EXPECT_EQ(r.error().code, make_sense(sense::prefix_format_error)) << why;
  EXPECT_STREQ(r.error().code.category().name(), "otma_sense");
  EXPECT_FALSE(r.error().detail.empty());
}

bytes cut(const bytes& b, std::size_t n) {
  return bytes(b.begin(), b.begin() + static_cast<std::ptrdiff_t>(n));
}

TEST(SectionErrors, LayoutOfTheFixture) {
  bytes b = encode_ok(full_message());
  EXPECT_EQ(test::u16_at(b, sd_at), 70);
  EXPECT_EQ(test::u16_at(b, se_at), 14);
  EXPECT_EQ(test::u16_at(b, us_at), 6);
  EXPECT_EQ(test::u16_at(b, ap_at), 9);
  EXPECT_EQ(b.size(), ap_at + 9);
}

TEST(SectionErrors, TruncatedMci) {
  bytes b = encode_ok(full_message());
  for (std::size_t n : {0, 1, 16, 31})
    expect_error(cut(b, n), "OTMA.mci", 0, "MCI cut at " + std::to_string(n));
}

TEST(SectionErrors, TruncatedStateData) {
  bytes b = encode_ok(full_message());
  expect_error(cut(b, sd_at), "OTMA.state_data.length", sd_at, "no length field");
  expect_error(cut(b, sd_at + 1), "OTMA.state_data.length", sd_at, "half a length field");
  expect_error(cut(b, sd_at + 40), "OTMA.state_data.length", sd_at, "section cut short");
}

TEST(SectionErrors, InconsistentStateDataLength) {
  bytes b = encode_ok(full_message());
  store_u16(b.data() + sd_at, 1, byte_order::big);
  expect_error(b, "OTMA.state_data.length", sd_at, "length 1 < 2");
  store_u16(b.data() + sd_at, 0xFFFF, byte_order::big);
  expect_error(b, "OTMA.state_data.length", sd_at, "length past the end");
  store_u16(b.data() + sd_at, 69, byte_order::big);
  expect_error(b, "OTMA.state_data.transaction.length", sd_at, "shorter than the layout");
}

TEST(SectionErrors, TruncatedSecurityData) {
  bytes b = encode_ok(full_message());
  expect_error(cut(b, se_at), "OTMA.security_data.length", se_at, "no length field");
  expect_error(cut(b, se_at + 1), "OTMA.security_data.length", se_at, "half a length field");
  expect_error(cut(b, se_at + 10), "OTMA.security_data.length", se_at, "section cut short");
}

TEST(SectionErrors, InconsistentSecurityDataLength) {
  bytes b = encode_ok(full_message());
  store_u16(b.data() + se_at, 3, byte_order::big);
  expect_error(b, "OTMA.security_data.length", se_at, "length 3 < 4");
  b = encode_ok(full_message());
  store_u16(b.data() + se_at, 13, byte_order::big);  // the user-ID subfield no longer fits
  expect_error(b, "OTMA.security_data.subfield[0].length", se_at + 4, "section cut inside a subfield");
  b = encode_ok(full_message());
  b[se_at + 4] = 0x0A;  // the user-ID subfield claims one byte more than there is
  expect_error(b, "OTMA.security_data.subfield[0].length", se_at + 4, "subfield past the section");
}

TEST(SectionErrors, TruncatedUserData) {
  bytes b = encode_ok(full_message());
  expect_error(cut(b, us_at), "OTMA.user_data.length", us_at, "no length field");
  expect_error(cut(b, us_at + 1), "OTMA.user_data.length", us_at, "half a length field");
  expect_error(cut(b, us_at + 4), "OTMA.user_data.length", us_at, "section cut short");
}

TEST(SectionErrors, InconsistentUserDataLength) {
  bytes b = encode_ok(full_message());
  store_u16(b.data() + us_at, 1, byte_order::big);
  expect_error(b, "OTMA.user_data.length", us_at, "length 1 < 2");
  store_u16(b.data() + us_at, 2000, byte_order::big);
  expect_error(b, "OTMA.user_data.length", us_at, "length past the end");
}

TEST(SectionErrors, TruncatedApplicationData) {
  bytes b = encode_ok(full_message());
  expect_error(cut(b, ap_at + 2), "OTMA.application_data.segment[0].LL", ap_at, "half an LLZZ");
  expect_error(cut(b, ap_at + 7), "OTMA.application_data.segment[0].LL", ap_at, "segment cut short");
}

TEST(SectionErrors, InconsistentSegmentLength) {
  bytes b = encode_ok(full_message());
  store_u16(b.data() + ap_at, 3, byte_order::big);
  expect_error(b, "OTMA.application_data.segment[0].LL", ap_at, "LL 3");
  store_u16(b.data() + ap_at, 8, byte_order::big);  // one short: the last byte is left over
  expect_error(b, "OTMA.application_data.segment[1].LL", ap_at + 8, "one byte left over");
}

TEST(SectionErrors, CutAtASectionBoundaryStillFailsWhileFlagsPromiseMore) {
  bytes b = encode_ok(full_message());
  expect_error(cut(b, us_at), "OTMA.user_data.length", us_at, "cut between SE and US");
  // Cut right after the user data: the application flag is set and no segment follows, but
  // application data is "one or more IMS segments" [C: IMS-APP].
  expect_error(cut(b, ap_at), "OTMA.application_data.segment[0].LL", ap_at, "flag without a segment");
}

TEST(SectionErrors, ErrorTextNamesFieldOffsetAndSense) {
  bytes b = encode_ok(full_message());
  auto r = decode_message(cut(b, se_at + 1));
  ASSERT_FALSE(r.ok());
  std::string text = r.error().to_string();
  EXPECT_NE(text.find("OTMA.security_data.length at offset 102"), std::string::npos) << text;
  EXPECT_NE(text.find("X'0003'"), std::string::npos) << text;
}

}  // namespace
}  // namespace imsb::otma
