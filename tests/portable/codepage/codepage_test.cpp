// The library's EBCDIC tables against the reference files generated from glibc iconv
// (tests/vectors/codepages/, scripts/gen-codepage-vectors). Runs on x86-64 and on s390x under qemu.
#include "imsb/codepage/codepage.hpp"

#include <gtest/gtest.h>

#include <map>
#include <sstream>
#include <string>

#include "vectors.hpp"

namespace cp = imsb::codepage;
using imsb::bytes;
using imsb::bytes_view;

namespace {

std::map<int, std::uint32_t> load_reference(const std::string& file) {
  std::istringstream in(imsb::test::read_text(imsb::test::vectors_dir() + "/codepages/" + file));
  std::map<int, std::uint32_t> table;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    int byte = std::stoi(line.substr(0, 2), nullptr, 16);
    std::uint32_t code = static_cast<std::uint32_t>(std::stoul(line.substr(5), nullptr, 16));
    table[byte] = code;
  }
  return table;
}

struct page {
  std::int32_t ccsid;
  const char* file;
};

class ebcdic_page : public ::testing::TestWithParam<page> {};

TEST_P(ebcdic_page, matches_glibc_reference_in_both_directions) {
  auto ref = load_reference(GetParam().file);
  ASSERT_EQ(ref.size(), 256u);
  for (const auto& [byte, code] : ref) {
    EXPECT_EQ(cp::to_unicode(static_cast<std::uint8_t>(byte), GetParam().ccsid),
              static_cast<std::int32_t>(code))
        << "byte " << byte;
    EXPECT_EQ(cp::from_unicode(code, GetParam().ccsid), byte) << "U+" << std::hex << code;
    // Through the text conversion API as well: EBCDIC -> UTF-8 -> EBCDIC.
    bytes one{static_cast<std::uint8_t>(byte)};
    auto to_utf8 = cp::convert(one, GetParam().ccsid, cp::ccsid_1208);
    ASSERT_TRUE(to_utf8.ok());
    auto back = cp::convert(to_utf8.out, cp::ccsid_1208, GetParam().ccsid);
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(back.out, one);
  }
}

TEST_P(ebcdic_page, every_latin1_character_round_trips_or_is_flagged) {
  auto ref = load_reference(GetParam().file);
  std::map<std::uint32_t, int> reverse;
  for (const auto& [byte, code] : ref) reverse[code] = byte;
  for (std::uint32_t c = 0; c < 256; ++c) {
    bytes in{static_cast<std::uint8_t>(c)};
    auto r = cp::convert(in, cp::ccsid_819, GetParam().ccsid);
    if (reverse.count(c)) {
      EXPECT_TRUE(r.ok()) << c;
      EXPECT_EQ(r.out, bytes{static_cast<std::uint8_t>(reverse[c])});
    } else {
      // Only 1140 lacks a Latin-1 character (U+00A4, replaced by the euro at X'9F').
      EXPECT_EQ(GetParam().ccsid, cp::ccsid_1140);
      EXPECT_EQ(r.substitutions, 1u);
      EXPECT_EQ(r.first_bad_offset, 0u);
      EXPECT_EQ(r.out, bytes{0x3F});
    }
  }
}

INSTANTIATE_TEST_SUITE_P(pages, ebcdic_page,
                         ::testing::Values(page{37, "ibm037.txt"}, page{500, "ibm500.txt"},
                                           page{1047, "ibm1047.txt"}, page{1140, "ibm1140.txt"}),
                         [](const ::testing::TestParamInfo<page>& p) {
                           return "ccsid_" + std::to_string(p.param.ccsid);
                         });

TEST(codepage, names_use_invariant_characters) {
  // These are the same in 037, 500, 1047 and 1140 (glibc's and Python's code page tables agree).
  const std::string text = "CLIENT1 DFSYDRU0 TPIPE1 .-/_@#$0123456789abcdefghijklmnopqrstuvwxyz";
  for (std::int32_t ccsid : {37, 500, 1047, 1140}) {
    auto e = cp::convert(bytes_view::of(text), cp::ccsid_819, ccsid);
    ASSERT_TRUE(e.ok());
    EXPECT_EQ(imsb::to_hex(bytes_view(e.out).sub(0, 7)), "C3D3C9C5D5E3F1");
    auto a = cp::convert(e.out, ccsid, cp::ccsid_819);
    EXPECT_EQ(std::string(a.out.begin(), a.out.end()), text);
  }
}

