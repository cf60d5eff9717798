// runmqsc on MQSC errors (one clear line naming the command and the keyword, catalog left byte for byte)
// and on real-world MQSC files (tests/vectors/mqsc/): every command is applied or reported as not
// supported (or, for commands that need a running queue manager, as failing for that reason).

#include <gtest/gtest.h>

#include <regex>
#include <string>
#include <vector>

#include "imsb/core/messages.hpp"
#include "qmgr_e2e.hpp"

namespace imsb::test {
namespace {

using MqscErrorsE2e = qmgr_e2e;
using MqscFilesE2e = qmgr_e2e;

const std::regex error_line(R"(^IMB1\d{3}E: )");
const std::regex ok_line(R"(^IMB1\d{3}I: )");

std::vector<std::string> error_lines(const std::string& out) {
  std::vector<std::string> found;
  for (const auto& l : lines_of(out))
    if (std::regex_search(l, error_line)) found.push_back(l);
  return found;
}

TEST_F(MqscErrorsE2e, EachErrorIsOneLineNamingCommandAndKeywordAndChangesNothing) {
  create("QMERR");
  mqsc("QMERR",
       "DEFINE QLOCAL(EXIST.Q) MAXDEPTH(10)\n"
       "DEFINE STGCLASS(SC1) XCFGNAME(GRP1) XCFMNAME(IMS1)\n");
  const struct {
    std::string what;
    std::string script;
    std::vector<std::string> named;  // what the one error line must name
  } cases[] = {
      {"unknown keyword", "DEFINE QLOCAL(ERR.A) FOOBAR(1)\n", {"DEFINE QLOCAL", "FOOBAR"}},
      {"bad value", "DEFINE QLOCAL(ERR.B) MAXDEPTH(LOTS)\n", {"DEFINE QLOCAL", "MAXDEPTH"}},
      {"value out of range", "ALTER QLOCAL(EXIST.Q) DEFPRTY(10)\n", {"ALTER QLOCAL", "DEFPRTY"}},
      {"bad keyword value", "DEFINE QLOCAL(ERR.C) USAGE(SOMETIMES)\n", {"DEFINE QLOCAL", "USAGE"}},
      {"missing parenthesis", "DEFINE QLOCAL(ERR.D) MAXDEPTH(5000\n", {"DEFINE QLOCAL", "MAXDEPTH"}},
      {"missing parenthesis in a continued command",
       "DEFINE QLOCAL(ERR.E) +\n  DESCR('x' +\n  MAXDEPTH(5)\n",
       {"DEFINE QLOCAL", "DESCR"}},
      {"name too long", "DEFINE QLOCAL(" + std::string(49, 'N') + ")\n", {"DEFINE QLOCAL", "48"}},
      {"storage-class name too long", "DEFINE STGCLASS(TOOLONGSC)\n", {"DEFINE STGCLASS", "8"}},
      {"XCFGNAME without XCFMNAME", "DEFINE STGCLASS(SC2) XCFGNAME(GRP1)\n", {"DEFINE STGCLASS", "XCFMNAME"}},
      {"XCFMNAME cleared under XCFGNAME",
       "ALTER STGCLASS(SC1) XCFMNAME(' ')\n",
       {"ALTER STGCLASS", "XCFMNAME"}},
      {"DEFINE of an existing name without REPLACE",
       "DEFINE QLOCAL(EXIST.Q) MAXDEPTH(20)\n",
       {"DEFINE QLOCAL(EXIST.Q)", "REPLACE"}},
      {"DEFINE NOREPLACE of an existing name",
       "DEFINE QALIAS(EXIST.Q) TARGET(X) NOREPLACE\n",
       {"DEFINE QALIAS(EXIST.Q)", "EXIST.Q"}},
      {"repeated keyword", "DEFINE QLOCAL(ERR.F) DESCR(A) DESCR(B)\n", {"DEFINE QLOCAL", "DESCR"}},
      {"ALTER of a missing object",
       "ALTER QLOCAL(NO.SUCH.Q) MAXDEPTH(1)\n",
       {"ALTER QLOCAL(NO.SUCH.Q)", "not found"}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    const std::string before = catalog_bytes("QMERR");
    const ran r = runmqsc("QMERR", c.script);
    EXPECT_EQ(r.code, 10) << r.both();
    const auto errors = error_lines(r.out);
    ASSERT_EQ(errors.size(), 1u) << r.out;
    for (const auto& part : c.named) EXPECT_TRUE(contains(errors[0], part)) << errors[0] << " lacks " << part;
    EXPECT_EQ(catalog_bytes("QMERR"), before);
    EXPECT_TRUE(r.err.empty()) << r.err;
  }
  // A bad command among good ones: the good ones are applied, the bad one changes nothing.
  const ran mixed = runmqsc("QMERR",
                            "DEFINE QLOCAL(GOOD.1)\n"
                            "DEFINE QLOCAL(GOOD.2) MAXDEPTH(ABC)\n"
                            "DEFINE QLOCAL(GOOD.3)\n");
  EXPECT_EQ(mixed.code, 10) << mixed.both();
  const auto cat = load("QMERR");
  EXPECT_NE(cat.find(objects::object_family::queue, "GOOD.1"), nullptr);
  EXPECT_EQ(cat.find(objects::object_family::queue, "GOOD.2"), nullptr);
  EXPECT_NE(cat.find(objects::object_family::queue, "GOOD.3"), nullptr);
  EXPECT_EQ(cat.find(objects::object_family::queue, "EXIST.Q")->text("MAXDEPTH"), "10");
  EXPECT_TRUE(contains(mixed.out, "One valid MQSC command could not be processed.")) << mixed.out;
}

// The outcome of every command of a script: applied, not supported, or failed (with the line).
struct tally {
  int applied = 0;
  int unsupported = 0;
  int not_running = 0;
  std::vector<std::string> other_failures;
};

tally classify(const std::string& out) {
  tally t;
  for (const auto& b : mqsc_blocks(out)) {
    if (b.results.empty()) {
      // Only END may have no result.
      if (!contains(b.echo, " : END") && !contains(b.echo, " : end"))
        t.other_failures.push_back(b.echo + " (no result)");
      continue;
    }
    const std::string& first = b.results.front();
    if (std::regex_search(first, ok_line)) {
      ++t.applied;
    } else if (contains(first, "not implemented by imsbridge")) {
      ++t.unsupported;
    } else if (contains(first, "queue manager not running")) {
      ++t.not_running;
    } else {
      t.other_failures.push_back(b.echo + " -> " + first);
    }
  }
  return t;
}

std::string failures(const tally& t) {
  std::string s;
  for (const auto& f : t.other_failures) s += f + "\n";
  return s;
}

TEST_F(MqscFilesE2e, BridgeShopScriptAppliesEveryCommand) {
  create("QMBR");
  const ran r = run(IMSB_RUNMQSC, with_prefix({"-f", vectors_dir() + "/mqsc/bridge_shop.mqsc", "QMBR"}));
  EXPECT_EQ(r.code, 0) << r.both();
  const tally t = classify(r.out);
  EXPECT_EQ(t.applied, 12) << r.out;
  EXPECT_EQ(t.unsupported, 0);
  EXPECT_TRUE(t.other_failures.empty()) << failures(t);
  const auto cat = load("QMBR");
  const auto* sc = cat.find(objects::object_family::stgclass, "IMSSC01");
  ASSERT_NE(sc, nullptr);
  EXPECT_EQ(sc->text("XCFGNAME"), "OTMAGRP1");
  EXPECT_EQ(sc->text("XCFMNAME"), "IMS1");
  EXPECT_EQ(sc->text("PASSTKTA"), "IMSAPPL1");
  EXPECT_EQ(cat.qmgr().text("DEADQ"), "SYSTEM.DEAD.LETTER.QUEUE");
  const auto* q2 = cat.find(objects::object_family::queue, "IMS.BRIDGE.IMS2.TXN");
  ASSERT_NE(q2, nullptr);
  EXPECT_EQ(q2->text("STGCLASS"), "IMSSC02");
  EXPECT_EQ(q2->text("BOQNAME"), "IMS.BRIDGE.BACKOUT");  // from LIKE
  EXPECT_EQ(q2->text("DEFSOPT"), "EXCL");
  EXPECT_TRUE(contains(r.out, "XCFMNAME(IMS2)")) << r.out;  // the DISPLAY at the end
}

TEST_F(MqscFilesE2e, DistributedQueuingScriptAppliesEveryCommand) {
  create("QMA");
  // Through standard input this time, as `runmqsc QMA < distributed.mqsc`.
  const ran r = runmqsc("QMA", read_text(vectors_dir() + "/mqsc/distributed.mqsc"));
  EXPECT_EQ(r.code, 0) << r.both();
  const tally t = classify(r.out);
  EXPECT_EQ(t.applied, 13) << r.out;
  EXPECT_TRUE(t.other_failures.empty()) << failures(t);
  const auto cat = load("QMA");
  EXPECT_EQ(cat.find(objects::object_family::queue, "QMB")->text("USAGE"), "XMITQ");
  EXPECT_EQ(cat.find(objects::object_family::channel, "QMA.TO.QMB")->text("CHLTYPE"), "SDR");
  EXPECT_EQ(cat.find(objects::object_family::channel, "QMB.TO.QMA")->text("CHLTYPE"), "RCVR");
  EXPECT_EQ(cat.find(objects::object_family::listener, "QMA.LISTENER")->text("PORT"), "1414");
  const auto* alias = cat.find(objects::object_family::queue, "QMB.ALIAS");
  ASSERT_NE(alias, nullptr);
  EXPECT_EQ(alias->text("RNAME"), "");
  EXPECT_EQ(alias->text("RQMNAME"), "QMB");
}

TEST_F(MqscFilesE2e, StyleScriptWithAbbreviationsContinuationsAndComments) {
  create("QMST");
  const ran r = run(IMSB_RUNMQSC, with_prefix({"-f", vectors_dir() + "/mqsc/style.mqsc", "QMST"}));
  // The last command, DELETE QLOCAL(PAYROLL.OUT), needs a running queue manager (IMB1049E): runmqsc on
  // a stopped one cannot see the queue's messages.
  EXPECT_EQ(r.code, 10) << r.both();
  const tally t = classify(r.out);
  EXPECT_EQ(t.applied, 10) << r.out;
  EXPECT_EQ(t.not_running, 1) << r.out;
  EXPECT_TRUE(contains(r.out, std::string(imsb::msg::IMB1049E) + ": DELETE QLOCAL(PAYROLL.OUT)")) << r.out;
  EXPECT_TRUE(t.other_failures.empty()) << failures(t);
  const auto cat = load("QMST");
  const auto* in = cat.find(objects::object_family::queue, "PAYROLL.IN");
  ASSERT_NE(in, nullptr);
  EXPECT_EQ(in->text("MAXDEPTH"), "9999");
  EXPECT_EQ(in->text("GET"), "DISABLED");
  EXPECT_EQ(in->text("DESCR"), "Payroll input");
  EXPECT_NE(cat.find(objects::object_family::queue, "PAYROLL.OUT"), nullptr);  // not deleted (above)
  const auto* mixed = cat.find(objects::object_family::queue, "Mixed.Case.Queue");
  ASSERT_NE(mixed, nullptr);
  EXPECT_EQ(mixed->text("DESCR"), "kept exactly: Mixed Case, with 'quotes'");
  EXPECT_EQ(cat.find(objects::object_family::queue, "PAYROLL")->text("TARGET"), "PAYROLL.IN");
  EXPECT_EQ(cat.qmgr().text("DESCR"), "Payroll queue manager");
  const auto* nl = cat.find(objects::object_family::namelist, "PAYROLL.QUEUES");
  ASSERT_NE(nl, nullptr);
  ASSERT_EQ(nl->lists.count("NAMES"), 1u);
  EXPECT_EQ(nl->lists.at("NAMES"), (std::vector<std::string>{"PAYROLL.IN", "PAYROLL.OUT"}));
}

TEST_F(MqscFilesE2e, UnsupportedCommandsReportedAndTheRestApplied) {
  create("QMUN");
  const ran r = run(IMSB_RUNMQSC, with_prefix({"-f", vectors_dir() + "/mqsc/unsupported.mqsc", "QMUN"}));
  EXPECT_EQ(r.code, 10) << r.both();
  const tally t = classify(r.out);
  EXPECT_EQ(t.applied, 2) << r.out;
  EXPECT_EQ(t.unsupported, 5) << r.out;
  EXPECT_TRUE(t.other_failures.empty()) << failures(t);
  EXPECT_TRUE(contains(r.out, "7 MQSC commands read.")) << r.out;
  EXPECT_TRUE(contains(r.out, "5 valid MQSC commands could not be processed.")) << r.out;
  const auto cat = load("QMUN");
  EXPECT_NE(cat.find(objects::object_family::queue, "EVENTS.IN"), nullptr);
  EXPECT_NE(cat.find(objects::object_family::queue, "EVENTS.OUT"), nullptr);
  EXPECT_EQ(cat.find(objects::object_family::queue, "AFTER.END"), nullptr);  // after END
}

// The MQSC parser's own real-world vectors, now run against a queue manager.
TEST_F(MqscFilesE2e, ParserVectorsRunWithEveryCommandAccountedFor) {
  create("QMZ1");
  const struct {
    const char* file;
    int exit_code;
  } files[] = {{"bridge_setup.mqsc", 10}, {"bridge_operations.mqsc", 10}};
  for (const auto& f : files) {
    SCOPED_TRACE(f.file);
    const ran r = run(IMSB_RUNMQSC, with_prefix({"-f", vectors_dir() + "/mqsc/" + f.file, "QMZ1"}));
    EXPECT_EQ(r.code, f.exit_code) << r.both();
    const tally t = classify(r.out);
    EXPECT_TRUE(t.other_failures.empty()) << failures(t) << r.out;
    EXPECT_GT(t.applied, 0) << r.out;
    EXPECT_GT(t.unsupported + t.not_running, 0) << r.out;
  }
  const auto cat = load("QMZ1");
  EXPECT_EQ(cat.find(objects::object_family::stgclass, "IMSA")->text("XCFMNAME"), "IMS1");
  EXPECT_NE(cat.find(objects::object_family::queue, "App.Temp.Model"), nullptr);
}

}  // namespace
}  // namespace imsb::test
