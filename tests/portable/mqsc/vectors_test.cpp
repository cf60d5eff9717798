// The sample scripts under tests/vectors/mqsc: a realistic bridge set-up, the bridge's operator commands
// [C: RESET-TPIPE, CONTROL-BRIDGE], and a script with mistakes whose messages are checked line by line.

#include <gtest/gtest.h>

#include <sstream>

#include "imsb/mqsc/parser.hpp"
#include "imsb/mqsc/printer.hpp"
#include "vectors.hpp"

namespace imsb::mqsc {
namespace {

std::string vector_text(const std::string& name) {
  return test::read_text(test::vectors_dir() + "/mqsc/" + name);
}

const command& find_command(const parse_result& r, std::string_view verb, std::string_view object,
                            std::string_view name) {
  for (const command& c : r.commands)
    if (c.verb == verb && c.object_type == object && c.name && c.name->text == name) return c;
  ADD_FAILURE() << "no " << verb << " " << object << "(" << name << ")";
  static const command none;
  return none;
}

std::string value_of(const command& c, std::string_view keyword, std::size_t i = 0) {
  const parameter* p = c.find(keyword);
  return p != nullptr && i < p->values.size() ? p->values[i].text : std::string("<none>");
}

TEST(MqscVectors, BridgeSetupParsesWithoutErrors) {
  const parse_result r = parse(vector_text("bridge_setup.mqsc"));
  for (const parse_error& e : r.errors) ADD_FAILURE() << e.message();
  ASSERT_EQ(r.commands.size(), 22u);

  const command& stc = find_command(r, "DEFINE", "STGCLASS", "IMSA");
  EXPECT_EQ(stc.line, 9u);
  EXPECT_EQ(value_of(stc, "XCFGNAME"), "XCFGRP1");
  EXPECT_EQ(value_of(stc, "XCFMNAME"), "IMS1");
  EXPECT_EQ(value_of(stc, "PSID"), "02");  // kept as written: the catalog reads the number
  EXPECT_EQ(stc.parameters.size(), 5u);
  EXPECT_EQ(stc.find("XCFMNAME")->line, 13u);
  EXPECT_EQ(stc.find("XCFMNAME")->column, 8u);

  const command& q1 = find_command(r, "DEFINE", "QLOCAL", "IMS.BRIDGE.Q1");
  EXPECT_EQ(value_of(q1, "DESCR"), "CM0 transactions for IMS1 - don't share");
  EXPECT_NE(q1.find("NOSHARE"), nullptr);
  EXPECT_EQ(value_of(q1, "DEFSOPT"), "EXCL");
  const command& q2 = find_command(r, "DEFINE", "QLOCAL", "IMS.BRIDGE.Q2");
  EXPECT_EQ(value_of(q2, "DESCR"), "CM1 transactions for IMS1, commit mode 1 (send-then-commit)");
  EXPECT_EQ(value_of(find_command(r, "DEFINE", "QLOCAL", "IMS.BRIDGE.BACKOUT"), "DEFPSIST"), "YES");

  const command& xmitq = find_command(r, "DEFINE", "QLOCAL", "QM2");
  EXPECT_EQ(value_of(xmitq, "USAGE"), "XMITQ");
  const command& alias = find_command(r, "DEFINE", "QREMOTE", "QM3");
  EXPECT_EQ(value_of(alias, "RNAME"), " ");
  EXPECT_EQ(value_of(alias, "XMITQ"), "QM2");
  EXPECT_EQ(value_of(find_command(r, "DEFINE", "QALIAS", "IMS.REQUEST"), "TARGET"), "IMS.BRIDGE.Q1");
  EXPECT_TRUE(find_command(r, "DEFINE", "QMODEL", "App.Temp.Model").name->quoted);

  EXPECT_EQ(value_of(find_command(r, "DEFINE", "CHANNEL", "QMZ1.TO.QM2"), "CONNAME"),
            "qm2.example.com(1414)");
  EXPECT_EQ(value_of(find_command(r, "DEFINE", "CHANNEL", "QMZ1.BACKUP"), "CONNAME"),
            "QM2B.EXAMPLE.COM(1415)");
  EXPECT_EQ(value_of(find_command(r, "DEFINE", "CHANNEL", "QM2.TO.QMZ1"), "CHLTYPE"), "RCVR");

  std::size_t unsupported = 0;
  for (const command& c : r.commands) {
    if (c.supported) continue;
    ++unsupported;
    EXPECT_TRUE((c.verb == "SET" && c.object_type == "CHLAUTH") ||
                (c.verb == "DEFINE" && c.object_type == "TOPIC"))
        << c.text;
  }
  EXPECT_EQ(unsupported, 2u);

  const command& qmgr = r.commands[14];
  EXPECT_EQ(qmgr.verb, "ALTER");
  EXPECT_EQ(qmgr.object_type, "QMGR");
  EXPECT_EQ(value_of(qmgr, "DEADQ"), "SYSTEM.DEAD.LETTER.QUEUE");
  EXPECT_EQ(value_of(qmgr, "DEFXMITQ"), " ");

  const command& authrec = r.commands[19];
  EXPECT_EQ(authrec.verb, "SET");
  EXPECT_EQ(authrec.object_type, "AUTHREC");
  EXPECT_EQ(value_of(authrec, "PRINCIPAL"), "appuser");
  EXPECT_EQ(authrec.find("AUTHADD")->values.size(), 2u);

  const command& dis = r.commands[20];
  EXPECT_EQ(dis.name->text, "IMS.BRIDGE.*");
  EXPECT_EQ(value_of(dis, "WHERE", 1), "GT");
}

TEST(MqscVectors, BridgeSetupCanonicalFormIsStable) {
  // The golden canonical text: what to_mqsc prints for each command, one per line.
  const parse_result r = parse(vector_text("bridge_setup.mqsc"));
  std::string printed;
  for (const command& c : r.commands) printed += to_mqsc(c) + "\n";
  const std::string golden = vector_text("bridge_setup.canonical.mqsc");
  EXPECT_EQ(printed, golden);
  const parse_result again = parse(golden);
  EXPECT_TRUE(again.ok());
  EXPECT_EQ(again.commands, r.commands);
}

TEST(MqscVectors, BridgeOperations) {
  const parse_result r = parse(vector_text("bridge_operations.mqsc"));
  for (const parse_error& e : r.errors) ADD_FAILURE() << e.message();
  ASSERT_EQ(r.commands.size(), 11u);
  for (const command& c : r.commands) EXPECT_TRUE(c.supported) << c.text << ": " << c.unsupported_reason;
  EXPECT_EQ(r.commands[0].verb, "SUSPEND");
  EXPECT_EQ(value_of(r.commands[0], "FACILITY"), "IMSBRIDGE");
  const command& reset = r.commands[1];
  EXPECT_EQ(reset.object_type, "TPIPE");
  EXPECT_EQ(reset.name->text, "CSQ00001");
  EXPECT_EQ(value_of(reset, "ACTION"), "BACKOUT");
  EXPECT_EQ(value_of(reset, "SENDSEQ"), "5");
  EXPECT_EQ(value_of(reset, "RCVSEQ"), "7");
  EXPECT_EQ(r.commands[3].object_type, "QSTATUS");
  EXPECT_EQ(r.commands[4].object_type, "CHSTATUS");
  EXPECT_EQ(r.commands[5].verb, "START");
  EXPECT_EQ(r.commands[5].object_type, "CHANNEL");
  EXPECT_EQ(r.commands[7].verb, "CLEAR");
  EXPECT_EQ(r.commands[8].object_type, "QUEUE");
  EXPECT_EQ(r.commands.back().verb, "END");
}

TEST(MqscVectors, ScriptWithMistakes) {
  const parse_result r = parse(vector_text("errors.mqsc"));
  std::vector<std::string> expected;
  std::istringstream lines(vector_text("errors.expected"));
  for (std::string line; std::getline(lines, line);)
    if (!line.empty()) expected.push_back(line);
  std::vector<std::string> got;
  for (const parse_error& e : r.errors) got.push_back(e.message());
  EXPECT_EQ(got, expected);
  ASSERT_EQ(r.commands.size(), 3u);
  EXPECT_EQ(r.commands[0].name->text, "GOOD.1");
  EXPECT_EQ(r.commands[1].name->text, "GOOD.3");
  EXPECT_EQ(r.commands[2].verb, "END");
}

}  // namespace
}  // namespace imsb::mqsc
