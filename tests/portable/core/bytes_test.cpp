#include "imsb/core/bytes.hpp"

#include <gtest/gtest.h>

#include "imsb/core/result.hpp"

using namespace imsb;

TEST(bytes, explicit_byte_order_loads_and_stores) {
  const std::uint8_t be[] = {0x12, 0x34, 0x56, 0x78};
  EXPECT_EQ(load_u32(be, byte_order::big), 0x12345678u);
  EXPECT_EQ(load_u32(be, byte_order::little), 0x78563412u);
  EXPECT_EQ(load_u16(be, byte_order::big), 0x1234u);
  EXPECT_EQ(load_u16(be, byte_order::little), 0x3412u);
  std::uint8_t out[4] = {};
  store_i32(out, -2, byte_order::big);
  EXPECT_EQ(to_hex(bytes_view(out, 4)), "FFFFFFFE");
  store_i32(out, 546, byte_order::little);
  EXPECT_EQ(to_hex(bytes_view(out, 4)), "22020000");
  store_u16(out, 0x1234, byte_order::big);
  EXPECT_EQ(to_hex(bytes_view(out, 2)), "1234");
  store_u16(out, 0x1234, byte_order::little);
  EXPECT_EQ(to_hex(bytes_view(out, 2)), "3412");
  store_u32(out, 0x01020304, byte_order::big);
  EXPECT_EQ(to_hex(bytes_view(out, 4)), "01020304");
  store_i16(out, -2, byte_order::little);
  EXPECT_EQ(to_hex(bytes_view(out, 2)), "FEFF");
  EXPECT_EQ(load_i16(out, byte_order::little), -2);
  const std::uint8_t neg[] = {0x80, 0x00};
  EXPECT_EQ(load_i16(neg, byte_order::big), -32768);
}

TEST(bytes, mq_encoding_selects_integer_order) {
  // [C: MQENC-TABLE]: 785 (z/OS) and 273 (s390x Linux, AIX) big-endian; 546 (x86) little-endian.
  EXPECT_EQ(integer_order(785), byte_order::big);
  EXPECT_EQ(integer_order(273), byte_order::big);
  EXPECT_EQ(integer_order(546), byte_order::little);
  EXPECT_TRUE(encoding_integer_known(546));
  EXPECT_FALSE(encoding_integer_known(0));
  EXPECT_FALSE(encoding_integer_known(0x223));
}

TEST(bytes, hex_round_trip_and_errors) {
  bytes b;
  ASSERT_TRUE(from_hex("01 02 # comment\n 0a|FF", b));
  EXPECT_EQ(to_hex(b), "01020AFF");
  EXPECT_EQ(to_hex(b, false), "01020aff");
  EXPECT_FALSE(from_hex("0", b));
  EXPECT_FALSE(from_hex("zz", b));
  EXPECT_EQ(to_hex(b), "01020AFF");  // untouched on error
}

TEST(bytes, hex_errors_say_where_and_why) {
  bytes b{9};
  hex_error e;
  EXPECT_FALSE(from_hex("0102 # fine\n03 0g\n", b, &e));
  EXPECT_EQ(e.offset, 16u);
  EXPECT_EQ(e.line, 2u);
  EXPECT_EQ(e.column, 5u);
  EXPECT_EQ(e.reason, "'g' is not a hex digit");
  EXPECT_EQ(b, bytes{9});  // untouched on error

  // Only blank, tab, CR and LF are whitespace: a form feed is a bad character, not a blank.
  EXPECT_FALSE(from_hex("01\f02", b, &e));
  EXPECT_EQ(e.offset, 2u);
  EXPECT_EQ(e.reason, "byte X'0C' is not a hex digit");
  EXPECT_FALSE(from_hex("01\xE9", b, &e));
  EXPECT_EQ(e.reason, "byte X'E9' is not a hex digit");

  // An odd digit count points at the digit left without a partner.
  EXPECT_FALSE(from_hex("01 02\n0 # odd\n", b, &e));
  EXPECT_EQ(e.offset, 6u);
  EXPECT_EQ(e.line, 2u);
  EXPECT_EQ(e.column, 1u);
  EXPECT_EQ(e.reason, "odd number of hex digits (5)");

  // '#' inside a comment and '|' are fine; a good text leaves the error alone.
  e.reason = "unchanged";
  EXPECT_TRUE(from_hex("01|02 # zz ## x\n03", b, &e));
  EXPECT_EQ(to_hex(b), "010203");
  EXPECT_EQ(e.reason, "unchanged");
  EXPECT_TRUE(from_hex("", b, nullptr));
  EXPECT_TRUE(b.empty());
}

TEST(bytes, sub_views_are_clamped) {
  bytes b{1, 2, 3};
  bytes_view v(b);
  EXPECT_EQ(v.sub(1).size(), 2u);
  EXPECT_EQ(v.sub(2, 10).size(), 1u);
  EXPECT_EQ(v.sub(5).size(), 0u);
}

TEST(result, holds_value_or_error_naming_field_and_offset) {
  result<int> ok = 5;
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(*ok, 5);
  result<int> bad = decode_error{std::make_error_code(std::errc::invalid_argument), "MQIIH.Version", 4,
                                 "found 2, expected 1"};
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().offset, 4u);
  EXPECT_NE(bad.error().to_string().find("MQIIH.Version at offset 4: found 2, expected 1"),
            std::string::npos);
}
