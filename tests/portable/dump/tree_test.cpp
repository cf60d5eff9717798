#include "imsb/dump/tree.hpp"

#include <gtest/gtest.h>

namespace imsb::dump {
namespace {

TEST(Tree, QuoteShowsNonPrintableCharactersAsHexEscapes) {
  EXPECT_EQ(quote_819("MD  "), "'MD  '");
  EXPECT_EQ(quote_819(std::string("A\0B", 3)), "'A\\x00B'");
  EXPECT_EQ(quote_819("a\\b"), "'a\\\\b'");
  EXPECT_EQ(quote_819("\xE9t\xE9"), "'\xC3\xA9t\xC3\xA9'");  // Latin-1 é as UTF-8
  EXPECT_EQ(quote_819("\x85\xA0\xAD\x7F"), "'\\x85\\xA0\\xAD\\x7F'");
}

TEST(Tree, HexValues) {
  const std::uint8_t b[] = {0x00, 0xAB, 0x1F};
  EXPECT_EQ(hex_value(bytes_view(b, 3)), "X'00AB1F'");
  EXPECT_EQ(hex32(0x222), "X'00000222'");
  EXPECT_EQ(hex16(0x1A), "X'001A'");
  EXPECT_EQ(hex8(0x30), "X'30'");
}

TEST(Tree, DisplayTextFollowsTheCcsid) {
  const std::uint8_t ebcdic[] = {0xD7, 0xC1, 0xD9, 0xE3, 0x40, 0x15, 0x00, 0x9F};  // "PART " NL NUL €/¤
  EXPECT_EQ(display_text(bytes_view(ebcdic, 5), 37), "PART ");
  EXPECT_EQ(display_text(bytes_view(ebcdic, 5), 500), "PART ");
  EXPECT_EQ(display_text(bytes_view(ebcdic, 5), 819), "\xC3\x97\xC3\x81\xC3\x99\xC3\xA3@");
  EXPECT_EQ(display_char(0x15, 37), ".");
  EXPECT_EQ(display_char(0x00, 37), ".");
  EXPECT_EQ(display_char(0x9F, 1140), "\xE2\x82\xAC");  // the euro sign of 1140
  EXPECT_EQ(display_char(0xC3, 1208), ".");             // a byte of a multi-byte sequence
  EXPECT_EQ(display_char('A', 1208), "A");
  EXPECT_EQ(display_char(0xE9, 4242), "\xC3\xA9");  // unknown CCSID: shown as ISO 8859-1
}

TEST(Tree, EbcdicCcsidsWithoutATableAreShownThroughCcsid037) {
  // "HELLO!" in EBCDIC: 273 (Germany), 1141 (Germany with euro), 285 (UK), 871 (Iceland) are EBCDIC
  // code pages the codepage library does not convert; Latin-1 would show them as nonsense.
  const std::uint8_t hello[] = {0xC8, 0xC5, 0xD3, 0xD3, 0xD6};
  for (std::int32_t ccsid : {273, 277, 280, 284, 285, 297, 871, 1141, 1145, 1149}) {
    EXPECT_EQ(display_text(bytes_view(hello, 5), ccsid), "HELLO") << ccsid;
    EXPECT_EQ(display_ccsid(ccsid), 37) << ccsid;
    EXPECT_EQ(display_note(ccsid),
              "shown as CCSID 037: CCSID " + std::to_string(ccsid) + " is not converted by mqdump")
        << ccsid;
  }
  for (std::int32_t ccsid : {37, 500, 1047, 1140, 819, 1208, 437, 4242}) {
    EXPECT_EQ(display_ccsid(ccsid), ccsid) << ccsid;
    EXPECT_EQ(display_note(ccsid), "") << ccsid;
  }
  const node d = data_node("text", 0, bytes_view(hello, 5), 273);
  EXPECT_EQ(d.text, "HELLO");
  EXPECT_EQ(d.meaning, "shown as CCSID 037: CCSID 273 is not converted by mqdump");
  EXPECT_EQ(data_node("text", 0, bytes_view(hello, 5), 37).meaning, "");
}

TEST(Tree, DataNodeKeepsBytesAndOneCharacterPerByte) {
  const std::uint8_t b[] = {0xC1, 0x00, 0xC2};
  node d = data_node("text", 10, bytes_view(b, 3), 37);
  EXPECT_EQ(d.kind, node_kind::data);
  EXPECT_EQ(d.offset, 10u);
  EXPECT_EQ(d.length, 3u);
  EXPECT_EQ(d.raw, bytes(b, b + 3));
  EXPECT_EQ(d.text, "A.B");
}

TEST(Tree, FindSearchesDepthFirst) {
  node root = structure_node("MQMD", 0, 364);
  root.add(structure_node("MsgDesc", 104, 324)).add(field_node("Format", 136, 8, "'MQIMS   '"));
  ASSERT_NE(root.find("Format"), nullptr);
  EXPECT_EQ(root.find("Format")->offset, 136u);
  EXPECT_EQ(root.find("nothing"), nullptr);
}

}  // namespace
}  // namespace imsb::dump
