#include "imsb/dump/render.hpp"

#include <gtest/gtest.h>

#include <string>

#include "imsb/core/messages.hpp"
#include "json_check.hpp"

namespace imsb::dump {
namespace {

TEST(JsonString, EscapesQuotesBackslashAndControlCharacters) {
  EXPECT_EQ(json_string("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(json_string("\n\r\t\b\f"), "\"\\n\\r\\t\\b\\f\"");
  EXPECT_EQ(json_string(std::string("\x00\x01\x1F", 3)), "\"\\u0000\\u0001\\u001F\"");
  EXPECT_EQ(json_string("\x7F"), "\"\\u007F\"");
  EXPECT_EQ(json_string("/"), "\"/\"");
}

TEST(JsonString, WritesNonAsciiAsUnicodeEscapes) {
  EXPECT_EQ(json_string("caf\xC3\xA9"), "\"caf\\u00E9\"");           // U+00E9
  EXPECT_EQ(json_string("\xE2\x82\xAC"), "\"\\u20AC\"");             // euro sign
  EXPECT_EQ(json_string("\xF0\x9F\x98\x80"), "\"\\uD83D\\uDE00\"");  // U+1F600: a surrogate pair
  EXPECT_EQ(json_string("\xC2\x85"), "\"\\u0085\"");                 // C1 control NEL
}

TEST(JsonString, ReplacesEachMalformedUtf8ByteWithFFFD) {
  EXPECT_EQ(json_string("\xE9"), "\"\\uFFFD\"");                                   // a lone Latin-1 byte
  EXPECT_EQ(json_string("\xC0\xAF"), "\"\\uFFFD\\uFFFD\"");                        // overlong '/'
  EXPECT_EQ(json_string("\xED\xA0\x80"), "\"\\uFFFD\\uFFFD\\uFFFD\"");             // an encoded surrogate
  EXPECT_EQ(json_string("a\xE2\x82"), "\"a\\uFFFD\\uFFFD\"");                      // truncated sequence
  EXPECT_EQ(json_string("\xF4\x90\x80\x80"), "\"\\uFFFD\\uFFFD\\uFFFD\\uFFFD\"");  // above U+10FFFF
}

TEST(JsonString, OutputIsAlwaysAsciiAndValid) {
  std::string all;
  for (int c = 0; c < 256; ++c) all += static_cast<char>(c);
  const std::string j = json_string(all);
  for (char c : j) EXPECT_LT(static_cast<unsigned char>(c), 0x80);
  EXPECT_EQ(test::json_error(j), "");
}

node sample_tree() {
  node root;
  root.kind = node_kind::document;
  root.name = "MQ message";
  root.offset = 0;
  root.length = 40;
  root.value = "MQMD > data";
  node s = structure_node("MQIIH", 8, 84, "Encoding 546, CCSID 819");
  s.add(number_node("Version", 12, 4, 1, "1", "MQIIH_VERSION_1"));
  s.add(field_node("Format", 28, 8, "'MQIMSVS '", "text with \"quotes\"\ttab"));
  root.add(std::move(s));
  const std::uint8_t data[] = {0x00, 0x14, 0x00, 0x00, 'P', 'A', 'R', 'T', ' ',
                               0xE9, 0x01, 'x',  'y',  'z', '0', '1', '2', '3'};
  root.add(data_node("bytes", 92, bytes_view(data, sizeof data), 819));
  node e;
  e.kind = node_kind::error;
  e.id = imsb::msg::IMB4002E;
  e.name = "MQIIH.StrucLength";
  e.offset = 16;
  e.value = "is 80, must be 84";
  e.meaning = "MQRC_IIH_ERROR (2148)";
  root.add(std::move(e));
  return root;
}

TEST(RenderText, OffsetColumnIndentationAndMeanings) {
  const std::string t = render_text(sample_tree());
  EXPECT_EQ(t,
            "MQ message (40 bytes): MQMD > data\n"
            "     8 MQIIH (84 bytes)         Encoding 546, CCSID 819\n"
            "    12   Version                1  = MQIIH_VERSION_1\n"
            "    28   Format                 'MQIMSVS '  = text with \"quotes\"\ttab\n"
            "    92 bytes (18 bytes)\n"
            "    92   00140000 50415254 20E90178 797A3031  |....PART \xC3\xA9.xyz01|\n"
            "   108   3233                                 |23|\n" +
                std::string(imsb::msg::IMB4002E) +
                " MQIIH.StrucLength at offset 16: is 80, must be 84; MQRC_IIH_ERROR (2148)\n");
}

TEST(RenderText, LeavesOutTheOffsetColumnWhenNothingHasAnOffset) {
  node root;
  root.kind = node_kind::document;
  root.name = "explain";
  root.value = "294";
  node s;
  s.kind = node_kind::structure;
  s.name = "MQFB";
  s.value = "294";
  s.meaning = "MQFB_BUFFER_OVERFLOW";
  root.add(std::move(s));
  EXPECT_EQ(render_text(root), "explain: 294\nMQFB                     294  = MQFB_BUFFER_OVERFLOW\n");
}

// The hex lines walk the display text a line at a time: multi-byte characters (é is 2 bytes in UTF-8,
// € of CCSID 1140 is 3) stay with the byte they show, across line boundaries too.
TEST(RenderText, HexLinesKeepMultiByteCharactersWithTheirBytes) {
  bytes b;
  for (int i = 0; i < 40; ++i) b.push_back(i % 3 == 0 ? 0x9F : 0xC1);  // € and A in CCSID 1140
  node root;
  root.kind = node_kind::document;
  root.name = "data";
  root.add(data_node("bytes", 0, b, 1140));
  const std::string t = render_text(root);
  const std::string euro = "\xE2\x82\xAC";
  const std::string line1 = euro + "AA" + euro + "AA" + euro + "AA" + euro + "AA" + euro + "AA" + euro;
  const std::string line2 = "AA" + euro + "AA" + euro + "AA" + euro + "AA" + euro + "AA" + euro + "A";
  const std::string line3 = "A" + euro + "AA" + euro + "AA" + euro;
  EXPECT_EQ(t,
            "data\n"
            "     0 bytes (40 bytes)\n"
            "     0   9FC1C19F C1C19FC1 C19FC1C1 9FC1C19F  |" +
                line1 +
                "|\n"
                "    16   C1C19FC1 C19FC1C1 9FC1C19F C1C19FC1  |" +
                line2 +
                "|\n"
                "    32   C19FC1C1 9FC1C19F                    |" +
                line3 + "|\n");
}

// A data node of a few megabytes renders line by line: every byte appears once, in order.
TEST(RenderText, LargeDataRendersEveryLine) {
  bytes b(3 * 1024 * 1024 + 5);
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = static_cast<std::uint8_t>(i * 7);
  node root;
  root.kind = node_kind::document;
  root.name = "data";
  root.add(data_node("bytes", 0, b, 819));
  const std::string t = render_text(root);
  std::size_t lines = 0;
  for (char c : t) lines += c == '\n';
  EXPECT_EQ(lines, 2 + (b.size() + 15) / 16);
  EXPECT_NE(t.find("\n3145728   00070E15 1C "), std::string::npos);  // 3 MiB * 7 is 0 mod 256
  EXPECT_EQ(t.substr(t.size() - 8), "|.....|\n");
  EXPECT_NE(
      t.find(
          "\n    16   70777E85 8C939AA1 A8AFB6BD C4CBD2D9  |pw~....\xC2\xA1\xC2\xA8\xC2\xAF\xC2\xB6\xC2\xBD"
          "\xC3\x84\xC3\x8B\xC3\x92\xC3\x99|\n"),
      std::string::npos);
  EXPECT_EQ(test::json_error(render_json(root)), "");
}

TEST(RenderJson, IsValidJsonWithEveryMember) {
  const std::string j = render_json(sample_tree());
  EXPECT_EQ(test::json_error(j), "") << j;
  EXPECT_NE(j.find("\"kind\": \"document\""), std::string::npos);
  EXPECT_NE(j.find("\"number\": 1"), std::string::npos);
  EXPECT_NE(j.find("\"meaning\": \"text with \\\"quotes\\\"\\ttab\""), std::string::npos);
  EXPECT_NE(j.find("\"hex\": \"0014000050415254"
                   "20E90178797A30313233\""),
            std::string::npos);
  // The display text has é (U+00E9): escaped, so the document stays ASCII.
  EXPECT_NE(j.find("\"text\": \"....PART \\u00E9.xyz0123\""), std::string::npos);
  EXPECT_NE(j.find("\"id\": \"IMB4002E\""), std::string::npos);
  for (char c : j) ASSERT_LT(static_cast<unsigned char>(c), 0x80);
  EXPECT_EQ(j.back(), '\n');
}

TEST(RenderJson, TextAndJsonShowTheSameNodes) {
  // Every name and value of the tree appears in both renderings.
  node root = sample_tree();
  const std::string t = render_text(root), j = render_json(root);
  for (const char* s : {"MQIIH", "Version", "Format", "MQIIH.StrucLength", "is 80, must be 84"}) {
    EXPECT_NE(t.find(s), std::string::npos) << s;
    EXPECT_NE(j.find(s), std::string::npos) << s;
  }
}

TEST(RenderJson, ChecksItsOwnValidator) {
  EXPECT_NE(test::json_error("{\"a\": 1,}"), "");
  EXPECT_NE(test::json_error("{\"a\": 1, \"a\": 2}"), "");
  EXPECT_NE(test::json_error("\"\x01\""), "");
  EXPECT_NE(test::json_error("[1] x"), "");
  EXPECT_NE(test::json_error("\"\\x41\""), "");
  EXPECT_EQ(test::json_error("{\"a\": [1, -2.5e3, true, null, \"\\u00e9\"]}"), "");
}

}  // namespace
}  // namespace imsb::dump
