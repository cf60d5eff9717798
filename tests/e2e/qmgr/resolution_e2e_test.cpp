// IBM's networking rules and queue-manager alias examples [C: NAMERES-CONV, QMALIAS] through the real
// programs: the objects are made by crtmqm and runmqsc, the catalog is read back from disk as a restarting
// queue manager reads it, and name resolution ([C: NAMERES]; docs/design/queue-manager.md) runs over its
// snapshot. Each case names the MQRC it expects.

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "imsb/mq/constants.hpp"
#include "imsb/objects/resolution.hpp"
#include "qmgr_e2e.hpp"

namespace imsb::test {
namespace {

using objects::resolve_at_receiver;
using objects::resolve_for_output;
using ResolutionE2e = qmgr_e2e;

struct expect_case {
  const char* q;
  const char* qm;
  std::int32_t mqrc;
  const char* local_queue;  // the queue put to (the xmitq for remote destinations)
  const char* dest_q;
  const char* dest_qm;
  bool header;
};

void check(const objects::catalog_snapshot& snap, const expect_case& c) {
  const auto r = resolve_for_output(snap, c.q, c.qm);
  const std::string where = std::string(c.q) + "@" + c.qm + " on " + snap.qmgr.name;
  EXPECT_EQ(r.mqrc, c.mqrc) << where;
  if (c.mqrc != mq::MQRC_NONE) return;
  EXPECT_EQ(r.local_queue, c.local_queue) << where;
  EXPECT_EQ(r.resolved_q, c.dest_q) << where;
  EXPECT_EQ(r.resolved_qmgr, c.dest_qm) << where;
  EXPECT_EQ(r.needs_xmit_header, c.header) << where;
}

// [C: QMALIAS] "Outbound messages - remapping the queue manager name", on the real queue manager.
TEST_F(ResolutionE2e, Seed002AliasOnRealQmPutsToLocalQueue) {
  create("REALQM");
  mqsc("REALQM",
       "DEFINE QLOCAL(THISQ)\n"
       "DEFINE QREMOTE(YOURQM) RQMNAME(REALQM)\n");
  const auto snap = load("REALQM").snapshot();
  // MQRC_NONE: "If the local queue manager is REALQM, it puts the messages to the queue THISQ".
  check(snap, {"THISQ", "YOURQM", mq::MQRC_NONE, "THISQ", "THISQ", "REALQM", false});
  // MQRC_UNKNOWN_OBJECT_NAME: the alias leads home, but there is no such local queue.
  check(snap, {"NOTHERE", "YOURQM", mq::MQRC_UNKNOWN_OBJECT_NAME, "", "", "", false});
  // The receiving end: a header naming YOURQM is rewritten to REALQM and delivered locally ([C: QMALIAS]
  // "Inbound messages").
  const auto in = resolve_at_receiver(snap, "THISQ", "YOURQM");
  EXPECT_EQ(in.mqrc, mq::MQRC_NONE);
  EXPECT_EQ(in.local_queue, "THISQ");
  EXPECT_TRUE(in.header_qmgr_changed);
  EXPECT_EQ(in.resolved_qmgr, "REALQM");
}

// The same alias on any other queue manager: to transmission queue REALQM, header changed to REALQM.
TEST_F(ResolutionE2e, Seed002AliasElsewhereGoesToXmitqNamedAfterRealQm) {
  create("OTHERQM");
  mqsc("OTHERQM", "DEFINE QREMOTE(YOURQM) RQMNAME(REALQM)\n");
  // MQRC_UNKNOWN_REMOTE_Q_MGR: no transmission queue REALQM and no DEFXMITQ yet.
  check(load("OTHERQM").snapshot(), {"THISQ", "YOURQM", mq::MQRC_UNKNOWN_REMOTE_Q_MGR, "", "", "", false});
  mqsc("OTHERQM", "DEFINE QLOCAL(REALQM) USAGE(XMITQ)\n");
  const auto snap = load("OTHERQM").snapshot();
  check(snap, {"THISQ", "YOURQM", mq::MQRC_NONE, "REALQM", "THISQ", "REALQM", true});
  // A message arriving for YOURQM is forwarded the same way, with the header changed.
  const auto in = resolve_at_receiver(snap, "THISQ", "YOURQM");
  EXPECT_EQ(in.mqrc, mq::MQRC_NONE);
  EXPECT_EQ(in.local_queue, "REALQM");
  EXPECT_EQ(in.resolved_qmgr, "REALQM");
  EXPECT_TRUE(in.needs_xmit_header);
}

// [C: QMALIAS] "altering or specifying the transmission queue": QM3 reached through QM2 from QM1.
TEST_F(ResolutionE2e, Seed002MultiHopThroughQm2KeepsHeaderQm3) {
  create("QM1");
  mqsc("QM1",
       "DEFINE QLOCAL(QM2) USAGE(XMITQ)\n"
       "DEFINE QREMOTE (QM3) RNAME(' ') RQMNAME(QM3) XMITQ(QM2)\n");
  const auto snap = load("QM1").snapshot();
  // MQRC_NONE: on xmitq QM2, header still QM3.
  check(snap, {"Q", "QM3", mq::MQRC_NONE, "QM2", "Q", "QM3", true});
  // MQRC_NONE: "messages ... showing a transmission header containing a queue name at QM2 are also put on
  // the QM2 transmission queue".
  check(snap, {"Q", "QM2", mq::MQRC_NONE, "QM2", "Q", "QM2", true});
  const auto in = resolve_at_receiver(snap, "Q", "QM3");
  EXPECT_EQ(in.local_queue, "QM2");
  EXPECT_EQ(in.resolved_qmgr, "QM3");
  EXPECT_FALSE(in.header_qmgr_changed);
  // MQRC_REMOTE_Q_NAME_ERROR: the alias names no queue when opened by itself [C: RC2184].
  check(snap, {"QM3", "", mq::MQRC_REMOTE_Q_NAME_ERROR, "", "", "", false});
}

// IBM's networking rule 1 [C: NAMERES-CONV]: a queue-manager name with no transmission queue, without and
// with DEFXMITQ.
TEST_F(ResolutionE2e, Seed001RemoteQmNameWithAndWithoutDefxmitq) {
  create("QMNOX");
  // MQRC_UNKNOWN_REMOTE_Q_MGR: nothing names FARQM and there is no default transmission queue.
  check(load("QMNOX").snapshot(), {"APP.Q", "FARQM", mq::MQRC_UNKNOWN_REMOTE_Q_MGR, "", "", "", false});

  create("QMDX", {"-d", "DEFAULT.XMITQ"});
  auto snap = load("QMDX").snapshot();
  EXPECT_EQ(snap.qmgr.defxmitq, "DEFAULT.XMITQ");
  // MQRC_NONE: "If the transmission queue name cannot be resolved, and a default transmission queue has been
  // defined, the default transmission queue is used."
  check(snap, {"APP.Q", "FARQM", mq::MQRC_NONE, "DEFAULT.XMITQ", "APP.Q", "FARQM", true});
  // A transmission queue named after the queue manager wins over DEFXMITQ.
  mqsc("QMDX", "DEFINE QLOCAL(FARQM) USAGE(XMITQ)\n");
  snap = load("QMDX").snapshot();
  check(snap, {"APP.Q", "FARQM", mq::MQRC_NONE, "FARQM", "APP.Q", "FARQM", true});
  // MQRC_UNKNOWN_REMOTE_Q_MGR again once DEFXMITQ is cleared (for another remote queue manager).
  mqsc("QMDX", "ALTER QMGR DEFXMITQ(' ')\n");
  snap = load("QMDX").snapshot();
  check(snap, {"APP.Q", "NEARQM", mq::MQRC_UNKNOWN_REMOTE_Q_MGR, "", "", "", false});
  check(snap, {"APP.Q", "FARQM", mq::MQRC_NONE, "FARQM", "APP.Q", "FARQM", true});
  // MQRC_DEF_XMIT_Q_USAGE_ERROR: DEFXMITQ names a local queue that is not a transmission queue.
  mqsc("QMDX", "DEFINE QLOCAL(PLAIN.Q)\nALTER QMGR DEFXMITQ(PLAIN.Q)\n");
  check(load("QMDX").snapshot(), {"APP.Q", "NEARQM", mq::MQRC_DEF_XMIT_Q_USAGE_ERROR, "", "", "", false});
  // The local queue manager's own name means local: MQRC_NONE to the local queue, MQRC_UNKNOWN_OBJECT_NAME
  // when there is none.
  check(load("QMDX").snapshot(), {"PLAIN.Q", "QMDX", mq::MQRC_NONE, "PLAIN.Q", "PLAIN.Q", "QMDX", false});
  check(load("QMDX").snapshot(), {"NO.Q", "QMDX", mq::MQRC_UNKNOWN_OBJECT_NAME, "", "", "", false});
}

// IBM's networking rule 2 [C: NAMERES-CONV]: a queue name alone must name a queue of the local queue manager,
// which may be a remote queue definition.
TEST_F(ResolutionE2e, Seed001QueueNameAloneLocalOrRemoteDefinition) {
  create("QMQA");
  mqsc("QMQA",
       "DEFINE QLOCAL(LOCAL.Q)\n"
       "DEFINE QLOCAL(QMB) USAGE(XMITQ)\n"
       "DEFINE QREMOTE(ORDERS) RNAME(ORDERS.IN) RQMNAME(QMB)\n"
       "DEFINE QREMOTE(ORDERS.VIA) RNAME(ORDERS.IN) RQMNAME(QMC) XMITQ(QMB)\n"
       "DEFINE QREMOTE(NO.RNAME) RNAME(' ') RQMNAME(QMB)\n"
       "DEFINE QREMOTE(TO.SELF) RNAME(X) RQMNAME(QMQA)\n"
       "DEFINE QREMOTE(BAD.XQ) RNAME(X) RQMNAME(QMB) XMITQ(LOCAL.Q)\n"
       "DEFINE QREMOTE(MISSING.XQ) RNAME(X) RQMNAME(QMB) XMITQ(NOSUCH.XQ)\n"
       "DEFINE QREMOTE(NOWHERE) RNAME(X) RQMNAME(QMZ)\n"
       "DEFINE QALIAS(ALIAS.Q) TARGET(LOCAL.Q)\n"
       "DEFINE QALIAS(ALIAS.ORDERS) TARGET(ORDERS)\n"
       "DEFINE QALIAS(ALIAS.LOST) TARGET(NOSUCH.Q)\n");
  const auto snap = load("QMQA").snapshot();
  const expect_case cases[] = {
      {"LOCAL.Q", "", mq::MQRC_NONE, "LOCAL.Q", "LOCAL.Q", "QMQA", false},
      {"ORDERS", "", mq::MQRC_NONE, "QMB", "ORDERS.IN", "QMB", true},
      {"ORDERS.VIA", "", mq::MQRC_NONE, "QMB", "ORDERS.IN", "QMC", true},
      {"ALIAS.Q", "", mq::MQRC_NONE, "LOCAL.Q", "LOCAL.Q", "QMQA", false},
      {"ALIAS.ORDERS", "", mq::MQRC_NONE, "QMB", "ORDERS.IN", "QMB", true},
      {"ALIAS.LOST", "", mq::MQRC_UNKNOWN_ALIAS_BASE_Q, "", "", "", false},
      {"NO.RNAME", "", mq::MQRC_REMOTE_Q_NAME_ERROR, "", "", "", false},
      {"TO.SELF", "", mq::MQRC_UNKNOWN_REMOTE_Q_MGR, "", "", "", false},
      {"BAD.XQ", "", mq::MQRC_XMIT_Q_USAGE_ERROR, "", "", "", false},
      {"MISSING.XQ", "", mq::MQRC_UNKNOWN_XMIT_Q, "", "", "", false},
      {"NOWHERE", "", mq::MQRC_UNKNOWN_REMOTE_Q_MGR, "", "", "", false},
      {"NOSUCH.Q", "", mq::MQRC_UNKNOWN_OBJECT_NAME, "", "", "", false},
      // Names are case sensitive [C: NAMING-V6]: 'local.q' is not LOCAL.Q.
      {"local.q", "", mq::MQRC_UNKNOWN_OBJECT_NAME, "", "", "", false},
      // The local queue manager named explicitly behaves as blank.
      {"ORDERS", "QMQA", mq::MQRC_NONE, "QMB", "ORDERS.IN", "QMB", true},
      // A queue-manager name that is a transmission queue (IBM's networking rule 1, first bullet).
      {"ANY.Q", "QMB", mq::MQRC_NONE, "QMB", "ANY.Q", "QMB", true},
      // A queue-manager name that nothing names, with no DEFXMITQ.
      {"ANY.Q", "UNKNOWN.QM", mq::MQRC_UNKNOWN_REMOTE_Q_MGR, "", "", "", false},
  };
  for (const auto& c : cases) check(snap, c);
}

}  // namespace
}  // namespace imsb::test
