// script_runner: runmqsc's line-at-a-time runner (mqsc_exec.hpp). Each command must be answered by the
// line that completes it, and the whole output must be run_script's, line for line.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "exec_test_support.hpp"
#include "imsb/core/messages.hpp"
#include "imsb/objects/mqsc_exec.hpp"

namespace imsb::objects {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::StartsWith;

using namespace test;  // NOLINT: the shared helpers read as part of each test

std::vector<std::string> lines_of(std::string_view script) {
  std::vector<std::string> lines;
  std::size_t pos = 0;
  while (pos <= script.size()) {
    const std::size_t nl = std::min(script.find('\n', pos), script.size());
    lines.emplace_back(script.substr(pos, nl - pos));
    pos = nl + 1;
  }
  return lines;
}

// Every line through feed_line, then finish: the output run_script must give.
std::vector<std::string> streamed(object_catalog& c, std::string_view script) {
  script_runner runner(c, ctx);
  std::vector<std::string> out;
  for (const auto& l : lines_of(script)) {
    for (auto& o : runner.feed_line(l)) out.push_back(std::move(o));
  }
  for (auto& o : runner.finish().lines) out.push_back(std::move(o));
  return out;
}

TEST(ScriptRunner, AnswersEachCommandOnTheLineThatCompletesIt) {
  object_catalog c = fresh();
  script_runner runner(c, ctx);
  EXPECT_THAT(
      runner.feed_line("DEFINE QLOCAL(A)"),
      ElementsAre("     1 : DEFINE QLOCAL(A)", std::string(imsb::msg::IMB1001I) + ": Queue created."));
  EXPECT_NE(c.find(object_family::queue, "A"), nullptr);  // applied before the next line is read
  EXPECT_EQ(runner.changes(), 1u);
  EXPECT_THAT(runner.feed_line("DISPLAY QLOCAL(A) MAXDEPTH"),
              AllOf(::testing::Contains(std::string(imsb::msg::IMB1004I) + ": Display queue details."),
                    ::testing::Contains(HasSubstr("MAXDEPTH(5000)"))));
  EXPECT_EQ(runner.changes(), 1u);  // DISPLAY changes nothing
}

TEST(ScriptRunner, ContinuationWaitsForTheLastLine) {
  object_catalog c = fresh();
  script_runner runner(c, ctx);
  EXPECT_THAT(runner.feed_line("DEFINE QLOCAL(B) +"), IsEmpty());
  EXPECT_TRUE(runner.in_command());
  EXPECT_THAT(runner.feed_line("* a comment inside the command"), IsEmpty());
  EXPECT_THAT(runner.feed_line(""), IsEmpty());
  EXPECT_THAT(runner.feed_line("   MAXDEPTH(5) -"), IsEmpty());
  EXPECT_EQ(c.find(object_family::queue, "B"), nullptr);
  EXPECT_THAT(runner.feed_line("DESCR('x')"),
              ElementsAre("     1 : DEFINE QLOCAL(B) +", "       :    MAXDEPTH(5) -", "       : DESCR('x')",
                          std::string(imsb::msg::IMB1001I) + ": Queue created."));
  EXPECT_FALSE(runner.in_command());
  ASSERT_NE(c.find(object_family::queue, "B"), nullptr);
  EXPECT_EQ(c.find(object_family::queue, "B")->text("MAXDEPTH"), "5");
  EXPECT_EQ(c.find(object_family::queue, "B")->text("DESCR"), "x");
}

TEST(ScriptRunner, SyntaxErrorNamesTheScriptLine) {
  // The error is found in the command alone, but its line number must be the script's: a comment and
  // a blank line before, and a comment inside the continued command, all count.
  object_catalog c = fresh();
  script_runner runner(c, ctx);
  EXPECT_THAT(runner.feed_line("* header"), IsEmpty());
  EXPECT_THAT(runner.feed_line(""), IsEmpty());
  EXPECT_THAT(runner.feed_line("DEFINE QLOCAL(C) +"), IsEmpty());
  EXPECT_THAT(runner.feed_line("* inside"), IsEmpty());
  const auto out = runner.feed_line("  MAXDEPTH(5");
  ASSERT_EQ(out.size(), 3u);
  EXPECT_THAT(out[2], AllOf(StartsWith(std::string(imsb::msg::IMB1051E) + ": MQSC syntax error: line 5"),
                            HasSubstr("MAXDEPTH")));
  EXPECT_EQ(c.find(object_family::queue, "C"), nullptr);
  const script_outcome end = runner.finish();
  EXPECT_EQ(end.syntax_errors, 1u);
  EXPECT_EQ(end.exit_code(), 10);
}

TEST(ScriptRunner, EndStopsAndLaterLinesAreIgnored) {
  object_catalog c = fresh();
  script_runner runner(c, ctx);
  EXPECT_THAT(runner.feed_line("END"), ElementsAre("     1 : END"));
  EXPECT_TRUE(runner.ended());
  EXPECT_THAT(runner.feed_line("DEFINE QLOCAL(D)"), IsEmpty());
  EXPECT_EQ(c.find(object_family::queue, "D"), nullptr);
  const script_outcome o = runner.finish();
  EXPECT_EQ(o.read, 0u);
  EXPECT_THAT(o.lines, ElementsAre("", "No MQSC commands read.", "No commands have a syntax error.",
                                   "All valid MQSC commands were processed."));
}

TEST(ScriptRunner, FinishRunsACommandContinuedPastTheEnd) {
  object_catalog c = fresh();
  script_runner runner(c, ctx);
  EXPECT_THAT(runner.feed_line("DEFINE QLOCAL(E) -"), IsEmpty());
  const script_outcome o = runner.finish();
  EXPECT_THAT(o.lines,
              ElementsAre("     1 : DEFINE QLOCAL(E) -",
                          std::string(imsb::msg::IMB1001I) + ": Queue created.", "", "One MQSC command read.",
                          "No commands have a syntax error.", "All valid MQSC commands were processed."));
  EXPECT_TRUE(o.changed);
  EXPECT_NE(c.find(object_family::queue, "E"), nullptr);
}

TEST(ScriptRunner, CarriageReturnsAndEmbeddedNewlines) {
  object_catalog c = fresh();
  script_runner runner(c, ctx);
  // A Windows line end is dropped; a "line" holding '\n' is several lines.
  const auto out = runner.feed_line("DEFINE QLOCAL(F) +\r\n  MAXDEPTH(7)\r\nDEFINE QLOCAL(G)");
  EXPECT_THAT(out,
              ElementsAre("     1 : DEFINE QLOCAL(F) +", "       :   MAXDEPTH(7)",
                          std::string(imsb::msg::IMB1001I) + ": Queue created.", "     2 : DEFINE QLOCAL(G)",
                          std::string(imsb::msg::IMB1001I) + ": Queue created."));
  EXPECT_EQ(runner.changes(), 2u);
  ASSERT_NE(c.find(object_family::queue, "F"), nullptr);
  EXPECT_EQ(c.find(object_family::queue, "F")->text("MAXDEPTH"), "7");
}

TEST(ScriptRunner, StreamedScriptGivesRunScriptsLines) {
  // run_script is built on the runner; this checks the lines it gives for a script that uses every
  // line rule, so a change to either shows here.
  const std::string script =
      "* comment\n"
      "DEFINE QLOCAL(A) DESCR('Fr-\n"
      "ed')\n"
      "\n"
      "DEFINE QLOCAL(B) MAXDEPTH(5\n"
      "DEFINE QLOCAL(A)\n"
      "DEFINE QREMOTE(R) +\n"
      "* between\n"
      "   RNAME(X) RQMNAME(QM2);\n"
      "ALTER QLOCAL(A) MAXDEPTH(9)\n"
      "END\n"
      "DEFINE QLOCAL(Z)\n";
  object_catalog a = fresh();
  object_catalog b = fresh();
  const script_outcome whole = run_script(a, script, ctx);
  const std::vector<std::string> lines = streamed(b, script);
  EXPECT_EQ(lines, whole.lines);
  ASSERT_EQ(lines.size(), 17u);
  EXPECT_EQ(lines[0], "     1 : DEFINE QLOCAL(A) DESCR('Fr-");
  EXPECT_EQ(lines[1], "       : ed')");
  EXPECT_THAT(lines[4], StartsWith(std::string(imsb::msg::IMB1051E) + ": MQSC syntax error: line 5"));
  EXPECT_THAT(lines[6], StartsWith(imsb::msg::IMB1043E));  // A exists, no REPLACE
  EXPECT_EQ(lines[7], "     4 : DEFINE QREMOTE(R) +");
  EXPECT_EQ(lines[8], "       :    RNAME(X) RQMNAME(QM2);");
  EXPECT_EQ(lines[12], "     6 : END");
  EXPECT_EQ(lines[14], "5 MQSC commands read.");
  EXPECT_EQ(b.find(object_family::queue, "A")->text("DESCR"), "Fred");
  EXPECT_EQ(b.find(object_family::queue, "A")->text("MAXDEPTH"), "9");
  EXPECT_NE(b.find(object_family::queue, "R"), nullptr);
  EXPECT_EQ(b.find(object_family::queue, "Z"), nullptr);
}

}  // namespace
}  // namespace imsb::objects
