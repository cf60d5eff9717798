// Line reassembly and tokens (imsb/mqsc/lexer.hpp): continuation with '+' and '-', comments, blank
// lines, quotes with doubled quotes, and the line/column of every character and token.

#include "imsb/mqsc/lexer.hpp"

#include <gtest/gtest.h>

namespace imsb::mqsc {
namespace {

std::vector<std::string> texts(std::string_view script) {
  std::vector<std::string> out;
  for (const auto& c : split_commands(script)) out.push_back(c.text);
  return out;
}

std::vector<token> tokens_of(std::string_view line) {
  const auto sources = split_commands(line);
  EXPECT_EQ(sources.size(), 1u);
  const token_list t = tokenize(sources.at(0));
  EXPECT_FALSE(t.unterminated_quote.has_value());
  return t.tokens;
}

TEST(MqscLines, OneCommandPerLine) {
  EXPECT_EQ(texts("DEFINE QLOCAL(A)\nDEFINE QLOCAL(B)\n"),
            (std::vector<std::string>{"DEFINE QLOCAL(A)", "DEFINE QLOCAL(B)"}));
}

TEST(MqscLines, PlusContinuesFromFirstNonBlankOfNextLine) {
  // IBM: '+' continues from the first non-blank character of the next line; blanks before it stay.
  EXPECT_EQ(texts("DEFINE QLOCAL(A) +\n      MAXDEPTH(5)\n"),
            (std::vector<std::string>{"DEFINE QLOCAL(A) MAXDEPTH(5)"}));
  EXPECT_EQ(texts("DESCR('Fr+\n     ed')"), (std::vector<std::string>{"DESCR('Fred')"}));
}

TEST(MqscLines, MinusContinuesFromFirstColumnOfNextLine) {
  EXPECT_EQ(texts("DEFINE QLOCAL(A) -\n      MAXDEPTH(5)\n"),
            (std::vector<std::string>{"DEFINE QLOCAL(A)       MAXDEPTH(5)"}));
  EXPECT_EQ(texts("DESCR('Fr-\ned')"), (std::vector<std::string>{"DESCR('Fred')"}));
  EXPECT_EQ(texts("DESCR('a -\n  b')"), (std::vector<std::string>{"DESCR('a   b')"}));
}

TEST(MqscLines, ContinuationCharacterIsTheLastNonBlank) {
  // Trailing blanks after '+' do not hide it; only the last '-' of "--" is a continuation.
  EXPECT_EQ(texts("DESCR('x--   \ny')"), (std::vector<std::string>{"DESCR('x-y')"}));
  EXPECT_EQ(texts("A +   \t\nB"), (std::vector<std::string>{"A B"}));
  EXPECT_EQ(texts("A+B\nC-D"), (std::vector<std::string>{"A+B", "C-D"}));
}

TEST(MqscLines, CommentsAndBlankLinesAreSkippedEvenInsideAContinuedCommand) {
  const auto s = split_commands("* comment\n\n   \nDEFINE QLOCAL(A) +\n* inside\n\n  MAXDEPTH(5)\n*end\n");
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].text, "DEFINE QLOCAL(A) MAXDEPTH(5)");
  EXPECT_EQ(s[0].first_line, 4u);
  EXPECT_EQ(s[0].lines, "DEFINE QLOCAL(A) +\n  MAXDEPTH(5)");
}

TEST(MqscLines, AsteriskCountsAsCommentOnlyInColumnOne) {
  const auto s = split_commands(" *X\n");
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].text, " *X");
}

TEST(MqscLines, CarriageReturnBeforeNewlineIsDropped) {
  EXPECT_EQ(texts("DEFINE QLOCAL(A) +\r\n  DESCR(X)\r\nEND\r\n"),
            (std::vector<std::string>{"DEFINE QLOCAL(A) DESCR(X)", "END"}));
}

TEST(MqscLines, ContinuationAtEndOfScriptEndsTheCommand) {
  EXPECT_EQ(texts("DEFINE QLOCAL(A) +"), (std::vector<std::string>{"DEFINE QLOCAL(A) "}));
  EXPECT_EQ(texts("DEFINE QLOCAL(A) +\n* only a comment follows\n"),
            (std::vector<std::string>{"DEFINE QLOCAL(A) "}));
}

TEST(MqscLines, PositionsFollowTheLinesAsWritten) {
  const auto s = split_commands("\nDEF QL(A) +\n    MAXDEPTH(5)\n");
  ASSERT_EQ(s.size(), 1u);
  const command_source& c = s[0];
  ASSERT_EQ(c.text, "DEF QL(A) MAXDEPTH(5)");
  ASSERT_EQ(c.positions.size(), c.text.size());
  EXPECT_EQ(c.position_of(0).line, 2u);
  EXPECT_EQ(c.position_of(0).column, 1u);
  const std::size_t m = c.text.find("MAXDEPTH");
  EXPECT_EQ(c.position_of(m).line, 3u);
  EXPECT_EQ(c.position_of(m).column, 5u);
  EXPECT_EQ(c.end.line, 3u);
  EXPECT_EQ(c.end.column, 16u);  // just past "MAXDEPTH(5)"
  EXPECT_EQ(c.position_of(c.text.size()).column, c.end.column);
}

