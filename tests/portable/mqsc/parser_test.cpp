// The command tree: verb, object type, name, parameters; abbreviations, quoting, lists, WHERE, generic
// names, nested CONNAME values, unsupported commands, and IBM's queue-manager alias examples [C: QMALIAS].

#include "imsb/mqsc/parser.hpp"

#include <gtest/gtest.h>

namespace imsb::mqsc {
namespace {

command one(std::string_view text) {
  const command_result r = parse_command(text);
  EXPECT_TRUE(r.ok()) << text << ": " << (r.error ? r.error->message() : "");
  return r.cmd.value_or(command{});
}

std::vector<std::string> texts(const parameter* p) {
  std::vector<std::string> out;
  if (p != nullptr)
    for (const auto& v : p->values) out.push_back(v.text);
  return out;
}

TEST(MqscParser, Seed002QueueManagerAliasWithBlankBeforeParenthesis) {
  // IBM's example [C: QMALIAS]: "DEFINE QREMOTE (YOURQM) RQMNAME(REALQM)" — a blank may come before '('.
  const command c = one("DEFINE QREMOTE (YOURQM) RQMNAME(REALQM)");
  EXPECT_EQ(c.verb, "DEFINE");
  EXPECT_EQ(c.object_type, "QREMOTE");
  ASSERT_TRUE(c.name.has_value());
  EXPECT_EQ(c.name->text, "YOURQM");
  EXPECT_FALSE(c.name->quoted);
  ASSERT_EQ(c.parameters.size(), 1u);
  EXPECT_EQ(c.parameters[0].keyword, "RQMNAME");
  EXPECT_TRUE(c.parameters[0].has_parens);
  EXPECT_EQ(texts(&c.parameters[0]), std::vector<std::string>{"REALQM"});
  EXPECT_TRUE(c.supported);
}

TEST(MqscParser, Seed002QueueManagerAliasThroughTransmissionQueue) {
  const command c = one("DEFINE QREMOTE (QM3) RNAME(' ') RQMNAME(QM3) XMITQ(QM2)");
  EXPECT_EQ(c.name->text, "QM3");
  const parameter* rname = c.find("RNAME");
  ASSERT_NE(rname, nullptr);
  ASSERT_EQ(rname->values.size(), 1u);
  EXPECT_EQ(rname->values[0].text, " ");  // the blank RNAME that makes it a queue-manager alias
  EXPECT_TRUE(rname->values[0].quoted);
  EXPECT_EQ(texts(c.find("RQMNAME")), std::vector<std::string>{"QM3"});
  EXPECT_EQ(texts(c.find("XMITQ")), std::vector<std::string>{"QM2"});
  EXPECT_EQ(c.find("DESCR"), nullptr);
}

TEST(MqscParser, UnquotedIsFoldedQuotedIsKept) {
  // [I: MQSC-RULES]: unquoted names fold to upper case; quoted ones are kept as written.
  const command c = one("define qlocal('target.queue.manager') usage(xmitq) descr('It''s mine')");
  EXPECT_EQ(c.name->text, "target.queue.manager");
  EXPECT_TRUE(c.name->quoted);
  EXPECT_EQ(c.parameters[0].keyword, "USAGE");
  EXPECT_EQ(c.parameters[0].values[0].text, "XMITQ");
  EXPECT_FALSE(c.parameters[0].values[0].quoted);
  EXPECT_EQ(c.parameters[1].values[0].text, "It's mine");
}

TEST(MqscParser, BareKeywordsAndAnyOrder) {
  const command c = one("DEFINE QLOCAL(IMS.BRIDGE.Q1) NOSHARE STGCLASS(IMSA) REPLACE DEFSOPT(EXCL)");
  ASSERT_EQ(c.parameters.size(), 4u);
  EXPECT_EQ(c.parameters[0].keyword, "NOSHARE");
  EXPECT_FALSE(c.parameters[0].has_parens);
  EXPECT_TRUE(c.parameters[0].values.empty());
  EXPECT_EQ(c.parameters[2].keyword, "REPLACE");
  EXPECT_EQ(c.parameters[3].keyword, "DEFSOPT");
}

TEST(MqscParser, BlanksAndCommasAnywhere) {
  // IBM's own example: ALTER QLOCAL ('Account' )      TRIGDPTH ( 1)
  const command c = one("  ALTER QLOCAL ('Account' )      TRIGDPTH ( 1),,MAXDEPTH(2)  ");
  EXPECT_EQ(c.verb, "ALTER");
  EXPECT_EQ(c.name->text, "Account");
  ASSERT_EQ(c.parameters.size(), 2u);
  EXPECT_EQ(texts(&c.parameters[0]), std::vector<std::string>{"1"});
  EXPECT_EQ(c.parameters[1].keyword, "MAXDEPTH");
}

TEST(MqscParser, NoBlankNeededAfterAClosingParenthesis) {
  // Distributed MQ wants one, z/OS does not; we accept both [D].
  const command c = one("DEFINE QLOCAL(A)DESCR('x')MAXDEPTH(5)");
  ASSERT_EQ(c.parameters.size(), 2u);
  EXPECT_EQ(c.parameters[1].keyword, "MAXDEPTH");
}

TEST(MqscParser, ValueLists) {
  const command c = one("DEFINE NAMELIST(NL1) NAMES(Q1, q2 'Q3',,Q4) SET AUTHADD(PUT,INQ)");
  const parameter* names = c.find("NAMES");
  ASSERT_NE(names, nullptr);
  EXPECT_EQ(texts(names), (std::vector<std::string>{"Q1", "Q2", "Q3", "Q4"}));
  EXPECT_TRUE(names->values[2].quoted);
  EXPECT_FALSE(c.find("SET")->has_parens);
}

TEST(MqscParser, KeywordsAreCanonicalUpperCase) {
  const command c = one("alter qmgr deadq('SYSTEM.DEAD.LETTER.QUEUE') DefXmitQ(' ')");
  EXPECT_EQ(c.verb, "ALTER");
  EXPECT_EQ(c.object_type, "QMGR");
  EXPECT_FALSE(c.name.has_value());
  ASSERT_NE(c.find("DEADQ"), nullptr);
  ASSERT_NE(c.find("DEFXMITQ"), nullptr);
  EXPECT_EQ(c.find("DEADQ")->values[0].text, "SYSTEM.DEAD.LETTER.QUEUE");
}

TEST(MqscParser, ParameterPositions) {
  const parse_result r = parse("* c\nDEFINE QLOCAL(A) +\n       MAXDEPTH(5) DESCR(X)\n");
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r.commands.size(), 1u);
  const command& c = r.commands[0];
  EXPECT_EQ(c.line, 2u);
  EXPECT_EQ(c.text, "DEFINE QLOCAL(A) +\n       MAXDEPTH(5) DESCR(X)");
  EXPECT_EQ(c.parameters[0].line, 3u);
  EXPECT_EQ(c.parameters[0].column, 8u);
  EXPECT_EQ(c.parameters[1].column, 20u);
}

TEST(MqscParser, WhereFilterKeepsItsTokens) {
  const command c = one("DIS QL(IMS.*) WHERE(curdepth gt 100) CURDEPTH");
  EXPECT_EQ(c.verb, "DISPLAY");
  EXPECT_EQ(c.object_type, "QLOCAL");
  EXPECT_EQ(c.name->text, "IMS.*");
  EXPECT_TRUE(c.name->is_generic());
  EXPECT_EQ(texts(c.find("WHERE")), (std::vector<std::string>{"CURDEPTH", "GT", "100"}));
  const command d = one("DISPLAY CHANNEL(*) WHERE(DESCR LK 'Sender*')");
  EXPECT_EQ(d.find("WHERE")->values[2].text, "Sender*");
  EXPECT_TRUE(d.find("WHERE")->values[2].quoted);
}

TEST(MqscParser, GenericNamesAreKeptAsWritten) {
  EXPECT_EQ(one("DISPLAY QUEUE(*)").name->text, "*");
  EXPECT_EQ(one("DISPLAY QUEUE('abc*')").name->text, "abc*");
  EXPECT_TRUE(one("DISPLAY QUEUE('abc*')").name->is_generic());
  EXPECT_FALSE(one("DISPLAY QUEUE(ABC)").name->is_generic());
  EXPECT_EQ(one("DISPLAY STGCLASS(SYSTEM*) XCFGNAME").name->text, "SYSTEM*");
}

TEST(MqscParser, ConnameWithPortInParentheses) {
  // [I] runmqsc accepts host(port) unquoted; the group is one value.
  const command c = one("DEFINE CHANNEL(TO.QM2) CHLTYPE(SDR) CONNAME(qm2.example.com(1414)) XMITQ(QM2)");
  EXPECT_EQ(texts(c.find("CONNAME")), std::vector<std::string>{"QM2.EXAMPLE.COM(1414)"});
  EXPECT_EQ(texts(c.find("XMITQ")), std::vector<std::string>{"QM2"});
  const command d =
      one("DEFINE CHANNEL(TO.QM2) CHLTYPE(SDR) LOCLADDR(9.20.4.98( 1000, 1100 )) CONNAME(A(1),B(2))");
  EXPECT_EQ(texts(d.find("LOCLADDR")), std::vector<std::string>{"9.20.4.98(1000,1100)"});
  EXPECT_EQ(texts(d.find("CONNAME")), (std::vector<std::string>{"A(1)", "B(2)"}));
  const command e = one("DEFINE CHANNEL(TO.QM2) CHLTYPE(SDR) CONNAME('host1(1414),host2(1414)')");
  EXPECT_EQ(texts(e.find("CONNAME")), std::vector<std::string>{"host1(1414),host2(1414)"});
}

TEST(MqscParser, RangeAndOtherSpecialValuesUnquoted) {
  const command c = one("DISPLAY QMGR CLASS(01:03) TRACE(*)");
  EXPECT_EQ(texts(c.find("CLASS")), std::vector<std::string>{"01:03"});
  EXPECT_EQ(texts(c.find("TRACE")), std::vector<std::string>{"*"});
}

TEST(MqscParser, EmptyQuotedValueIsAValue) {
  // '' is not "no significant information": the catalog decides whether it means ' ' [C] MQSC rules.
  const command c = one("ALTER QMGR DEFXMITQ('')");
  ASSERT_EQ(c.find("DEFXMITQ")->values.size(), 1u);
  EXPECT_EQ(c.find("DEFXMITQ")->values[0].text, "");
  EXPECT_TRUE(c.find("DEFXMITQ")->values[0].quoted);
}

TEST(MqscParser, BridgeOperatorCommands) {
  // RESET TPIPE [C: RESET-TPIPE]; SUSPEND/RESUME QMGR FACILITY(IMSBRIDGE) [C: CONTROL-BRIDGE].
  const command r =
      one("RESET TPIPE(CSQ00001) XCFMNAME(IMS1) ACTION(COMMIT) SENDSEQ(5) RCVSEQ(7) XCFGNAME(GRP1)");
  EXPECT_EQ(r.verb, "RESET");
  EXPECT_EQ(r.object_type, "TPIPE");
  EXPECT_EQ(r.name->text, "CSQ00001");
  EXPECT_EQ(r.parameters.size(), 5u);
  EXPECT_TRUE(r.supported);
  const command s = one("SUSPEND QMGR FACILITY(IMSBRIDGE)");
  EXPECT_EQ(texts(s.find("FACILITY")), std::vector<std::string>{"IMSBRIDGE"});
  EXPECT_TRUE(s.supported);
  EXPECT_TRUE(one("RESUME QMGR FACILITY(IMSBRIDGE)").supported);
}

TEST(MqscParser, EveryVerbAbbreviation) {
  EXPECT_EQ(one("DEF QL(A)").verb, "DEFINE");
  EXPECT_EQ(one("ALT QL(A) MAXDEPTH(1)").verb, "ALTER");
  EXPECT_EQ(one("DIS QL(A)").verb, "DISPLAY");
  EXPECT_EQ(one("STA CHL(A)").verb, "START");
  EXPECT_EQ(one("REF SECURITY").verb, "REFRESH");
}

TEST(MqscParser, UnsupportedCommandsParseAndSaySo) {
  const std::pair<const char*, const char*> cases[] = {
      {"SET CHLAUTH('*') TYPE(BLOCKUSER) USERLIST('nobody')", "SET CHLAUTH"},
      {"DEFINE TOPIC(T1) TOPICSTR('a/b')", "DEFINE TOPIC"},
      {"DEFINE SUB(S1) TOPICSTR('a/b') DEST(Q1)", "DEFINE SUB"},
      {"DEFINE CFSTRUCT(APP1) CFLEVEL(5)", "DEFINE CFSTRUCT"},
      {"ALTER CFSTRUCT(APP1) RECOVER(YES)", "ALTER CFSTRUCT"},
      {"PING QMGR", "PING QMGR"},
      {"REFRESH SECURITY TYPE(SSL)", "REFRESH SECURITY"},
      {"DISPLAY LSSTATUS(*)", "DISPLAY LSSTATUS"},
      {"PING CHANNEL(A)", "PING CHANNEL"},
  };
  for (const auto& [text, what] : cases) {
    const command c = one(text);
    EXPECT_FALSE(c.supported) << text;
    EXPECT_EQ(c.unsupported_reason.rfind(std::string(what) + " is not implemented by imsbridge", 0), 0u)
        << c.unsupported_reason;
  }
}

TEST(MqscParser, EndAndSemicolon) {
  const command e = one("END");
  EXPECT_EQ(e.verb, "END");
  EXPECT_TRUE(e.object_type.empty());
  EXPECT_TRUE(e.supported);
  EXPECT_EQ(one("DEFINE QLOCAL(A) ;").name->text, "A");
  // Multiplatforms: ';' ends a command even after a '+' on the line before [C].
  const parse_result r = parse("DEFINE QLOCAL(A) +\n;\nDEFINE QLOCAL(B)\n");
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r.commands.size(), 2u);
  EXPECT_EQ(r.commands[1].name->text, "B");
  EXPECT_TRUE(parse(";\n  ;  \n").commands.empty());
  EXPECT_TRUE(parse(";\n").ok());
}