TEST(codepage, lf_follows_glibc_in_1047) {
  // [D] glibc maps U+000A to X'25' in IBM-1047 (z/OS uses X'15'); we follow glibc.
  EXPECT_EQ(cp::from_unicode(0x0A, cp::ccsid_1047), 0x25);
  EXPECT_EQ(cp::to_unicode(0x15, cp::ccsid_1047), 0x85);
}

TEST(codepage, euro_in_1140_is_flagged_going_to_819_and_kept_in_utf8) {
  bytes euro{0x9F};
  auto to819 = cp::convert(euro, cp::ccsid_1140, cp::ccsid_819);
  EXPECT_FALSE(to819.ok());
  EXPECT_EQ(to819.out, bytes{0x1A});
  auto to1208 = cp::convert(euro, cp::ccsid_1140, cp::ccsid_1208);
  ASSERT_TRUE(to1208.ok());
  EXPECT_EQ(imsb::to_hex(to1208.out), "E282AC");
  auto to037 = cp::convert(to1208.out, cp::ccsid_1208, cp::ccsid_037);
  EXPECT_EQ(to037.substitutions, 1u);
  EXPECT_EQ(to037.out, bytes{0x3F});
}

TEST(codepage, malformed_utf8_is_flagged_at_its_offset) {
  bytes in{'A', 0xC3, 'B', 0xED, 0xA0, 0x80, 0xC0, 0xAF, 0xF0};
  auto r = cp::convert(in, cp::ccsid_1208, cp::ccsid_819);
  EXPECT_EQ(r.first_bad_offset, 1u);
  EXPECT_GE(r.substitutions, 4u);
  EXPECT_EQ(r.out[0], 'A');
  EXPECT_EQ(r.out[1], 0x1A);
  EXPECT_EQ(r.out[2], 'B');
  auto u = cp::convert(in, cp::ccsid_1208, cp::ccsid_1208);
  EXPECT_FALSE(u.ok());
}

TEST(codepage, unsupported_ccsid) {
  EXPECT_FALSE(cp::supported(0));
  EXPECT_FALSE(cp::supported(437));
  auto r = cp::convert(bytes{0x41}, 437, cp::ccsid_819);
  EXPECT_TRUE(r.unsupported);
  EXPECT_FALSE(r.ok());
  EXPECT_TRUE(r.out.empty());
}

TEST(codepage, fixed_fields_have_mqchar_semantics) {
  std::uint8_t buf[8];
  cp::put_field(buf, 8, "IMS1", cp::ccsid_037);
  EXPECT_EQ(imsb::to_hex(bytes_view(buf, 8)), "C9D4E2F140404040");
  cp::put_field(buf, 8, std::string("AB\0CD", 5), cp::ccsid_819);  // a NUL ends the value
  EXPECT_EQ(imsb::to_hex(bytes_view(buf, 8)), "4142202020202020");
  cp::put_field(buf, 8, "TOOLONGNAME", cp::ccsid_819);
  EXPECT_EQ(std::string(buf, buf + 8), "TOOLONGN");
  EXPECT_EQ(cp::get_field(bytes_view(buf, 8), cp::ccsid_819), "TOOLONGN");
  const std::uint8_t ebcdic[] = {0xC9, 0xC9, 0xC8, 0x40};
  EXPECT_EQ(cp::get_field(bytes_view(ebcdic, 4), cp::ccsid_500), "IIH ");
  EXPECT_EQ(cp::field_value("QM1     "), "QM1");
  EXPECT_EQ(cp::field_value(std::string("QM1\0xx  ", 8)), "QM1");
  EXPECT_EQ(cp::field_value("        "), "");
  cp::put_field(buf, 4, "ABC\xe9", cp::ccsid_1208);  // e-acute is 2 bytes in UTF-8: not cut in two
  EXPECT_EQ(imsb::to_hex(bytes_view(buf, 4)), "41424320");
  cp::put_field(buf, 5, "ABC\xe9", cp::ccsid_1208);
  EXPECT_EQ(imsb::to_hex(bytes_view(buf, 5)), "414243C3A9");
  EXPECT_EQ(cp::pad_field("AB", 4), "AB  ");
  EXPECT_EQ(cp::pad_field("ABCDEF", 4), "ABCD");
}

TEST(codepage, latin1_to_utf8_for_display) { EXPECT_EQ(cp::latin1_to_utf8("caf\xe9"), "caf\xc3\xa9"); }

}  // namespace
