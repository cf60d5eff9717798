#include "imsb/objects/resolution.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "imsb/mq/constants.hpp"
#include "imsb/objects/catalog.hpp"

namespace imsb::objects {
namespace {

using namespace imsb::mq;  // NOLINT: MQRC_* names as in the cases' descriptions
using ::testing::ElementsAre;

queue_definition qlocal(std::string name, queue_usage usage = queue_usage::normal) {
  queue_definition d;
  d.name = std::move(name);
  d.type = queue_type::local;
  d.usage = usage;
  return d;
}

queue_definition qmodel(std::string name) {
  queue_definition d;
  d.name = std::move(name);
  d.type = queue_type::model;
  return d;
}

queue_definition qalias(std::string name, std::string target) {
  queue_definition d;
  d.name = std::move(name);
  d.type = queue_type::alias;
  d.target = std::move(target);
  return d;
}

queue_definition qremote(std::string name, std::string rname, std::string rqmname, std::string xmitq = "") {
  queue_definition d;
  d.name = std::move(name);
  d.type = queue_type::remote;
  d.rname = std::move(rname);
  d.rqmname = std::move(rqmname);
  d.xmitq = std::move(xmitq);
  return d;
}

// IBM's queue-manager alias example [C: QMALIAS] on the real queue manager: DEFINE QREMOTE(YOURQM)
// RQMNAME(REALQM) on REALQM.
catalog_snapshot realqm() {
  catalog_snapshot c;
  c.qmgr.name = "REALQM";
  c.put(qremote("YOURQM", "", "REALQM"));
  c.put(qlocal("THISQ"));
  return c;
}

// QM1: the same example on "any other queue manager" plus one definition per rule of name resolution
// (docs/design/queue-manager.md).
catalog_snapshot qm1(std::string defxmitq = "") {
  catalog_snapshot c;
  c.qmgr.name = "QM1";
  c.qmgr.deadq = "DLQ";
  c.qmgr.defxmitq = std::move(defxmitq);
  c.put(qlocal("DLQ"));
  c.put(qlocal("LQ"));
  c.put(qlocal("NOTXMIT"));
  c.put(qlocal("QM2", queue_usage::xmitq));
  c.put(qlocal("REALQM", queue_usage::xmitq));
  c.put(qlocal("DEFQ", queue_usage::xmitq));
  c.put(qlocal("SYSTEM.CLUSTER.TRANSMIT.QUEUE", queue_usage::xmitq));
  c.put(qmodel("MODELQ"));
  c.put(qalias("AQ", "LQ"));
  c.put(qalias("AREM", "RQ"));
  c.put(qalias("AMISSING", "NOPE"));
  c.put(qalias("AALIAS", "AQ"));
  c.put(qalias("AMODEL", "MODELQ"));
  c.put(qalias("AQMALIAS", "QM3"));
  c.put(qremote("RQ", "TQ", "QM2"));
  c.put(qremote("RQX", "TQ", "QM9", "QM2"));
  c.put(qremote("RNORNAME", "", "QM2", "QM2"));
  c.put(qremote("RNORQM", "TQ", "", "QM2"));
  c.put(qremote("RSELF", "TQ", "QM1", "QM2"));
  c.put(qremote("RBADX", "TQ", "QM2", "NOPE"));
  c.put(qremote("RXALIAS", "TQ", "QM2", "AQ"));
  c.put(qremote("RXNORMAL", "TQ", "QM2", "NOTXMIT"));
  c.put(qremote("RUNREACH", "TQ", "QM9"));
  c.put(qremote("RNAMEDNORMAL", "TQ", "NOTXMIT"));
  c.put(qremote("YOURQM", "", "REALQM"));
  c.put(qremote("QM3", "", "QM3", "QM2"));
  c.put(qremote("HOMEALIAS", "", "QM1", "NOPE"));
  c.put(qremote("BLANKALIAS", "", ""));
  c.put(qremote("QM5", "", "QM5"));
  c.put(qremote("Answer_alias", "Answer", "QM1_relief"));
  return c;
}

enum class cat { realqm, qm1, qm1_defq, qm1_def_missing, qm1_def_alias, qm1_def_normal, qm1_def_cluster };

catalog_snapshot make(cat c) {
  switch (c) {
    case cat::realqm:
      return realqm();
    case cat::qm1:
      return qm1();
    case cat::qm1_defq:
      return qm1("DEFQ");
    case cat::qm1_def_missing:
      return qm1("NOPE");
    case cat::qm1_def_alias:
      return qm1("AQ");
    case cat::qm1_def_normal:
      return qm1("NOTXMIT");
    case cat::qm1_def_cluster:
      return qm1("SYSTEM.CLUSTER.TRANSMIT.QUEUE");
  }
  return qm1();
}

enum class op { output, input, receiver };

struct resolution_case {
  const char* description;
  op operation;
  cat catalog;
  std::string name;
  std::string qmgr;
  std::int32_t mqrc;
  std::string resolved_q;
  std::string resolved_qmgr;
  std::string local_queue;
  bool xmit_header;
  bool model = false;
  bool header_changed = false;
};

void PrintTo(const resolution_case& c, std::ostream* os) { *os << c.description; }

// Expected results come from IBM's name-resolution rules [C: NAMERES, NAMERES-CONV, QMALIAS] and the MQRC
// pages [C: RC2087, RC2184, RC2196, RC2199]; each description names the MQRC.
const std::vector<resolution_case> cases = {
    // --- queue-manager aliases [C: QMALIAS] ------------------------------------------------------------
    {"THISQ@YOURQM on REALQM → local THISQ, MQRC_NONE", op::output, cat::realqm, "THISQ", "YOURQM", MQRC_NONE,
     "THISQ", "REALQM", "THISQ", false},
    {"THISQ@YOURQM on QM1 → xmitq REALQM, header REALQM, MQRC_NONE", op::output, cat::qm1, "THISQ", "YOURQM",
     MQRC_NONE, "THISQ", "REALQM", "REALQM", true},
    {"Q@QM3 via QM alias with XMITQ(QM2) → xmitq QM2, header QM3, MQRC_NONE", op::output, cat::qm1, "Q",
     "QM3", MQRC_NONE, "Q", "QM3", "QM2", true},
    {"NOTHERE@YOURQM on REALQM → MQRC_UNKNOWN_OBJECT_NAME", op::output, cat::realqm, "NOTHERE", "YOURQM",
     MQRC_UNKNOWN_OBJECT_NAME, "", "", "", false},
    {"Q@HOMEALIAS (RQMNAME = local, bad XMITQ ignored) → local LQ, MQRC_NONE", op::output, cat::qm1, "LQ",
     "HOMEALIAS", MQRC_NONE, "LQ", "QM1", "LQ", false},
    {"AQ@HOMEALIAS → alias resolved locally to LQ, MQRC_NONE", op::output, cat::qm1, "AQ", "HOMEALIAS",
     MQRC_NONE, "LQ", "QM1", "LQ", false},
    {"Q@BLANKALIAS (QM alias without RQMNAME) → MQRC_UNKNOWN_REMOTE_Q_MGR", op::output, cat::qm1, "Q",
     "BLANKALIAS", MQRC_UNKNOWN_REMOTE_Q_MGR, "", "", "", false},
    {"Q@QM5 (QM alias, no xmitq QM5, no DEFXMITQ) → MQRC_UNKNOWN_REMOTE_Q_MGR", op::output, cat::qm1, "Q",
     "QM5", MQRC_UNKNOWN_REMOTE_Q_MGR, "", "", "", false},
    {"Q@QM5 (QM alias, DEFXMITQ DEFQ) → xmitq DEFQ, header QM5, MQRC_NONE", op::output, cat::qm1_defq, "Q",
     "QM5", MQRC_NONE, "Q", "QM5", "DEFQ", true},
    {"Q@RQ (QREMOTE with RNAME is no QM alias) → MQRC_UNKNOWN_REMOTE_Q_MGR", op::output, cat::qm1, "Q", "RQ",
     MQRC_UNKNOWN_REMOTE_Q_MGR, "", "", "", false},

    // --- IBM's networking rule 1 [C: NAMERES-CONV]: QM name given, not local ---------------------------
    {"LQ@QM2 (xmitq named after the QM) → xmitq QM2, header (LQ, QM2), MQRC_NONE", op::output, cat::qm1, "LQ",
     "QM2", MQRC_NONE, "LQ", "QM2", "QM2", true},
    {"X@QM9, no xmitq, no DEFXMITQ → MQRC_UNKNOWN_REMOTE_Q_MGR", op::output, cat::qm1, "X", "QM9",
     MQRC_UNKNOWN_REMOTE_Q_MGR, "", "", "", false},
    {"X@QM9, no xmitq, DEFXMITQ DEFQ → xmitq DEFQ, header QM9, MQRC_NONE", op::output, cat::qm1_defq, "X",
     "QM9", MQRC_NONE, "X", "QM9", "DEFQ", true},
    {"X@NOTXMIT (local queue without USAGE(XMITQ)) → MQRC_XMIT_Q_USAGE_ERROR", op::output, cat::qm1, "X",
     "NOTXMIT", MQRC_XMIT_Q_USAGE_ERROR, "", "", "", false},
    {"X@MODELQ (model queue as QM name) → MQRC_UNKNOWN_REMOTE_Q_MGR", op::output, cat::qm1, "X", "MODELQ",
     MQRC_UNKNOWN_REMOTE_Q_MGR, "", "", "", false},
    {"X@AQ (alias queue as QM name, no DEFXMITQ) → MQRC_UNKNOWN_REMOTE_Q_MGR", op::output, cat::qm1, "X",
     "AQ", MQRC_UNKNOWN_REMOTE_Q_MGR, "", "", "", false},
    {"blank@QM2 → MQRC_REMOTE_Q_NAME_ERROR", op::output, cat::qm1, "", "QM2", MQRC_REMOTE_Q_NAME_ERROR, "",
     "", "", false},
    {"X@qm2 (case differs, no DEFXMITQ) → MQRC_UNKNOWN_REMOTE_Q_MGR", op::output, cat::qm1, "X", "qm2",
     MQRC_UNKNOWN_REMOTE_Q_MGR, "", "", "", false},
    {"X@'QM 2' (embedded blank) → MQRC_UNKNOWN_OBJECT_Q_MGR", op::output, cat::qm1, "X", "QM 2",
     MQRC_UNKNOWN_OBJECT_Q_MGR, "", "", "", false},
    {"X@QM9 with DEFXMITQ missing → MQRC_UNKNOWN_DEF_XMIT_Q", op::output, cat::qm1_def_missing, "X", "QM9",
     MQRC_UNKNOWN_DEF_XMIT_Q, "", "", "", false},
    {"X@QM9 with DEFXMITQ an alias → MQRC_DEF_XMIT_Q_TYPE_ERROR", op::output, cat::qm1_def_alias, "X", "QM9",
     MQRC_DEF_XMIT_Q_TYPE_ERROR, "", "", "", false},
    {"X@QM9 with DEFXMITQ not USAGE(XMITQ) → MQRC_DEF_XMIT_Q_USAGE_ERROR", op::output, cat::qm1_def_normal,
     "X", "QM9", MQRC_DEF_XMIT_Q_USAGE_ERROR, "", "", "", false},
    {"X@QM9 with DEFXMITQ SYSTEM.CLUSTER.TRANSMIT.QUEUE → MQRC_DEF_XMIT_Q_USAGE_ERROR", op::output,
     cat::qm1_def_cluster, "X", "QM9", MQRC_DEF_XMIT_Q_USAGE_ERROR, "", "", "", false},

    // --- IBM's networking rule 2 [C: NAMERES-CONV]: queue name alone -------------------------------------
    {"LQ@blank → local LQ, MQRC_NONE", op::output, cat::qm1, "LQ", "", MQRC_NONE, "LQ", "QM1", "LQ", false},
    {"LQ@QM1 (local QM named) → local LQ, MQRC_NONE", op::output, cat::qm1, "LQ", "QM1", MQRC_NONE, "LQ",
     "QM1", "LQ", false},
    {"padded 'LQ  '@'QM1  ' → local LQ, MQRC_NONE", op::output, cat::qm1, "LQ      ", "QM1    ", MQRC_NONE,
     "LQ", "QM1", "LQ", false},
    {"LQ@leading-NUL QM name → local LQ, MQRC_NONE", op::output, cat::qm1, "LQ", std::string("\0QM9", 4),
     MQRC_NONE, "LQ", "QM1", "LQ", false},
    {"lq (case differs) → MQRC_UNKNOWN_OBJECT_NAME", op::output, cat::qm1, "lq", "", MQRC_UNKNOWN_OBJECT_NAME,
     "", "", "", false},
    {"NOPE → MQRC_UNKNOWN_OBJECT_NAME", op::output, cat::qm1, "NOPE", "", MQRC_UNKNOWN_OBJECT_NAME, "", "",
     "", false},
    {"MODELQ → model queue, caller creates the dynamic queue, MQRC_NONE", op::output, cat::qm1, "MODELQ", "",
     MQRC_NONE, "MODELQ", "QM1", "MODELQ", false, true},
    {"AQ → alias to LQ, MQRC_NONE", op::output, cat::qm1, "AQ", "", MQRC_NONE, "LQ", "QM1", "LQ", false},
    {"AREM → alias to QREMOTE RQ → xmitq QM2, header (TQ, QM2), MQRC_NONE", op::output, cat::qm1, "AREM", "",
     MQRC_NONE, "TQ", "QM2", "QM2", true},
    {"AMISSING → MQRC_UNKNOWN_ALIAS_BASE_Q", op::output, cat::qm1, "AMISSING", "", MQRC_UNKNOWN_ALIAS_BASE_Q,
     "", "", "", false},
    {"AALIAS (alias of alias) → MQRC_ALIAS_BASE_Q_TYPE_ERROR", op::output, cat::qm1, "AALIAS", "",
     MQRC_ALIAS_BASE_Q_TYPE_ERROR, "", "", "", false},
    {"AMODEL (alias of model) → MQRC_ALIAS_BASE_Q_TYPE_ERROR", op::output, cat::qm1, "AMODEL", "",
     MQRC_ALIAS_BASE_Q_TYPE_ERROR, "", "", "", false},
    {"AQMALIAS (alias of QM alias) → MQRC_ALIAS_BASE_Q_TYPE_ERROR", op::output, cat::qm1, "AQMALIAS", "",
     MQRC_ALIAS_BASE_Q_TYPE_ERROR, "", "", "", false},
    {"RQ (QREMOTE, xmitq named RQMNAME) → xmitq QM2, header (TQ, QM2), MQRC_NONE", op::output, cat::qm1, "RQ",
     "", MQRC_NONE, "TQ", "QM2", "QM2", true},
    {"RQX (QREMOTE XMITQ(QM2) RQMNAME(QM9)) → xmitq QM2, header (TQ, QM9), MQRC_NONE", op::output, cat::qm1,
     "RQX", "", MQRC_NONE, "TQ", "QM9", "QM2", true},
    {"RNORNAME (blank RNAME, XMITQ set) → MQRC_REMOTE_Q_NAME_ERROR", op::output, cat::qm1, "RNORNAME", "",
     MQRC_REMOTE_Q_NAME_ERROR, "", "", "", false},
    {"RNORQM (blank RQMNAME, XMITQ set) → MQRC_UNKNOWN_REMOTE_Q_MGR", op::output, cat::qm1, "RNORQM", "",
     MQRC_UNKNOWN_REMOTE_Q_MGR, "", "", "", false},
    {"RSELF (RQMNAME = local QM) → MQRC_UNKNOWN_REMOTE_Q_MGR", op::output, cat::qm1, "RSELF", "",
     MQRC_UNKNOWN_REMOTE_Q_MGR, "", "", "", false},
    {"RBADX (XMITQ missing) → MQRC_UNKNOWN_XMIT_Q", op::output, cat::qm1, "RBADX", "", MQRC_UNKNOWN_XMIT_Q,
     "", "", "", false},
    {"RXALIAS (XMITQ is an alias) → MQRC_XMIT_Q_TYPE_ERROR", op::output, cat::qm1, "RXALIAS", "",
     MQRC_XMIT_Q_TYPE_ERROR, "", "", "", false},
    {"RXNORMAL (XMITQ not USAGE(XMITQ)) → MQRC_XMIT_Q_USAGE_ERROR", op::output, cat::qm1, "RXNORMAL", "",
     MQRC_XMIT_Q_USAGE_ERROR, "", "", "", false},
    {"RUNREACH (no xmitq QM9, no DEFXMITQ) → MQRC_UNKNOWN_REMOTE_Q_MGR", op::output, cat::qm1, "RUNREACH", "",
     MQRC_UNKNOWN_REMOTE_Q_MGR, "", "", "", false},
    {"RUNREACH with DEFXMITQ DEFQ → xmitq DEFQ, header (TQ, QM9), MQRC_NONE", op::output, cat::qm1_defq,
     "RUNREACH", "", MQRC_NONE, "TQ", "QM9", "DEFQ", true},
    {"RNAMEDNORMAL (queue named RQMNAME is not USAGE(XMITQ)) → MQRC_XMIT_Q_USAGE_ERROR", op::output, cat::qm1,
     "RNAMEDNORMAL", "", MQRC_XMIT_Q_USAGE_ERROR, "", "", "", false},
    {"YOURQM opened as a queue name (QM alias, blank RNAME) → MQRC_REMOTE_Q_NAME_ERROR", op::output, cat::qm1,
     "YOURQM", "", MQRC_REMOTE_Q_NAME_ERROR, "", "", "", false},

    // --- input, browse, set: local queues only [C: NAMERES] ---------------------------------------------
    {"input LQ → local LQ, MQRC_NONE", op::input, cat::qm1, "LQ", "", MQRC_NONE, "LQ", "QM1", "LQ", false},
    {"input AQ → alias to local LQ, MQRC_NONE", op::input, cat::qm1, "AQ", "", MQRC_NONE, "LQ", "QM1", "LQ",
     false},
    {"input MODELQ → model queue, MQRC_NONE", op::input, cat::qm1, "MODELQ", "", MQRC_NONE, "MODELQ", "QM1",
     "MODELQ", false, true},
    {"input RQ (QREMOTE) → MQRC_OPTION_NOT_VALID_FOR_TYPE", op::input, cat::qm1, "RQ", "",
     MQRC_OPTION_NOT_VALID_FOR_TYPE, "", "", "", false},
    {"input AREM (alias to QREMOTE) → MQRC_OPTION_NOT_VALID_FOR_TYPE", op::input, cat::qm1, "AREM", "",
     MQRC_OPTION_NOT_VALID_FOR_TYPE, "", "", "", false},
    {"input LQ@QM2 (remote QM) → MQRC_OPTION_NOT_VALID_FOR_TYPE", op::input, cat::qm1, "LQ", "QM2",
     MQRC_OPTION_NOT_VALID_FOR_TYPE, "", "", "", false},
    {"input NOPE → MQRC_UNKNOWN_OBJECT_NAME", op::input, cat::qm1, "NOPE", "", MQRC_UNKNOWN_OBJECT_NAME, "",
     "", "", false},
    {"input THISQ@YOURQM on REALQM (QM alias to self) → local THISQ, MQRC_NONE", op::input, cat::realqm,
     "THISQ", "YOURQM", MQRC_NONE, "THISQ", "REALQM", "THISQ", false},

    // --- receiving MCA ([C: QMALIAS] "Inbound messages") -------------------------------------------------
    {"receiver on REALQM: header THISQ@YOURQM → local THISQ, QM name replaced, MQRC_NONE", op::receiver,
     cat::realqm, "THISQ", "YOURQM", MQRC_NONE, "THISQ", "REALQM", "THISQ", false, false, true},
    {"receiver on QM1: header THISQ@YOURQM → xmitq REALQM, header REALQM, MQRC_NONE", op::receiver, cat::qm1,
     "THISQ", "YOURQM", MQRC_NONE, "THISQ", "REALQM", "REALQM", true, false, true},
    {"receiver on QM1: header Q@QM3 → xmitq QM2, header still QM3, MQRC_NONE", op::receiver, cat::qm1, "Q",
     "QM3", MQRC_NONE, "Q", "QM3", "QM2", true},
    {"receiver on QM1: header Q@QM2 → xmitq QM2 (collected flow), MQRC_NONE", op::receiver, cat::qm1, "Q",
     "QM2", MQRC_NONE, "Q", "QM2", "QM2", true},
    {"receiver on QM1: header LQ@QM1 → local LQ, MQRC_NONE", op::receiver, cat::qm1, "LQ", "QM1", MQRC_NONE,
     "LQ", "QM1", "LQ", false},
    {"receiver on QM1: header X@QM9, no xmitq (goes to the DLQ) → MQRC_UNKNOWN_REMOTE_Q_MGR", op::receiver,
     cat::qm1, "X", "QM9", MQRC_UNKNOWN_REMOTE_Q_MGR, "", "", "", false},
    {"receiver on QM1: header NOPE@QM1 (goes to the DLQ) → MQRC_UNKNOWN_OBJECT_NAME", op::receiver, cat::qm1,
     "NOPE", "QM1", MQRC_UNKNOWN_OBJECT_NAME, "", "", "", false},
};

class resolution_table : public ::testing::TestWithParam<resolution_case> {};

TEST_P(resolution_table, resolves) {
  const resolution_case& c = GetParam();
  catalog_snapshot catalog = make(c.catalog);
  resolution r;
  switch (c.operation) {
    case op::output:
      r = resolve_for_output(catalog, c.name, c.qmgr);
      break;
    case op::input:
      r = resolve_for_input(catalog, c.name, c.qmgr);
      break;
    case op::receiver:
      r = resolve_at_receiver(catalog, c.name, c.qmgr);
      break;
  }
  EXPECT_EQ(r.mqrc, c.mqrc);
  EXPECT_EQ(r.ok(), c.mqrc == MQRC_NONE);
  EXPECT_EQ(r.resolved_q, c.resolved_q);
  EXPECT_EQ(r.resolved_qmgr, c.resolved_qmgr);
  EXPECT_EQ(r.local_queue, c.local_queue);
  EXPECT_EQ(r.needs_xmit_header, c.xmit_header);
  EXPECT_EQ(r.model_queue, c.model);
  EXPECT_EQ(r.header_qmgr_changed, c.header_changed);
}

std::string case_name(const ::testing::TestParamInfo<resolution_case>& info) {
  std::string out;
  for (const char* p = info.param.description; *p != '\0' && out.size() < 60; ++p) {
    char ch = *p;
    bool alnum = (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9');
    if (alnum) {
      out += ch;
    } else if (!out.empty() && out.back() != '_') {
      out += '_';
    }
  }
  return std::to_string(info.index) + "_" + out;
}

INSTANTIATE_TEST_SUITE_P(spec_7_2, resolution_table, ::testing::ValuesIn(cases), case_name);

TEST(resolution_cases, cover_every_mqrc_of_7_2) {
  const std::int32_t required[] = {MQRC_NONE,
                                   MQRC_ALIAS_BASE_Q_TYPE_ERROR,
                                   MQRC_UNKNOWN_ALIAS_BASE_Q,
                                   MQRC_UNKNOWN_OBJECT_NAME,
                                   MQRC_UNKNOWN_OBJECT_Q_MGR,
                                   MQRC_UNKNOWN_REMOTE_Q_MGR,
                                   MQRC_XMIT_Q_TYPE_ERROR,
                                   MQRC_XMIT_Q_USAGE_ERROR,
                                   MQRC_REMOTE_Q_NAME_ERROR,
                                   MQRC_UNKNOWN_XMIT_Q,
                                   MQRC_UNKNOWN_DEF_XMIT_Q,
                                   MQRC_DEF_XMIT_Q_TYPE_ERROR,
                                   MQRC_DEF_XMIT_Q_USAGE_ERROR,
                                   MQRC_OPTION_NOT_VALID_FOR_TYPE};
  EXPECT_GE(cases.size(), 40u);
  for (std::int32_t rc : required) {
    bool found = false;
    for (const auto& c : cases) found = found || c.mqrc == rc;
    EXPECT_TRUE(found) << "no case expects MQRC " << rc;
  }
}

TEST(resolution_path, records_the_definitions_followed) {
  catalog_snapshot c = qm1();
  EXPECT_THAT(resolve_for_output(c, "AREM", "").path,
              ElementsAre("QALIAS(AREM)", "QREMOTE(RQ)", "QLOCAL(QM2)"));
  EXPECT_THAT(resolve_for_output(c, "THISQ", "YOURQM").path,
              ElementsAre("QREMOTE(YOURQM)", "QLOCAL(REALQM)"));
  EXPECT_THAT(resolve_for_output(c, "AMISSING", "").path, ElementsAre("QALIAS(AMISSING)"));
  catalog_snapshot d = qm1("DEFQ");
  EXPECT_THAT(resolve_for_output(d, "X", "QM9").path, ElementsAre("QLOCAL(DEFQ)"));
}

TEST(catalog, find_is_exact_and_put_replaces) {
  catalog_snapshot c = qm1();
  ASSERT_NE(c.find("LQ"), nullptr);
  EXPECT_EQ(c.find("LQ")->type, queue_type::local);
  EXPECT_EQ(c.find("lq"), nullptr);
  EXPECT_EQ(c.find("LQ "), nullptr);
  c.put(qalias("LQ", "DLQ"));
  ASSERT_NE(c.find("LQ"), nullptr);
  EXPECT_EQ(c.find("LQ")->type, queue_type::alias);
}

TEST(trim_name, stops_at_nul_and_strips_blanks) {
  EXPECT_EQ(trim_name("ABC   "), "ABC");
  EXPECT_EQ(trim_name(std::string_view("AB\0CD", 5)), "AB");
  EXPECT_EQ(trim_name(std::string_view("\0QM", 3)), "");
  EXPECT_EQ(trim_name("    "), "");
  EXPECT_EQ(trim_name(""), "");
}

// --- reply-to queue aliases [C: QREMOTE-USES, REPLYALIAS-WMB] -----------------------------------------

TEST(reply_to_alias, qremote_replaces_both_names_when_qmgr_blank) {
  catalog_snapshot c = qm1();
  std::string q = "Answer_alias";
  std::string qm = "                                                ";
  EXPECT_TRUE(apply_reply_to_alias(c, q, qm));
  EXPECT_EQ(q, "Answer");
  EXPECT_EQ(qm, "QM1_relief");
}

TEST(reply_to_alias, blank_qmgr_without_alias_becomes_local_qmgr) {
  catalog_snapshot c = qm1();
  std::string q = "LQ";
  std::string qm;
  EXPECT_FALSE(apply_reply_to_alias(c, q, qm));
  EXPECT_EQ(q, "LQ");
  EXPECT_EQ(qm, "QM1");
}

TEST(reply_to_alias, named_qmgr_disables_the_alias) {
  catalog_snapshot c = qm1();
  std::string q = "Answer_alias";
  std::string qm = "QM7  ";
  EXPECT_FALSE(apply_reply_to_alias(c, q, qm));
  EXPECT_EQ(q, "Answer_alias");
  EXPECT_EQ(qm, "QM7");
}

TEST(reply_to_alias, blank_reply_to_q_still_gets_local_qmgr) {
  catalog_snapshot c = qm1();
  std::string q;
  std::string qm;
  EXPECT_FALSE(apply_reply_to_alias(c, q, qm));
  EXPECT_EQ(q, "");
  EXPECT_EQ(qm, "QM1");
}

TEST(reply_to_alias, qm_alias_keeps_queue_and_takes_rqmname) {
  catalog_snapshot c = qm1();
  std::string q = "QM3";
  std::string qm;
  EXPECT_TRUE(apply_reply_to_alias(c, q, qm));
  EXPECT_EQ(q, "QM3");
  EXPECT_EQ(qm, "QM3");
  std::string q2 = "YOURQM";
  std::string qm2;
  EXPECT_TRUE(apply_reply_to_alias(c, q2, qm2));
  EXPECT_EQ(q2, "YOURQM");
  EXPECT_EQ(qm2, "REALQM");
}

}  // namespace
}  // namespace imsb::objects