TEST(MqscParser, ContinuedQuotedStringInAScript) {
  const parse_result r = parse(
      "DEFINE QLOCAL(A) DESCR('first part, -\n"
      "second part') +\n"
      "   MAXDEPTH(5)\n"
      "DEFINE QLOCAL(B) DESCR('joined+\n"
      "      here')\n");
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r.commands.size(), 2u);
  EXPECT_EQ(r.commands[0].find("DESCR")->values[0].text, "first part, second part");
  EXPECT_EQ(r.commands[0].find("MAXDEPTH")->values[0].text, "5");
  EXPECT_EQ(r.commands[1].find("DESCR")->values[0].text, "joinedhere");
}

TEST(MqscParser, ParsingGoesOnAfterABadCommand) {
  const parse_result r =
      parse("DEFINE QLOCAL(A) MAXDEPTH(5\nFOO BAR\nDEFINE QLOCAL(B)\nDEFINE QLOCAL(C) X(1) X(2)\nEND\n");
  ASSERT_EQ(r.commands.size(), 2u);
  EXPECT_EQ(r.commands[0].name->text, "B");
  EXPECT_EQ(r.commands[1].verb, "END");
  ASSERT_EQ(r.errors.size(), 3u);
  EXPECT_EQ(r.errors[0].line, 1u);
  EXPECT_EQ(r.errors[1].line, 2u);
  EXPECT_EQ(r.errors[2].line, 4u);
}

TEST(MqscParser, ParseCommandWantsExactlyOneCommand) {
  const command_result two = parse_command("DEFINE QLOCAL(A)\nDEFINE QLOCAL(B)");
  EXPECT_FALSE(two.ok());
  ASSERT_TRUE(two.error.has_value());
  EXPECT_EQ(
      two.error->message(),
      "line 2, column 1: DEFINE QLOCAL: expected end of input after one command but found another command");
  const command_result none = parse_command("* only a comment\n");
  EXPECT_FALSE(none.ok());
  EXPECT_EQ(none.error->kind, error_kind::unknown_verb);
  const command_result continued = parse_command("DEFINE QLOCAL(A) +\n MAXDEPTH(1)");
  ASSERT_TRUE(continued.ok());
  EXPECT_EQ(continued.cmd->parameters.size(), 1u);
}

}  // namespace
}  // namespace imsb::mqsc