TEST(MqscTokens, WordsAreFoldedQuotedStringsKeptAsWritten) {
  const auto t = tokens_of("define qlocal('My.Queue') descr('it''s') maxdepth(5)");
  ASSERT_EQ(t.size(), 13u);
  EXPECT_EQ(t[0].kind, token_kind::word);
  EXPECT_EQ(t[0].text, "DEFINE");
  EXPECT_EQ(t[1].text, "QLOCAL");
  EXPECT_EQ(t[2].kind, token_kind::open_paren);
  EXPECT_EQ(t[3].kind, token_kind::quoted);
  EXPECT_EQ(t[3].text, "My.Queue");
  EXPECT_EQ(t[3].length, 10u);
  EXPECT_EQ(t[4].kind, token_kind::close_paren);
  EXPECT_EQ(t[7].text, "it's");
  EXPECT_EQ(t[7].length, 7u);
  EXPECT_EQ(t[9].text, "MAXDEPTH");
}

TEST(MqscTokens, EmptyQuotedStringAndQuotesOnly) {
  const auto t = tokens_of("X('' '''' '''''')");
  ASSERT_EQ(t.size(), 6u);
  EXPECT_EQ(t[2].text, "");
  EXPECT_EQ(t[3].text, "'");
  EXPECT_EQ(t[4].text, "''");
}

TEST(MqscTokens, BlanksAndCommasSeparate) {
  const auto t = tokens_of("NAMES(A, B,,C\tD) ,X");
  ASSERT_EQ(t.size(), 8u);
  EXPECT_EQ(t[2].text, "A");
  EXPECT_FALSE(t[2].separated);
  EXPECT_EQ(t[3].text, "B");
  EXPECT_TRUE(t[3].separated);
  EXPECT_EQ(t[4].text, "C");
  EXPECT_EQ(t[5].text, "D");
  EXPECT_EQ(t[7].text, "X");
  EXPECT_TRUE(t[7].separated);
  EXPECT_FALSE(t[1].separated);  // '(' right after NAMES
}

TEST(MqscTokens, BlanksInsideQuotesAreKept) {
  const auto t = tokens_of("DESCR('  a,b (c) ; d  ')");
  ASSERT_EQ(t.size(), 4u);
  EXPECT_EQ(t[2].text, "  a,b (c) ; d  ");
}

TEST(MqscTokens, SemicolonIsAToken) {
  const auto t = tokens_of("END;");
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t[1].kind, token_kind::semicolon);
}

TEST(MqscTokens, OnlyAsciiLettersAreFolded) {
  const auto t = tokens_of("q.\xE9t\xC9.%/_*");
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t[0].text, "Q.\xE9T\xC9.%/_*");
}

TEST(MqscTokens, EveryTokenKnowsItsLineAndColumn) {
  const auto s = split_commands("DEFINE QLOCAL(A) +\n   DESCR('x-\ny')");
  ASSERT_EQ(s.size(), 1u);
  const token_list t = tokenize(s[0]);
  ASSERT_EQ(t.tokens.size(), 9u);
  EXPECT_EQ(t.tokens[1].position.line, 1u);
  EXPECT_EQ(t.tokens[1].position.column, 8u);
  EXPECT_EQ(t.tokens[5].text, "DESCR");
  EXPECT_EQ(t.tokens[5].position.line, 2u);
  EXPECT_EQ(t.tokens[5].position.column, 4u);
  EXPECT_EQ(t.tokens[7].text, "xy");  // a quoted string continued with '-'
  EXPECT_EQ(t.tokens[7].position.column, 10u);
  EXPECT_EQ(t.tokens[8].position.line, 3u);
  EXPECT_EQ(t.tokens[8].position.column, 3u);
}

TEST(MqscTokens, UnterminatedQuoteReportsWhereTheStringOpened) {
  const auto s = split_commands("DEFINE QLOCAL(A) DESCR('abc) MAXDEPTH(5)");
  ASSERT_EQ(s.size(), 1u);
  const token_list t = tokenize(s[0]);
  ASSERT_TRUE(t.unterminated_quote.has_value());
  EXPECT_EQ(t.unterminated_quote->column, 24u);
  EXPECT_EQ(t.tokens.size(), 7u);  // what came before the quote
}

TEST(MqscTokens, DoubledQuoteAtTheEndIsNotAClosingQuote) {
  const auto s = split_commands("DESCR('abc''");
  const token_list t = tokenize(s.at(0));
  EXPECT_TRUE(t.unterminated_quote.has_value());
}

}  // namespace
}  // namespace imsb::mqsc
