// Application data [C: IMS-APP]: LLZZ segments, LL big-endian and counting LLZZ.
#include <gtest/gtest.h>

#include "imsb/otma/application_data.hpp"
#include "imsb/otma/message.hpp"
#include "otma_test_support.hpp"

namespace imsb::otma {
namespace {

using test::decode_ok;
using test::encode_ok;
using test::hex;

otma_message with_segments(std::vector<segment> segs) {
  otma_message m;
  m.mci.message_type = msg_type::transaction;
  m.application = application_data{std::move(segs)};
  return m;
}

TEST(ApplicationData, TwoSegmentsLLCountsLLZZ) {
  otma_message m = with_segments({{0, test::ebcdic("IVTNO DISPLAY")}, {0, test::ebcdic("X")}});
  bytes b = encode_ok(m);
  EXPECT_EQ(b[15], prefix::application_data);
  EXPECT_EQ(test::slice(b, mci_size, 4), hex("0011 0000"));
  EXPECT_EQ(test::slice(b, mci_size + 17, 5), hex("0005 0000 E7"));
  EXPECT_EQ(b.size(), mci_size + 17 + 5);
  otma_message back = decode_ok(b);
  ASSERT_EQ(back.segments().size(), 2u);
  EXPECT_EQ(back.segments()[0].data, test::ebcdic("IVTNO DISPLAY"));
  EXPECT_EQ(back, m);
}

TEST(ApplicationData, ZZKeptAsReceived) {
  otma_message m = with_segments({{0x1234, {1}}});
  bytes b = encode_ok(m);
  EXPECT_EQ(test::slice(b, mci_size, 5), hex("0005 1234 01"));
  EXPECT_EQ(decode_ok(b).segments()[0].zz, 0x1234);
}

// Application data is "one or more IMS segments" [C: IMS-APP]. The flag with nothing after it is a
// format error on the way in (the emulator NAKs it) and cannot be written on the way out.
TEST(ApplicationData, FlagWithoutSegmentsIsRefused) {
  otma_message m = with_segments({});
  auto e = encode_message(m);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error().field, "OTMA.application_data");
  EXPECT_EQ(e.error().offset, mci_size);
  EXPECT_EQ(e.error().code, make_sense(sense::prefix_format_error));

  otma_message none;
  none.mci.message_type = msg_type::transaction;
  bytes b = encode_ok(none);
  b[15] = prefix::application_data;
  auto r = decode_message(b);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().field, "OTMA.application_data.segment[0].LL");
  EXPECT_EQ(r.error().offset, mci_size);
  EXPECT_NE(r.error().detail.find("one or more"), std::string::npos) << r.error().detail;
}

TEST(ApplicationData, EmptySegmentIsLL4) {
  otma_message m = with_segments({{0, {}}});
  EXPECT_EQ(test::slice(encode_ok(m), mci_size, 4), hex("0004 0000"));
}

TEST(ApplicationData, LargestSegment) {
  otma_message m = with_segments({{0, bytes(max_segment_size - llzz_size, 0x40)}});
  bytes b = encode_ok(m);
  EXPECT_EQ(test::u16_at(b, mci_size), 32767);
  EXPECT_EQ(decode_ok(b), m);
  m.application->segments[0].data.push_back(0x40);
  auto r = encode_message(m);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().field, "OTMA.application_data.segment[0].LL");
}

struct bad_ll {
  const char* app_hex;
  const char* field;
  std::size_t offset_in_app;
};

TEST(ApplicationData, BadLengthsNameTheSegment) {
  const bad_ll cases[] = {
      {"0003 0000", "OTMA.application_data.segment[0].LL", 0},     // LL < 4
      {"0000 0000", "OTMA.application_data.segment[0].LL", 0},     // LL = 0
      {"0009 0000 01", "OTMA.application_data.segment[0].LL", 0},  // runs past the end
      {"0005 0000 01 0008 0000", "OTMA.application_data.segment[1].LL", 5},
      {"0005 0000 01 00", "OTMA.application_data.segment[1].LL", 5},  // 1 byte left: no room for LLZZ
      {"8000 0000", "OTMA.application_data.segment[0].LL", 0},        // over 32767
  };
  for (const auto& c : cases) {
    otma_message none;
    none.mci.message_type = msg_type::transaction;
    bytes b = encode_ok(none);
    b[15] = prefix::application_data;
    bytes app = hex(c.app_hex);
    b.insert(b.end(), app.begin(), app.end());
    auto r = decode_message(b);
    ASSERT_FALSE(r.ok()) << c.app_hex;
    EXPECT_EQ(r.error().field, c.field) << c.app_hex;
    EXPECT_EQ(r.error().offset, mci_size + c.offset_in_app) << c.app_hex;
  }
}

TEST(ApplicationData, TrailerWithSegmentsCannotBeEncoded) {
  otma_message m = with_segments({{0, {1}}});
  m.trailer = {0};
  auto r = encode_message(m);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().field, "OTMA.trailer");
}

}  // namespace
}  // namespace imsb::otma
