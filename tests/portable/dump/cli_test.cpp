#include "imsb/dump/cli.hpp"

#include <gtest/gtest.h>

#include <string>
#include <variant>
#include <vector>

#include "imsb/core/messages.hpp"
#include "json_check.hpp"
#include "vectors.hpp"

namespace imsb::dump {
namespace {

command_line parse_ok(const std::vector<std::string>& args) {
  auto r = parse_command_line(args);
  if (auto* e = std::get_if<usage_error>(&r)) {
    ADD_FAILURE() << e->message;
    return {};
  }
  return std::get<command_line>(r);
}

std::string parse_error(const std::vector<std::string>& args) {
  auto r = parse_command_line(args);
  if (auto* e = std::get_if<usage_error>(&r)) return e->message;
  ADD_FAILURE() << "parsed";
  return {};
}

TEST(CommandLine, Options) {
  command_line cl = parse_ok({"--encoding", "785", "--ccsid=500", "--format", "MQIMS", "--json", "msg.bin"});
  EXPECT_EQ(cl.decode.encoding, 785);
  EXPECT_EQ(cl.decode.ccsid, 500);
  EXPECT_EQ(cl.decode.format, "MQIMS");
  EXPECT_TRUE(cl.json);
  EXPECT_FALSE(cl.hex);
  EXPECT_EQ(cl.input, "msg.bin");
  EXPECT_EQ(parse_ok({"--encoding", "0x222"}).decode.encoding, 546);
  EXPECT_EQ(parse_ok({"--ccsid", "-1"}).decode.ccsid, -1);
  EXPECT_EQ(parse_ok({}).input, "-");
  EXPECT_EQ(parse_ok({"-"}).input, "-");
  EXPECT_TRUE(parse_ok({"--otma"}).decode.otma);
  EXPECT_TRUE(parse_ok({"-h"}).help);
  EXPECT_TRUE(parse_ok({"x.hex"}).hex);  // implied by the name
  EXPECT_TRUE(parse_ok({"--hex", "x.txt"}).hex);
}

TEST(CommandLine, ExplainTakesTheWordsUpToTheNextOption) {
  EXPECT_EQ(parse_ok({"--explain", "sense", "0x1A", "reason", "0x27"}).explain, "sense 0x1A reason 0x27");
  EXPECT_EQ(parse_ok({"--json", "--explain=294"}).explain, "294");
  // An option after the code is an option, not part of the code.
  command_line cl = parse_ok({"--explain", "294", "--json"});
  EXPECT_EQ(cl.explain, "294");
  EXPECT_TRUE(cl.json);
  cl = parse_ok({"--explain", "sense", "X'30'", "--json"});
  EXPECT_EQ(cl.explain, "sense X'30'");
  EXPECT_TRUE(cl.json);
  EXPECT_EQ(parse_ok({"--explain", "-1"}).explain, "-1");  // one dash is a word of the code
  EXPECT_EQ(parse_error({"--explain", "--json"}).substr(0, 26),
            std::string(imsb::msg::IMB4001E) + " mqdump: --explain");
  EXPECT_NE(parse_error({"--explain", "294", "--bogus"}).find("unknown option --bogus"), std::string::npos);
}

TEST(CommandLine, UsageErrors) {
  for (const auto& args : std::vector<std::vector<std::string>>{{"--bogus"},
                                                                {"--encoding"},
                                                                {"--encoding", "abc"},
                                                                {"--ccsid", "99999999999"},
                                                                {"--format", "TOOLONGNAME"},
                                                                {"a", "b"},
                                                                {"--explain"},
                                                                {"x", "--explain", "294"}}) {
    const std::string m = parse_error(args);
    EXPECT_EQ(m.substr(0, 16), std::string(imsb::msg::IMB4001E) + " mqdump:") << m;
  }
}

TEST(CommandLine, HelpDocumentsTheExitCodes) {
  const std::string h = help_text();
  for (const char* s :
       {"Exit codes:", "  0  decoded", "  1  ", "  2  usage error", "--explain", "--hex", "--otma"})
    EXPECT_NE(h.find(s), std::string::npos) << s;
  // A message that fails the bridge's validation exits 1 (docs/programs/mqdump.md: bad bytes exit 1).
  const std::size_t one = h.find("\n  1  ");
  ASSERT_NE(one, std::string::npos);
  EXPECT_NE(h.find(imsb::msg::IMB4006W, one), std::string::npos) << h.substr(one);
  EXPECT_EQ(h.find("also when the message would fail"), std::string::npos);
}

TEST(RunDump, ExitCodesAndOutputs) {
  command_line cl = parse_ok({"--hex"});
  const std::string good = test::read_text(test::vectors_dir() + "/samples/iih_request_ascii.hex");
  run_output r = run_dump(cl, good);
  EXPECT_EQ(r.exit_code, exit_decoded);
  EXPECT_EQ(r.out.substr(0, 11), "MQ message ");
  EXPECT_EQ(r.err, "");

  const std::string bad = test::read_text(test::vectors_dir() + "/samples/iih_bad_struclength.hex");
  r = run_dump(cl, bad);
  EXPECT_EQ(r.exit_code, exit_bad_input);
  EXPECT_NE(r.out.find(std::string(imsb::msg::IMB4002E) + " MQIIH.StrucLength at offset 372"),
            std::string::npos);

  cl.json = true;
  r = run_dump(cl, bad);
  EXPECT_EQ(r.exit_code, exit_bad_input);
  EXPECT_EQ(test::json_error(r.out), "");
  EXPECT_EQ(r.err.substr(0, 43), std::string(imsb::msg::IMB4002E) + " MQIIH.StrucLength at offset 372: i");

  r = run_dump(cl, "# nothing but a comment\n");
  EXPECT_EQ(r.exit_code, exit_bad_input);
  EXPECT_NE(r.out.find(imsb::msg::IMB4007E), std::string::npos);
}

TEST(RunDump, BridgeValidationFailureExitsOneWithTheWholeListing) {
  command_line cl = parse_ok({"--hex"});
  const std::string dead = test::read_text(test::vectors_dir() + "/samples/dead_letter.hex");
  run_output r = run_dump(cl, dead);
  EXPECT_EQ(r.exit_code, exit_bad_input);
  EXPECT_EQ(r.err, "");  // the listing holds the IMB4006W line
  EXPECT_EQ(r.out.substr(0, 11), "MQ message ");
  EXPECT_NE(r.out.find("\nIMB4006W LLZZ[1].LL at offset 620: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("MQDLH"), std::string::npos);  // everything before it is still listed

  cl.json = true;
  r = run_dump(cl, dead);
  EXPECT_EQ(r.exit_code, exit_bad_input);
  EXPECT_EQ(test::json_error(r.out), "");
  EXPECT_EQ(r.err.rfind(
                std::string(imsb::msg::IMB4006W) + " LLZZ[1].LL at offset 620: segment 1 at offset 620: ", 0),
            0u)
      << r.err;
  EXPECT_EQ(r.err.back(), '\n');
}

TEST(RunDump, HexErrorsSayWhere) {
  command_line cl = parse_ok({"--hex", "in.hex"});
  run_output r = run_dump(cl, "0102 # fine\n03 0g\n");
  EXPECT_EQ(r.exit_code, exit_bad_input);
  EXPECT_EQ(r.err, std::string(imsb::msg::IMB4004E) +
                       " mqdump: in.hex is not valid hex text: line 2: 'g' is not a hex digit\n");
  r = run_dump(cl, "010");
  EXPECT_EQ(r.err, std::string(imsb::msg::IMB4004E) +
                       " mqdump: in.hex is not valid hex text: line 1: odd number of hex digits (3)\n");
  // The CLI says what from_hex refused: a form feed is no whitespace there.
  r = run_dump(cl, "01\n02\f03");
  EXPECT_EQ(r.err, std::string(imsb::msg::IMB4004E) +
                       " mqdump: in.hex is not valid hex text: line 2: byte X'0C' is not a hex digit\n");
}

TEST(RunDump, RawBytesAreNotHex) {
  command_line cl = parse_ok({});
  run_output r = run_dump(cl, std::string("\x01\x02zz", 4));
  EXPECT_EQ(r.exit_code, exit_decoded);
  EXPECT_NE(r.out.find("|..zz|"), std::string::npos) << r.out;
}

TEST(RunExplain, JsonAfterTheCode) {
  const run_output r = run_explain(parse_ok({"--explain", "294", "--json"}));
  EXPECT_EQ(r.exit_code, exit_decoded);
  EXPECT_EQ(test::json_error(r.out), "");
  EXPECT_NE(r.out.find("MQFB_BUFFER_OVERFLOW"), std::string::npos);
}

TEST(RunExplain, KnownAndUnknown) {
  command_line cl = parse_ok({"--explain", "294"});
  run_output r = run_explain(cl);
  EXPECT_EQ(r.exit_code, exit_decoded);
  EXPECT_NE(r.out.find("MQFB_BUFFER_OVERFLOW"), std::string::npos);
  cl = parse_ok({"--json", "--explain", "nonsense"});
  r = run_explain(cl);
  EXPECT_EQ(r.exit_code, exit_bad_input);
  EXPECT_EQ(test::json_error(r.out), "");
  EXPECT_EQ(r.err.substr(0, 9), std::string(imsb::msg::IMB4005E) + " ");
}

}  // namespace
}  // namespace imsb::dump
