// Every error kind, with the full message an operator sees.

#include "imsb/mqsc/error.hpp"

#include <gtest/gtest.h>

#include "imsb/mqsc/parser.hpp"

namespace imsb::mqsc {
namespace {

struct error_case {
  const char* script;
  error_kind kind;
  const char* message;
};

const error_case cases[] = {
    {"FOO QLOCAL(A)", error_kind::unknown_verb,
     "line 1, column 1: expected an MQSC verb (ALTER, CLEAR, DEFINE, DELETE, DISPLAY, END, PING, REFRESH, "
     "RESET, RESOLVE, RESUME, SET, START, STOP, SUSPEND ...) but found FOO"},
    {"DEFI QL(A)", error_kind::unknown_verb,
     "line 1, column 1: expected an MQSC verb (ALTER, CLEAR, DEFINE, DELETE, DISPLAY, END, PING, REFRESH, "
     "RESET, RESOLVE, RESUME, SET, START, STOP, SUSPEND ...) but found DEFI"},
    {"'DEFINE' QL(A)", error_kind::unknown_verb,
     "line 1, column 1: expected an MQSC verb (ALTER, CLEAR, DEFINE, DELETE, DISPLAY, END, PING, REFRESH, "
     "RESET, RESOLVE, RESUME, SET, START, STOP, SUSPEND ...) but found quoted string 'DEFINE'"},
    {"DEFINE", error_kind::missing_object_type,
     "line 1, column 7: DEFINE: expected an object type after DEFINE but found end of command"},
    {"DEFINE (A)", error_kind::missing_object_type,
     "line 1, column 8: DEFINE: expected an object type after DEFINE but found '('"},
    {"DEFINE QFOO(A)", error_kind::unknown_object_type,
     "line 1, column 8: DEFINE: expected an MQSC object type (QLOCAL, QREMOTE, QALIAS, QMODEL, CHANNEL, QMGR "
     "...) but found QFOO"},
    {"CLEAR CHANNEL(A)", error_kind::invalid_object_type,
     "line 1, column 7: CLEAR: expected an object type that CLEAR applies to but found CHANNEL"},
    {"DEFINE QLOCAL MAXDEPTH(5)", error_kind::missing_name,
     "line 1, column 15: DEFINE QLOCAL: expected '(' and the object name after QLOCAL but found MAXDEPTH"},
    {"DISPLAY QUEUE", error_kind::missing_name,
     "line 1, column 14: DISPLAY QUEUE: expected '(' and the object name after QUEUE but found end of "
     "command"},
    {"ALTER QMGR(QM1) DEADQ(DLQ)", error_kind::unexpected_name,
     "line 1, column 11: ALTER QMGR: expected a keyword (QMGR takes no name) but found '('"},
    {"* header\n\nDEFINE QLOCAL(A) +\n  MAXDEPTH(5", error_kind::missing_parenthesis,
     "line 4, column 13: DEFINE QLOCAL: keyword MAXDEPTH: expected ')' but found end of command"},
    {"DEFINE QLOCAL(A MAXDEPTH(5)", error_kind::missing_parenthesis,
     "line 1, column 28: DEFINE QLOCAL: expected ')' but found end of command"},
    {"DEFINE QLOCAL(A) MAXDEPTH(5;", error_kind::missing_parenthesis,
     "line 1, column 28: DEFINE QLOCAL: keyword MAXDEPTH: expected ')' but found end of command"},
    {"DEFINE CHANNEL(A) CHLTYPE(SDR) CONNAME(HOST(1414 XMITQ(Q)", error_kind::missing_parenthesis,
     "line 1, column 40: DEFINE CHANNEL: keyword CONNAME: expected ')' but found HOST("},
    {"DEFINE QLOCAL(A) MAXDEPTH(5 DESCR('x')", error_kind::missing_parenthesis,
     "line 1, column 29: DEFINE QLOCAL: keyword MAXDEPTH: expected ')' but found DESCR("},
    {"DEFINE QLOCAL(A) DESCR('abc) +\n   MAXDEPTH(5)", error_kind::unterminated_quote,
     "line 1, column 24: DEFINE QLOCAL: keyword DESCR: expected a closing quote (') but found end of "
     "command"},
    {"DEFINE QLOCAL(A) 'abc", error_kind::unterminated_quote,
     "line 1, column 18: DEFINE QLOCAL: expected a closing quote (') but found end of command"},
    {"DEFINE QLOCAL(A) DESCR(X) MAXDEPTH(1) DESCR(Y)", error_kind::repeated_keyword,
     "line 1, column 39: DEFINE QLOCAL: keyword DESCR: expected DESCR only once but found it again (first at "
     "line 1, column 18)"},
    {"DEFINE QLOCAL(A) REPLACE +\n  NOREPLACE", error_kind::repeated_keyword,
     "line 2, column 3: DEFINE QLOCAL: keyword NOREPLACE: expected only one of REPLACE and NOREPLACE but "
     "found "
     "both (REPLACE at line 1, column 18)"},
    {"DEFINE QLOCAL(A) NOSHARE SHARE", error_kind::repeated_keyword,
     "line 1, column 26: DEFINE QLOCAL: keyword SHARE: expected only one of SHARE and NOSHARE but found both "
     "(NOSHARE at line 1, column 18)"},
    {"DEFINE QLOCAL(A) 'abc'", error_kind::unexpected_token,
     "line 1, column 18: DEFINE QLOCAL: expected a keyword but found quoted string 'abc'"},
    {"DEFINE QLOCAL(A) MAX*DEPTH", error_kind::unexpected_token,
     "line 1, column 18: DEFINE QLOCAL: expected a keyword but found MAX*DEPTH"},
    {"DEFINE QLOCAL(A) (5)", error_kind::unexpected_token,
     "line 1, column 18: DEFINE QLOCAL: expected a keyword but found '('"},
    {"DEFINE QLOCAL(A) MAXDEPTH(5))", error_kind::unexpected_token,
     "line 1, column 29: DEFINE QLOCAL: expected a keyword but found ')'"},
    {"DEFINE QLOCAL(A,B)", error_kind::unexpected_token,
     "line 1, column 17: DEFINE QLOCAL: expected one object name but found B"},
    {"DEFINE QLOCAL(A) DESCR(abc'def')", error_kind::unexpected_token,
     "line 1, column 27: DEFINE QLOCAL: keyword DESCR: expected a blank, ',' or ')' after ABC but found "
     "quoted "
     "string 'def'"},
    {"DEFINE QLOCAL(A) DESCR(X (Y))", error_kind::unexpected_token,
     "line 1, column 26: DEFINE QLOCAL: keyword DESCR: expected a value or ')' but found '('"},
    {"DEFINE QLOCAL(A); DEFINE QLOCAL(B)", error_kind::unexpected_token,
     "line 1, column 19: DEFINE QLOCAL: expected end of line after ';' but found DEFINE"},
    {"END NOW", error_kind::unexpected_token,
     "line 1, column 5: END: expected end of command after END but found NOW"},
    {"DEFINE QLOCAL(A) MAXDEPTH()", error_kind::empty_value,
     "line 1, column 26: DEFINE QLOCAL: keyword MAXDEPTH: expected a value between the parentheses but found "
     "'()'"},
    {"DEFINE NAMELIST(N) NAMES( , )", error_kind::empty_value,
     "line 1, column 25: DEFINE NAMELIST: keyword NAMES: expected a value between the parentheses but found "
     "'()'"},
    {"DEFINE QLOCAL( )", error_kind::empty_value,
     "line 1, column 14: DEFINE QLOCAL: expected a value between the parentheses but found '()'"},
    {"DISPLAY QLOCAL(*) WHERE(CURDEPTH)", error_kind::invalid_where,
     "line 1, column 24: DISPLAY QLOCAL: keyword WHERE: expected WHERE(attribute operator value) but found 1 "
     "value"},
    {"DISPLAY QLOCAL(*) WHERE(CURDEPTH XX 5)", error_kind::invalid_where,
     "line 1, column 34: DISPLAY QLOCAL: keyword WHERE: expected an operator (LT, GT, EQ, NE, LE, GE, LK, "
     "NL, "
     "CT, EX, CTG, EXG) but found XX"},
    {"DISPLAY QLOCAL(*) WHERE('CURDEPTH' GT 5)", error_kind::invalid_where,
     "line 1, column 25: DISPLAY QLOCAL: keyword WHERE: expected an attribute name but found quoted string "
     "'CURDEPTH'"},
    {"DISPLAY QLOCAL(*) WHERE", error_kind::invalid_where,
     "line 1, column 19: DISPLAY QLOCAL: keyword WHERE: expected WHERE(attribute operator value) but found "
     "WHERE"},
};

TEST(MqscErrors, EachKindWithItsMessage) {
  for (const error_case& c : cases) {
    const parse_result r = parse(c.script);
    EXPECT_TRUE(r.commands.empty()) << c.script;
    ASSERT_EQ(r.errors.size(), 1u) << c.script;
    const parse_error& e = r.errors[0];
    EXPECT_EQ(e.kind, c.kind) << c.script << " -> " << error_kind_name(e.kind);
    EXPECT_EQ(e.message(), c.message) << c.script;
  }
}

TEST(MqscErrors, EveryKindIsCovered) {
  bool seen[13] = {};
  for (const error_case& c : cases) seen[static_cast<int>(c.kind)] = true;
  for (int k = 1; k <= 12; ++k) EXPECT_TRUE(seen[k]) << error_kind_name(static_cast<error_kind>(k));
}

TEST(MqscErrors, FieldsNameVerbObjectTypeAndKeyword) {
  const parse_result r = parse("\n\nDEF QL(A) MAXDEPTH(5\n");
  ASSERT_EQ(r.errors.size(), 1u);
  const parse_error& e = r.errors[0];
  EXPECT_EQ(e.line, 3u);
  EXPECT_EQ(e.column, 21u);
  EXPECT_EQ(e.verb, "DEFINE");
  EXPECT_EQ(e.object_type, "QLOCAL");
  EXPECT_EQ(e.keyword, "MAXDEPTH");
  EXPECT_EQ(e.expected, "')'");
  EXPECT_EQ(e.found, "end of command");
}

TEST(MqscErrors, ErrorCodesHaveTheirOwnCategory) {
  const std::error_code ec = error_kind::repeated_keyword;
  EXPECT_EQ(ec.category().name(), std::string("mqsc"));
  EXPECT_EQ(ec.value(), 9);
  EXPECT_EQ(ec.message(), "keyword repeated");
  EXPECT_EQ(make_error_code(error_kind::missing_name).message(), "object name missing");
  parse_error e;
  e.kind = error_kind::empty_value;
  EXPECT_EQ(e.code(), make_error_code(error_kind::empty_value));
  EXPECT_STREQ(error_kind_name(error_kind::unterminated_quote), "unterminated_quote");
}

TEST(MqscErrors, LongQuotedStringsAreShortenedInMessages) {
  const parse_result r = parse("DEFINE QLOCAL(A) '0123456789012345678901234567890123456789XYZ'");
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].found, "quoted string '0123456789012345678901234567890123456789'...");
}

}  // namespace
}  // namespace imsb::mqsc
