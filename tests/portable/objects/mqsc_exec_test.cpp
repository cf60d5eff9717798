#include "imsb/objects/mqsc_exec.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "exec_test_support.hpp"
#include "imsb/core/messages.hpp"
#include "imsb/mqsc/parser.hpp"
#include "imsb/mqsc/vocabulary.hpp"
#include "imsb/objects/schema.hpp"

namespace imsb::objects {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;

using namespace test;  // NOLINT: the shared helpers read as part of each test

// --- schema ---------------------------------------------------------------------------------------

TEST(Schema, TablesAreSortedAndHaveNoDuplicateKeywords) {
  for (int t = 0; t <= static_cast<int>(object_type::qmgr); ++t) {
    const auto& s = schema_of(static_cast<object_type>(t));
    ASSERT_FALSE(s.empty());
    for (std::size_t i = 1; i < s.size(); ++i) EXPECT_LT(s[i - 1].keyword, s[i].keyword);
  }
}

TEST(Schema, TargqIsASynonymOfTarget) {
  const attr_spec* a = find_attr(object_type::qalias, "TARGQ");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->keyword, "TARGET");
  EXPECT_EQ(find_attr(object_type::qlocal, "TARGQ"), nullptr);
}

TEST(Schema, DefaultsOfEveryAttributeAreValidValues) {
  for (int t = 0; t <= static_cast<int>(object_type::qmgr); ++t)
    for (const attr_spec& s : schema_of(static_cast<object_type>(t))) {
      if (s.kind == attr_kind::flag || s.kind == attr_kind::name_list || s.read_only) continue;
      if (s.kind == attr_kind::keyword && s.default_value.empty()) continue;  // CHLTYPE has none
      auto v = check_value(s, mqsc::mqsc_value{std::string(s.default_value), true});
      EXPECT_TRUE(v.text.has_value()) << s.keyword << ": " << v.problem.reason;
    }
}

TEST(Schema, IntegerValuesAreCheckedAgainstTheirRange) {
  const attr_spec& d = *find_attr(object_type::qlocal, "MAXDEPTH");
  EXPECT_EQ(*check_value(d, {"007", false}).text, "7");
  EXPECT_FALSE(check_value(d, {"1000000000", false}).text);
  EXPECT_FALSE(check_value(d, {"-1", false}).text);
  EXPECT_FALSE(check_value(d, {"12X", false}).text);
  EXPECT_EQ(check_value(d, {"X", false}).problem.reason, "is not an integer from 0 to 999999999");
}

TEST(Schema, ChannelAttributesDependOnChltype) {
  EXPECT_TRUE(applies_to_chltype(*find_attr(object_type::channel, "XMITQ"), "SDR"));
  EXPECT_FALSE(applies_to_chltype(*find_attr(object_type::channel, "XMITQ"), "RCVR"));
  EXPECT_TRUE(applies_to_chltype(*find_attr(object_type::channel, "DISCINT"), "SVRCONN"));
  const object_record svrconn = schema_defaults(object_type::channel, "X", "SVRCONN");
  EXPECT_EQ(svrconn.text("DISCINT"), "0");
  EXPECT_EQ(svrconn.attrs.count("CONNAME"), 0u);
}

// --- new_queue_manager ----------------------------------------------------------------------------

TEST(NewQueueManager, HasTheDefaultObjects) {
  object_catalog c = fresh();
  for (std::string_view q :
       {"SYSTEM.DEFAULT.LOCAL.QUEUE", "SYSTEM.DEFAULT.INITIATION.QUEUE", "SYSTEM.ADMIN.COMMAND.QUEUE",
        "SYSTEM.ADMIN.QMGR.EVENT", "SYSTEM.ADMIN.CHANNEL.EVENT", "SYSTEM.ADMIN.PERFM.EVENT",
        "SYSTEM.ADMIN.CONFIG.EVENT", "SYSTEM.ADMIN.COMMAND.EVENT", "SYSTEM.ADMIN.LOGGER.EVENT"})
    EXPECT_EQ(queue(c, q).type, object_type::qlocal) << q;
  EXPECT_EQ(queue(c, "SYSTEM.DEFAULT.ALIAS.QUEUE").type, object_type::qalias);
  EXPECT_EQ(queue(c, "SYSTEM.DEFAULT.REMOTE.QUEUE").type, object_type::qremote);
  EXPECT_EQ(queue(c, "SYSTEM.DEFAULT.MODEL.QUEUE").type, object_type::qmodel);
  EXPECT_NE(c.find(object_family::stgclass, "DEFAULT"), nullptr);
  EXPECT_NE(c.find(object_family::namelist, "SYSTEM.DEFAULT.NAMELIST"), nullptr);
  EXPECT_NE(c.find(object_family::process, "SYSTEM.DEFAULT.PROCESS"), nullptr);
  EXPECT_NE(c.find(object_family::listener, "SYSTEM.DEFAULT.LISTENER.TCP"), nullptr);
  EXPECT_EQ(c.find(object_family::channel, "SYSTEM.DEF.SENDER")->text("CHLTYPE"), "SDR");
  EXPECT_EQ(c.find(object_family::channel, "SYSTEM.DEF.RECEIVER")->text("CHLTYPE"), "RCVR");
  EXPECT_EQ(c.find(object_family::channel, "SYSTEM.DEF.SVRCONN")->text("CHLTYPE"), "SVRCONN");
  EXPECT_TRUE(c.file_name_of(object_family::queue, "SYSTEM.DEFAULT.LOCAL.QUEUE").has_value());
}

TEST(NewQueueManager, QmgrRecordHasIbmDefaults) {
  object_catalog c = fresh();
  EXPECT_EQ(c.qmgr().text("CCSID"), "819");
  EXPECT_EQ(c.qmgr().text("MAXMSGL"), "4194304");
  EXPECT_EQ(c.qmgr().text("DEADQ"), "");
  EXPECT_EQ(c.qmgr().text("DEFXMITQ"), "");
  EXPECT_EQ(c.qmgr().text("QMNAME"), "QM1");
  EXPECT_EQ(c.qmgr().text("CRDATE"), "2026-11-29");
}

TEST(NewQueueManager, DeadLetterQueueIsMadeAndNamedByDeadq) {
  object_catalog c = fresh("SYSTEM.DEAD.LETTER.QUEUE");
  EXPECT_EQ(c.qmgr().text("DEADQ"), "SYSTEM.DEAD.LETTER.QUEUE");
  EXPECT_EQ(queue(c, "SYSTEM.DEAD.LETTER.QUEUE").type, object_type::qlocal);
  EXPECT_EQ(queue(c, "SYSTEM.DEAD.LETTER.QUEUE").text("USAGE"), "NORMAL");
}

TEST(NewQueueManager, DefaultTransmissionQueueHasUsageXmitq) {
  object_catalog c = fresh("", "QM2.XMIT");
  EXPECT_EQ(c.qmgr().text("DEFXMITQ"), "QM2.XMIT");
  EXPECT_EQ(queue(c, "QM2.XMIT").text("USAGE"), "XMITQ");
  EXPECT_EQ(c.snapshot().qmgr.defxmitq, "QM2.XMIT");
}

TEST(NewQueueManager, RefusesBadNamesNamingTheField) {
  auto a = new_queue_manager("BAD NAME", names::fs_profile::posix, "", "", ctx);
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.error().field, "qmgr");
  EXPECT_EQ(a.error().code, std::make_error_code(std::errc::invalid_argument));
  auto b = new_queue_manager("QM1", names::fs_profile::posix, std::string(49, 'D'), "", ctx);
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.error().field, "deadq");
  auto d = new_queue_manager("QM1", names::fs_profile::posix, "", "X#Q", ctx);
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.error().field, "defxmitq");
}

// --- DEFINE QLOCAL ----------------------------------------------------------------------------------

TEST(DefineQlocal, TakesIbmDefaults) {
  object_catalog c = fresh();
  exec_outcome o = run(c, "DEFINE QLOCAL(A)");
  EXPECT_EQ(o.status, exec_status::ok);
  EXPECT_THAT(o.lines, ElementsAre(std::string(imsb::msg::IMB1001I) + ": Queue created."));
  const object_record& q = queue(c, "A");
  EXPECT_EQ(q.type, object_type::qlocal);
  EXPECT_EQ(q.text("MAXDEPTH"), "5000");
  EXPECT_EQ(q.text("MAXMSGL"), "4194304");
  EXPECT_EQ(q.text("STGCLASS"), "DEFAULT");
  EXPECT_EQ(q.text("SHARE"), "SHARE");
  EXPECT_EQ(q.text("DEFSOPT"), "SHARED");
  EXPECT_EQ(q.text("TRIGGER"), "NOTRIGGER");
  EXPECT_EQ(q.text("USAGE"), "NORMAL");
  EXPECT_EQ(q.text("CRDATE"), "2026-11-29");
  EXPECT_EQ(q.text("CRTIME"), "19.08.32");
  EXPECT_EQ(q.text("ALTDATE"), "2026-11-29");
}

TEST(DefineQlocal, SetsTheGivenAttributes) {
  object_catalog c = fresh();
  applied(c,
          "DEFINE QLOCAL(IMS.BRIDGE.Q1) STGCLASS(IMSA) DEFSOPT(EXCL) NOSHARE MAXDEPTH(100) DEFPSIST(YES) "
          "DEFPRTY(9) USAGE(XMITQ) HARDENBO TRIGGER TRIGTYPE(DEPTH) BOQNAME(BACKOUT.Q) BOTHRESH(3) "
          "DESCR('It''s a queue') GET(DISABLED) MSGDLVSQ(FIFO) INITQ(SYSTEM.DEFAULT.INITIATION.QUEUE)");
  const object_record& q = queue(c, "IMS.BRIDGE.Q1");
  EXPECT_EQ(q.text("STGCLASS"), "IMSA");
  EXPECT_EQ(q.text("DEFSOPT"), "EXCL");
  EXPECT_EQ(q.text("SHARE"), "NOSHARE");
  EXPECT_EQ(q.text("MAXDEPTH"), "100");
  EXPECT_EQ(q.text("DEFPSIST"), "YES");
  EXPECT_EQ(q.text("DEFPRTY"), "9");
  EXPECT_EQ(q.text("USAGE"), "XMITQ");
  EXPECT_EQ(q.text("HARDENBO"), "HARDENBO");
  EXPECT_EQ(q.text("TRIGGER"), "TRIGGER");
  EXPECT_EQ(q.text("TRIGTYPE"), "DEPTH");
  EXPECT_EQ(q.text("BOQNAME"), "BACKOUT.Q");
  EXPECT_EQ(q.text("DESCR"), "It's a queue");
  EXPECT_EQ(q.text("GET"), "DISABLED");
  EXPECT_EQ(q.text("MSGDLVSQ"), "FIFO");
}

TEST(DefineQlocal, CopiesDefaultsFromSystemDefaultLocalQueue) {
  object_catalog c = fresh();
  applied(c, "ALTER QLOCAL(SYSTEM.DEFAULT.LOCAL.QUEUE) MAXDEPTH(777) NOSHARE");
  applied(c, "DEFINE QLOCAL(B)");
  EXPECT_EQ(queue(c, "B").text("MAXDEPTH"), "777");
  EXPECT_EQ(queue(c, "B").text("SHARE"), "NOSHARE");
}

TEST(DefineQlocal, RedefiningTheDefaultObjectUsesSchemaDefaults) {
  // Without SYSTEM.DEFAULT.LOCAL.QUEUE a DEFINE without LIKE fails (exec_review_test.cpp); the default
  // object itself can be defined again, from the schema's defaults.
  object_catalog c("QMX", names::fs_profile::posix);
  applied(c, "DEFINE QLOCAL(SYSTEM.DEFAULT.LOCAL.QUEUE)");
  applied(c, "DEFINE QLOCAL(B)");
  EXPECT_EQ(queue(c, "B").text("MAXDEPTH"), "5000");
  EXPECT_EQ(queue(c, "B").text("DEFPSIST"), "NO");
}

TEST(DefineQlocal, LikeCopiesAnotherQueueOfTheSameType) {
  object_catalog c = fresh();
  applied(c, "DEFINE QLOCAL(A) MAXDEPTH(42) DESCR('model')");
  applied(c, "DEFINE QLOCAL(B) LIKE(A) DEFPRTY(4)");
  EXPECT_EQ(queue(c, "B").text("MAXDEPTH"), "42");
  EXPECT_EQ(queue(c, "B").text("DESCR"), "model");
  EXPECT_EQ(queue(c, "B").text("DEFPRTY"), "4");
}

TEST(DefineQlocal, LikeOfUnknownOrOtherTypeFails) {
  object_catalog c = fresh();
  EXPECT_THAT(refused(c, "DEFINE QLOCAL(B) LIKE(NOPE)"),
              StartsWith(std::string(imsb::msg::IMB1052E) + ": DEFINE QLOCAL(B): keyword LIKE"));
  EXPECT_THAT(refused(c, "DEFINE QLOCAL(B) LIKE(SYSTEM.DEFAULT.ALIAS.QUEUE)"),
              StartsWith(imsb::msg::IMB1052E));
}

TEST(DefineQlocal, ExistingNameWithoutReplaceFails) {
  object_catalog c = fresh();
  applied(c, "DEFINE QLOCAL(A) MAXDEPTH(10)");
  EXPECT_EQ(refused(c, "DEFINE QLOCAL(A) MAXDEPTH(20)"),
            std::string(imsb::msg::IMB1043E) +
                ": DEFINE QLOCAL(A): object 'A' already exists (REPLACE replaces it)");
  EXPECT_THAT(refused(c, "DEFINE QLOCAL(A) NOREPLACE"), StartsWith(imsb::msg::IMB1043E));
}

TEST(DefineQlocal, ReplaceResetsAttributesNotGiven) {
  object_catalog c = fresh();
  applied(c, "DEFINE QLOCAL(A) MAXDEPTH(10) DESCR(X)");
  applied(c, "DEFINE QLOCAL(A) DESCR(Y) REPLACE", later);
  EXPECT_EQ(queue(c, "A").text("MAXDEPTH"), "5000");
  EXPECT_EQ(queue(c, "A").text("DESCR"), "Y");
  EXPECT_EQ(queue(c, "A").text("CRDATE"), "2026-11-29");
  EXPECT_EQ(queue(c, "A").text("ALTDATE"), "2026-12-01");
}

TEST(DefineQlocal, ReplaceCannotChangeTheQueueType) {
  object_catalog c = fresh();
  applied(c, "DEFINE QALIAS(A) TARGET(B)");
  EXPECT_EQ(refused(c, "DEFINE QLOCAL(A) REPLACE"),
            std::string(imsb::msg::IMB1045E) +
                ": DEFINE QLOCAL(A): a QALIAS named 'A' already exists; a queue's type cannot be changed");
  EXPECT_THAT(refused(c, "DEFINE QMODEL(A)"), StartsWith(imsb::msg::IMB1045E));
}

TEST(DefineQlocal, BadIntegerNamesCommandKeywordAndRange) {
  object_catalog c = fresh();
  EXPECT_EQ(refused(c, "DEFINE QLOCAL(A) MAXDEPTH(X)"),
            std::string(imsb::msg::IMB1041E) +
                ": DEFINE QLOCAL(A): keyword MAXDEPTH: value 'X' is not an integer from 0 to 999999999");
  EXPECT_THAT(refused(c, "DEFINE QLOCAL(A) DEFPRTY(10)"), HasSubstr("keyword DEFPRTY: value '10'"));
  EXPECT_THAT(refused(c, "DEFINE QLOCAL(A) MAXMSGL(104857601)"), HasSubstr("keyword MAXMSGL"));
  EXPECT_EQ(c.find(object_family::queue, "A"), nullptr);
}

TEST(DefineQlocal, BadKeywordValueListsTheWords) {
  object_catalog c = fresh();
  EXPECT_EQ(refused(c, "DEFINE QLOCAL(A) DEFPSIST(MAYBE)"),
            std::string(imsb::msg::IMB1041E) +
                ": DEFINE QLOCAL(A): keyword DEFPSIST: value 'MAYBE' is not one of NO, YES");
  EXPECT_THAT(refused(c, "DEFINE QLOCAL(A) USAGE(XMIT)"), HasSubstr("NORMAL, XMITQ"));
}

TEST(DefineQlocal, DescrLongerThan64Fails) {
  object_catalog c = fresh();
  EXPECT_THAT(refused(c, "DEFINE QLOCAL(A) DESCR('" + std::string(65, 'd') + "')"),
              HasSubstr("keyword DESCR: value '" + std::string(65, 'd') + "' is longer than 64 characters"));
  applied(c, "DEFINE QLOCAL(A) DESCR('" + std::string(64, 'd') + "')");
}

TEST(DefineQlocal, UnknownKeywordFails) {
  object_catalog c = fresh();
  EXPECT_EQ(
      refused(c, "DEFINE QLOCAL(A) MAXDEPTHS(5)"),
      std::string(imsb::msg::IMB1040E) + ": DEFINE QLOCAL(A): keyword MAXDEPTHS is not valid for QLOCAL");
  EXPECT_THAT(refused(c, "DEFINE QLOCAL(A) RNAME(X)"), StartsWith(imsb::msg::IMB1040E));
}

TEST(DefineQlocal, FlagsTakeNoValueAndValuesNeedParentheses) {
  object_catalog c = fresh();
  EXPECT_THAT(refused(c, "DEFINE QLOCAL(A) SHARE(YES)"), HasSubstr("keyword SHARE takes no value"));
  EXPECT_THAT(refused(c, "DEFINE QLOCAL(A) MAXDEPTH"), HasSubstr("keyword MAXDEPTH needs a value"));
  EXPECT_THAT(refused(c, "DEFINE QLOCAL(A) DESCR(A B)"), HasSubstr("takes one value"));
}

TEST(DefineQlocal, NameTooLongOrInvalidFails) {
  object_catalog c = fresh();
  EXPECT_THAT(refused(c, "DEFINE QLOCAL(" + std::string(49, 'Q') + ")"),
              StartsWith(std::string(imsb::msg::IMB1042E) + ": DEFINE QLOCAL(QQQ"));
  EXPECT_THAT(refused(c, "DEFINE QLOCAL('A B')"), StartsWith(imsb::msg::IMB1042E));
  applied(c, "DEFINE QLOCAL(" + std::string(48, 'Q') + ")");
}

TEST(DefineQlocal, ReferencedNamesAreChecked) {
  object_catalog c = fresh();
  EXPECT_THAT(refused(c, "DEFINE QLOCAL(A) BOQNAME('BAD NAME')"), HasSubstr("keyword BOQNAME"));
  EXPECT_THAT(refused(c, "DEFINE QLOCAL(A) STGCLASS(TOOLONGSC)"), HasSubstr("keyword STGCLASS"));
}

TEST(DefineQlocal, QuotedNamesKeepCaseAndAreDistinct) {
  object_catalog c = fresh();
  applied(c, "DEFINE QLOCAL('mixed.Case')");
  applied(c, "DEFINE QLOCAL(mixed.case)");  // folded: MIXED.CASE
  EXPECT_NE(c.find(object_family::queue, "mixed.Case"), nullptr);
  EXPECT_NE(c.find(object_family::queue, "MIXED.CASE"), nullptr);
  EXPECT_EQ(c.find(object_family::queue, "mixed.case"), nullptr);
}

TEST(DefineQlocal, ClusterOnlyWhenBlank) {
  object_catalog c = fresh();
  applied(c, "DEFINE QLOCAL(A) CLUSTER(' ') CLUSNL(' ')");
  EXPECT_THAT(refused(c, "DEFINE QLOCAL(B) CLUSTER(CL1)", exec_status::unsupported),
              AllOf(StartsWith(std::string(imsb::msg::IMB1050E) + ": DEFINE QLOCAL(B): keyword CLUSTER"),
                    HasSubstr("clusters are out of scope")));
}

TEST(DefineQlocal, IbmKeywordsNotImplementedAreUnsupported) {
  object_catalog c = fresh();
  EXPECT_EQ(
      refused(c, "DEFINE QLOCAL(A) MONQ(QMGR)", exec_status::unsupported),
      std::string(imsb::msg::IMB1050E) + ": DEFINE QLOCAL(A): keyword MONQ is not implemented by imsbridge");
}

TEST(DefineQlocal, AnErrorIsReportedBeforeAnUnsupportedKeyword) {
  object_catalog c = fresh();
  EXPECT_THAT(refused(c, "DEFINE QLOCAL(A) MONQ(QMGR) MAXDEPTH(X)"), StartsWith(imsb::msg::IMB1041E));
  EXPECT_THAT(refused(c, "DEFINE QLOCAL(A) MONQ(QMGR) CLUSTER(C)", exec_status::unsupported),
              HasSubstr("keyword MONQ"));
}

TEST(DefineQlocal, ZosOptionsAcceptedWithLocalValues) {
  object_catalog c = fresh();
  applied(c, "DEFINE QLOCAL(A) QSGDISP(QMGR) CMDSCOPE(' ')");
  EXPECT_THAT(refused(c, "DEFINE QLOCAL(B) QSGDISP(SHARED)", exec_status::unsupported),
              HasSubstr("queue-sharing groups"));
}

TEST(DefineQlocal, ReadOnlyAttributesCannotBeSet) {
  object_catalog c = fresh();
  EXPECT_THAT(refused(c, "DEFINE QLOCAL(A) CRDATE(2020-01-01)"), StartsWith(imsb::msg::IMB1048E));
}

// --- other queue types ----------------------------------------------------------------------------

TEST(DefineQalias, TargqIsStoredAsTarget) {
  object_catalog c = fresh();
  applied(c, "DEFINE QALIAS(AL) TARGQ(BASE.Q)");
  EXPECT_EQ(queue(c, "AL").text("TARGET"), "BASE.Q");
  EXPECT_EQ(queue(c, "AL").text("TARGTYPE"), "QUEUE");
  EXPECT_EQ(queue(c, "AL").attrs.count("TARGQ"), 0u);
  EXPECT_EQ(c.snapshot().find("AL")->target, "BASE.Q");
}

TEST(DefineQalias, TopicTargetIsUnsupported) {
  object_catalog c = fresh();
  EXPECT_THAT(refused(c, "DEFINE QALIAS(AL) TARGET(T) TARGTYPE(TOPIC)", exec_status::unsupported),
              HasSubstr("publish/subscribe"));
  EXPECT_THAT(refused(c, "DEFINE QALIAS(AL) MAXDEPTH(5)"), StartsWith(imsb::msg::IMB1040E));
}

TEST(DefineQremote, QueueManagerAliasHasBlankRname) {
  object_catalog c = fresh();
  applied(c, "DEFINE QREMOTE(QM3) RNAME(' ') RQMNAME(QM3) XMITQ(QM2)");
  const object_record& q = queue(c, "QM3");
  EXPECT_EQ(q.text("RNAME"), "");
  EXPECT_EQ(q.text("RQMNAME"), "QM3");
  EXPECT_EQ(q.text("XMITQ"), "QM2");
  EXPECT_THAT(refused(c, "DEFINE QREMOTE(R2) GET(ENABLED)"), StartsWith(imsb::msg::IMB1040E));
}

TEST(DefineQmodel, HasLocalAttributesAndDeftype) {
  object_catalog c = fresh();
  applied(c, "DEFINE QMODEL(M) DEFTYPE(PERMDYN) MAXDEPTH(9)");
  EXPECT_EQ(queue(c, "M").text("DEFTYPE"), "PERMDYN");
  EXPECT_EQ(queue(c, "M").text("MAXDEPTH"), "9");
  applied(c, "DEFINE QMODEL(M2)");
  EXPECT_EQ(queue(c, "M2").text("DEFTYPE"), "TEMPDYN");
  EXPECT_THAT(refused(c, "DEFINE QMODEL(M3) DEFTYPE(SHAREDYN)", exec_status::unsupported),
              HasSubstr("DEFTYPE"));
}

// --- STGCLASS ---------------------------------------------------------------------------------------

TEST(Stgclass, DefineWithXcfNames) {
  object_catalog c = fresh();
  applied(c, "DEFINE STGCLASS(IMSA) PSID(02) XCFGNAME(XCFGRP1) XCFMNAME(IMSA) PASSTKTA(APPL1)");
  const object_record* s = c.find(object_family::stgclass, "IMSA");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->text("PSID"), "2");
  EXPECT_EQ(s->text("XCFGNAME"), "XCFGRP1");
  EXPECT_EQ(s->text("XCFMNAME"), "IMSA");
  EXPECT_EQ(s->text("PASSTKTA"), "APPL1");
}

TEST(Stgclass, XcfgnameWithoutXcfmnameFails) {
  object_catalog c = fresh();
  EXPECT_THAT(refused(c, "DEFINE STGCLASS(IMSA) XCFGNAME(XCFGRP1)"),
              StartsWith(std::string(imsb::msg::IMB1047E) + ": DEFINE STGCLASS(IMSA): keyword XCFGNAME"));
  EXPECT_THAT(refused(c, "DEFINE STGCLASS(IMSA) XCFMNAME(IMSA)"), StartsWith(imsb::msg::IMB1047E));
}

TEST(Stgclass, AlterResultMustKeepXcfPair) {
  object_catalog c = fresh();
  applied(c, "DEFINE STGCLASS(IMSA) XCFGNAME(G1) XCFMNAME(M1)");
  EXPECT_THAT(refused(c, "ALTER STGCLASS(IMSA) XCFMNAME(' ')"), StartsWith(imsb::msg::IMB1047E));
  applied(c, "ALTER STGCLASS(IMSA) XCFMNAME(' ') XCFGNAME(' ')");
  EXPECT_EQ(c.find(object_family::stgclass, "IMSA")->text("XCFGNAME"), "");
  applied(c, "ALTER STGCLASS(IMSA) XCFGNAME(G2) XCFMNAME(M2)");
}

TEST(Stgclass, DefaultsComeFromTheSchemaNotFromStorageClassDefault) {
  object_catalog c = fresh();
  applied(c, "ALTER STGCLASS(DEFAULT) PSID(5) XCFGNAME(G) XCFMNAME(M)");
  applied(c, "DEFINE STGCLASS(S2)");
  EXPECT_EQ(c.find(object_family::stgclass, "S2")->text("PSID"), "0");
  EXPECT_EQ(c.find(object_family::stgclass, "S2")->text("XCFGNAME"), "");
  applied(c, "DEFINE STGCLASS(S3) LIKE(DEFAULT)");
  EXPECT_EQ(c.find(object_family::stgclass, "S3")->text("XCFMNAME"), "M");
}

TEST(Stgclass, NamesAndValuesAreChecked) {
  object_catalog c = fresh();
  EXPECT_THAT(refused(c, "DEFINE STGCLASS(TOOLONGSC)"), StartsWith(imsb::msg::IMB1042E));
  EXPECT_THAT(refused(c, "DEFINE STGCLASS(S1) XCFGNAME('grp') XCFMNAME(M)"), HasSubstr("keyword XCFGNAME"));
  EXPECT_THAT(refused(c, "DEFINE STGCLASS(S1) XCFGNAME(G) XCFMNAME(" + std::string(17, 'M') + ")"),
              HasSubstr("keyword XCFMNAME"));
  EXPECT_THAT(refused(c, "DEFINE STGCLASS(S1) PSID(100)"), HasSubstr("from 0 to 99"));
  EXPECT_THAT(refused(c, "DEFINE STGCLASS(S1) PASSTKTA(NINECHARS)"), HasSubstr("longer than 8"));
}

// --- NAMELIST, PROCESS, LISTENER ---------------------------------------------------------------------

TEST(Namelist, DefineAlterDisplay) {
  object_catalog c = fresh();
  applied(c, "DEFINE NAMELIST(NL1) NAMES(A, B.C, 'd') NLTYPE(QUEUE)");
  const object_record* n = c.find(object_family::namelist, "NL1");
  ASSERT_NE(n, nullptr);
  EXPECT_THAT(n->lists.at("NAMES"), ElementsAre("A", "B.C", "d"));
  EXPECT_EQ(n->text("NLTYPE"), "QUEUE");
  applied(c, "ALTER NAMELIST(NL1) NAMES(Z)");
  EXPECT_THAT(c.find(object_family::namelist, "NL1")->lists.at("NAMES"), ElementsAre("Z"));
  exec_outcome d = run(c, "DISPLAY NAMELIST(NL1) NAMES");
  EXPECT_THAT(d.lines, ElementsAre(std::string(imsb::msg::IMB1012I) + ": Display namelist details.",
                                   "   NAMELIST(NL1)                           NAMES(Z)"));
}

TEST(Namelist, MoreThan256NamesFail) {
  object_catalog c = fresh();
  std::string cmd = "DEFINE NAMELIST(NL1) NAMES(";
  for (int i = 0; i < 257; ++i) cmd += "N" + std::to_string(i) + " ";
  EXPECT_THAT(refused(c, cmd + ")"), HasSubstr("more than 256 names"));
}

TEST(Process, DefineWithApplicationAttributes) {
  object_catalog c = fresh();
  applied(c, "DEFINE PROCESS(P1) APPLTYPE(IMS) APPLICID('IMSTRAN') USERDATA('u') ENVRDATA('e')");
  const object_record* p = c.find(object_family::process, "P1");
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->text("APPLTYPE"), "IMS");
  EXPECT_EQ(p->text("APPLICID"), "IMSTRAN");
  EXPECT_TRUE(c.file_name_of(object_family::process, "P1").has_value());
  EXPECT_THAT(refused(c, "DEFINE PROCESS(P2) APPLTYPE(NOPE)"), StartsWith(imsb::msg::IMB1041E));
}

TEST(Listener, DefineAndCheckPort) {
  object_catalog c = fresh();
  applied(c, "DEFINE LISTENER(L1) TRPTYPE(TCP) PORT(1414) CONTROL(QMGR) BACKLOG(100)");
  EXPECT_EQ(c.find(object_family::listener, "L1")->text("PORT"), "1414");
  EXPECT_THAT(refused(c, "DEFINE LISTENER(L2) PORT(70000)"), HasSubstr("from 0 to 65535"));
  EXPECT_THAT(refused(c, "DEFINE LISTENER(L2) TRPTYPE(LU62)", exec_status::unsupported), HasSubstr("TCP"));
}

// --- CHANNEL ---------------------------------------------------------------------------------------

TEST(Channel, ChltypeIsRequired) {
  object_catalog c = fresh();
  EXPECT_EQ(refused(c, "DEFINE CHANNEL(C1) CONNAME('h(1414)')"),
            std::string(imsb::msg::IMB1046E) +
                ": DEFINE CHANNEL(C1): keyword CHLTYPE is required on DEFINE CHANNEL");
}

TEST(Channel, SenderNeedsConnameAndXmitq) {
  object_catalog c = fresh();
  EXPECT_THAT(refused(c, "DEFINE CHANNEL(C1) CHLTYPE(SDR) XMITQ(QM2)"),
              HasSubstr("keyword CONNAME is required"));
  EXPECT_THAT(refused(c, "DEFINE CHANNEL(C1) CHLTYPE(SDR) CONNAME('host(1414)')"),
              HasSubstr("keyword XMITQ is required"));
  applied(c, "DEFINE CHANNEL(C1) CHLTYPE(SDR) CONNAME('host(1414)') XMITQ(QM2) TRPTYPE(TCP) BATCHSZ(10)");
  const object_record* ch = c.find(object_family::channel, "C1");
  ASSERT_NE(ch, nullptr);
  EXPECT_EQ(ch->text("CONNAME"), "host(1414)");
  EXPECT_EQ(ch->text("BATCHSZ"), "10");
  EXPECT_EQ(ch->text("HBINT"), "300");
  EXPECT_FALSE(c.file_name_of(object_family::channel, "C1").has_value());  // not files [C: FILENAMES-V6]
}

TEST(Channel, AttributesOfAnotherChltypeFail) {
  object_catalog c = fresh();
  EXPECT_EQ(refused(c, "DEFINE CHANNEL(R1) CHLTYPE(RCVR) XMITQ(Q)"),
            std::string(imsb::msg::IMB1048E) +
                ": DEFINE CHANNEL(R1): keyword XMITQ does not apply to CHLTYPE(RCVR)");
  applied(c, "DEFINE CHANNEL(R1) CHLTYPE(RCVR) SEQWRAP(999999) MCAUSER('mqm')");
  applied(c, "DEFINE CHANNEL(S1) CHLTYPE(SVRCONN) SSLCIPH('TLS_AES_256_GCM_SHA384')");
  EXPECT_EQ(c.find(object_family::channel, "S1")->text("DISCINT"), "0");
}

TEST(Channel, OtherChltypesAreUnsupported) {
  object_catalog c = fresh();
  EXPECT_THAT(refused(c, "DEFINE CHANNEL(C1) CHLTYPE(CLUSSDR) CONNAME(X)", exec_status::unsupported),
              AllOf(StartsWith(imsb::msg::IMB1050E), HasSubstr("CHLTYPE")));
  EXPECT_THAT(refused(c, "DEFINE CHANNEL(C1) CHLTYPE(BOGUS)"), StartsWith(imsb::msg::IMB1041E));
}

TEST(Channel, AlterCannotChangeChltype) {
  object_catalog c = fresh();
  applied(c, "DEFINE CHANNEL(R1) CHLTYPE(RCVR)");
  EXPECT_THAT(refused(c, "ALTER CHANNEL(R1) CHLTYPE(SDR)"), StartsWith(imsb::msg::IMB1048E));
  applied(c, "ALTER CHANNEL(R1) CHLTYPE(RCVR) HBINT(60)");
  EXPECT_EQ(c.find(object_family::channel, "R1")->text("HBINT"), "60");
}

TEST(Channel, NameLongerThan20Fails) {
  object_catalog c = fresh();
  EXPECT_THAT(refused(c, "DEFINE CHANNEL(" + std::string(21, 'C') + ") CHLTYPE(RCVR)"),
              StartsWith(imsb::msg::IMB1042E));
  applied(c, "DEFINE CHANNEL(" + std::string(20, 'C') + ") CHLTYPE(RCVR)");
}

TEST(Channel, LikeMustHaveTheSameChltype) {
  object_catalog c = fresh();
  applied(c, "DEFINE CHANNEL(R1) CHLTYPE(RCVR) HBINT(5)");
  applied(c, "DEFINE CHANNEL(R2) CHLTYPE(RCVR) LIKE(R1)");
  EXPECT_EQ(c.find(object_family::channel, "R2")->text("HBINT"), "5");
  EXPECT_THAT(refused(c, "DEFINE CHANNEL(S2) CHLTYPE(SVRCONN) LIKE(R1)"), StartsWith(imsb::msg::IMB1052E));
}

// --- ALTER / DELETE -------------------------------------------------------------------------------

TEST(Alter, ChangesOnlyTheGivenKeywords) {
  object_catalog c = fresh();
  applied(c, "DEFINE QLOCAL(A) MAXDEPTH(10) DESCR(X)");
  exec_outcome o = run(c, "ALTER QLOCAL(A) DESCR(Y)", later);
  EXPECT_THAT(o.lines, ElementsAre(std::string(imsb::msg::IMB1002I) + ": Queue changed."));
  EXPECT_EQ(queue(c, "A").text("MAXDEPTH"), "10");
  EXPECT_EQ(queue(c, "A").text("DESCR"), "Y");
  EXPECT_EQ(queue(c, "A").text("ALTDATE"), "2026-12-01");
  EXPECT_EQ(queue(c, "A").text("CRDATE"), "2026-11-29");
}

TEST(Alter, UnknownObjectIsNotFound) {
  object_catalog c = fresh();
  EXPECT_EQ(refused(c, "ALTER QLOCAL(NOPE) MAXDEPTH(1)"),
            std::string(imsb::msg::IMB1044E) + ": ALTER QLOCAL(NOPE): object 'NOPE' not found");
  EXPECT_THAT(refused(c, "ALTER QLOCAL(SYSTEM.DEFAULT.ALIAS.QUEUE) MAXDEPTH(1)"),
              StartsWith(imsb::msg::IMB1045E));
}

TEST(Alter, BadValueLeavesTheObjectAsItWas) {
  object_catalog c = fresh();
  applied(c, "DEFINE QLOCAL(A)");
  EXPECT_THAT(refused(c, "ALTER QLOCAL(A) MAXDEPTH(1) DEFPRTY(99)"), HasSubstr("DEFPRTY"));
  EXPECT_EQ(queue(c, "A").text("MAXDEPTH"), "5000");
  EXPECT_THAT(refused(c, "ALTER QLOCAL(A) LIKE(B)"), StartsWith(imsb::msg::IMB1040E));
}

TEST(Delete, RemovesTheObjectAndItsFileName) {
  object_catalog c = fresh();
  applied(c, "DEFINE QLOCAL(A)");
  exec_outcome o = run(c, "DELETE QLOCAL(A) PURGE");
  EXPECT_THAT(o.lines, ElementsAre(std::string(imsb::msg::IMB1003I) + ": Queue deleted."));
  EXPECT_EQ(c.find(object_family::queue, "A"), nullptr);
  EXPECT_FALSE(c.file_name_of(object_family::queue, "A").has_value());
  applied(c, "DEFINE QLOCAL(A)");
  applied(c, "DELETE QLOCAL(A) NOPURGE");
}

TEST(Delete, EveryObjectType) {
  object_catalog c = fresh();
  applied(c, "DEFINE QALIAS(QA) TARGET(X)");
  applied(c, "DEFINE QREMOTE(QR) RNAME(X) RQMNAME(Y)");
  applied(c, "DEFINE QMODEL(QM)");
  applied(c, "DEFINE STGCLASS(SC)");
  applied(c, "DEFINE NAMELIST(NL)");
  applied(c, "DEFINE PROCESS(PR)");
  applied(c, "DEFINE CHANNEL(CH) CHLTYPE(RCVR)");
  applied(c, "DEFINE LISTENER(LS)");
  for (std::string_view d :
       {"DELETE QALIAS(QA)", "DELETE QREMOTE(QR)", "DELETE QMODEL(QM)", "DELETE STGCLASS(SC)",
        "DELETE NAMELIST(NL)", "DELETE PROCESS(PR)", "DELETE CHANNEL(CH)", "DELETE LISTENER(LS)"})
    applied(c, d);
  EXPECT_EQ(dump(c), dump(fresh()));
}

TEST(Delete, NotFoundOrOtherTypeFails) {
  object_catalog c = fresh();
  EXPECT_THAT(refused(c, "DELETE QLOCAL(NOPE)"), StartsWith(imsb::msg::IMB1044E));
  EXPECT_THAT(refused(c, "DELETE QALIAS(SYSTEM.DEFAULT.LOCAL.QUEUE)"), StartsWith(imsb::msg::IMB1045E));
  EXPECT_THAT(refused(c, "DELETE QALIAS(SYSTEM.DEFAULT.ALIAS.QUEUE) PURGE"), StartsWith(imsb::msg::IMB1040E));
}

// --- DISPLAY --------------------------------------------------------------------------------------

TEST(Display, NameAndTypeOnlyWithoutAttributeListForAGenericName) {
  object_catalog c = fresh();
  applied(c, "DEFINE QLOCAL(A)");
  exec_outcome o = run(c, "DISPLAY QLOCAL(A*)");
  EXPECT_EQ(o.status, exec_status::ok);
  EXPECT_FALSE(o.changed);
  EXPECT_THAT(o.lines, ElementsAre(std::string(imsb::msg::IMB1004I) + ": Display queue details.",
                                   "   QUEUE(A)                                TYPE(QLOCAL)"));
}

TEST(Display, ExactNameWithoutAttributeListShowsAll) {
  // IBM: "ALL is assumed by default if no specific attributes are requested and the name is not generic".
  object_catalog c = fresh();
  applied(c, "DEFINE QLOCAL(A) MAXDEPTH(7)");
  exec_outcome o = run(c, "DISPLAY QLOCAL(A)");
  EXPECT_EQ(o.status, exec_status::ok);
  EXPECT_EQ(o.lines, run(c, "DISPLAY QLOCAL(A) ALL").lines);
  std::string all;
  for (const auto& l : o.lines) all += l + "\n";
  EXPECT_THAT(all, AllOf(HasSubstr("MAXDEPTH(7)"), HasSubstr("USAGE(NORMAL)"), HasSubstr("   SHARE")));
  EXPECT_THAT(run(c, "DISPLAY QUEUE(SYSTEM.DEFAULT.LOCAL.QUEUE)").lines,
              testing::Contains(HasSubstr("MAXDEPTH(5000)")));
  // One attribute asked for: only that one.
  EXPECT_EQ(run(c, "DISPLAY QLOCAL(A) DESCR").lines.size(), 3u);
}

TEST(Display, AttributeListTwoPerLineAlphabetical) {
  object_catalog c = fresh();
  applied(c, "DEFINE QLOCAL(A) MAXDEPTH(7) DESCR('hello world')");
  exec_outcome o = run(c, "DIS QL(A) MAXDEPTH DESCR SHARE");
  EXPECT_THAT(o.lines, ElementsAre(std::string(imsb::msg::IMB1004I) + ": Display queue details.",
                                   "   QUEUE(A)                                TYPE(QLOCAL)",
                                   "   DESCR(hello world)                      MAXDEPTH(7)", "   SHARE"));
}

TEST(Display, BlankValuesShowAsOneBlankAndLongItemsTakeALine) {
  object_catalog c = fresh();
  const std::string longname(45, 'L');
  applied(c, "DEFINE QLOCAL(" + longname + ")");
  exec_outcome o = run(c, "DISPLAY QLOCAL(" + longname + ") BOQNAME");
  EXPECT_THAT(o.lines, ElementsAre(std::string(imsb::msg::IMB1004I) + ": Display queue details.",
                                   "   QUEUE(" + longname + ")",
                                   "   TYPE(QLOCAL)                            BOQNAME( )"));
}

TEST(Display, AllShowsEveryAttribute) {
  object_catalog c = fresh();
  exec_outcome o = run(c, "DISPLAY QALIAS(SYSTEM.DEFAULT.ALIAS.QUEUE) ALL");
  std::string all;
  for (const auto& l : o.lines) all += l + "\n";
  for (std::string_view k :
       {"TARGET( )", "TARGTYPE(QUEUE)", "DEFPSIST(NO)", "PUT(ENABLED)", "CRDATE(2026-11-29)"})
    EXPECT_THAT(all, HasSubstr(k));
}

TEST(Display, GenericNamesMatchPrefixes) {
  object_catalog c = fresh();
  applied(c, "DEFINE QLOCAL(APP.A)");
  applied(c, "DEFINE QLOCAL(APP.B)");
  applied(c, "DEFINE QLOCAL(OTHER)");
  exec_outcome o = run(c, "DISPLAY QLOCAL(APP.*)");
  EXPECT_THAT(o.lines, ElementsAre(std::string(imsb::msg::IMB1004I) + ": Display queue details.",
                                   "   QUEUE(APP.A)                            TYPE(QLOCAL)",
                                   std::string(imsb::msg::IMB1004I) + ": Display queue details.",
                                   "   QUEUE(APP.B)                            TYPE(QLOCAL)"));
}

TEST(Display, NothingMatchingIsNotFound) {
  object_catalog c = fresh();
  EXPECT_EQ(refused(c, "DISPLAY QLOCAL(NOPE*)"),
            std::string(imsb::msg::IMB1044E) + ": DISPLAY QLOCAL(NOPE*): object 'NOPE*' not found");
}

TEST(Display, QueueCoversEveryQueueTypeAndTypeFilters) {
  object_catalog c = fresh();
  applied(c, "DEFINE QLOCAL(Z.L)");
  applied(c, "DEFINE QALIAS(Z.A) TARGET(Z.L)");
  applied(c, "DEFINE QREMOTE(Z.R) RNAME(X) RQMNAME(Y)");
  exec_outcome all = run(c, "DISPLAY QUEUE(Z.*)");
  EXPECT_EQ(all.lines.size(), 6u);
  exec_outcome aliases = run(c, "DISPLAY QUEUE(Z.*) TYPE(QALIAS) TARGET");
  EXPECT_THAT(aliases.lines,
              ElementsAre(std::string(imsb::msg::IMB1004I) + ": Display queue details.",
                          "   QUEUE(Z.A)                              TYPE(QALIAS)", "   TARGET(Z.L)"));
  EXPECT_EQ(run(c, "DISPLAY QUEUE(Z.*) TYPE(QL)").lines.size(), 2u);
  EXPECT_THAT(refused(c, "DISPLAY QUEUE(*) TYPE(QCLUSTER)", exec_status::unsupported), HasSubstr("clusters"));
}

TEST(Display, WhereComparesIntegersAndWords) {
  object_catalog c = fresh();
  applied(c, "DEFINE QLOCAL(W.A) MAXDEPTH(10) USAGE(XMITQ)");
  applied(c, "DEFINE QLOCAL(W.B) MAXDEPTH(200)");
  auto names = [&](std::string_view cmd) {
    std::vector<std::string> n;
    for (const auto& l : run(c, cmd).lines)
      if (l.rfind("   QUEUE(", 0) == 0) n.push_back(l.substr(9, l.find(')') - 9));
    return n;
  };
  EXPECT_THAT(names("DISPLAY QLOCAL(W.*) WHERE(MAXDEPTH GT 50)"), ElementsAre("W.B"));
  EXPECT_THAT(names("DISPLAY QLOCAL(W.*) WHERE(MAXDEPTH LE 10)"), ElementsAre("W.A"));
  EXPECT_THAT(names("DISPLAY QLOCAL(W.*) WHERE(MAXDEPTH NE 10)"), ElementsAre("W.B"));
  EXPECT_THAT(names("DISPLAY QLOCAL(W.*) WHERE(USAGE EQ XMITQ)"), ElementsAre("W.A"));
  EXPECT_THAT(names("DISPLAY QLOCAL(*) WHERE(USAGE EQ XMITQ)"), ElementsAre("W.A"));
  EXPECT_THAT(names("DISPLAY QLOCAL(W.*) WHERE(MAXDEPTH GE 10)"), ElementsAre("W.A", "W.B"));
  EXPECT_THAT(names("DISPLAY QLOCAL(W.*) WHERE(MAXDEPTH LT 10)"), ElementsAre());
  // The WHERE attribute is shown.
  EXPECT_THAT(run(c, "DISPLAY QLOCAL(W.A*) WHERE(MAXDEPTH EQ 10)").lines.back(), HasSubstr("MAXDEPTH(10)"));
}

TEST(Display, WhereLikeAndNotLike) {
  object_catalog c = fresh();
  applied(c, "DEFINE QLOCAL(W.A) DESCR('bridge one')");
  applied(c, "DEFINE QLOCAL(W.B) DESCR('other')");
  exec_outcome lk = run(c, "DISPLAY QLOCAL(W.*) WHERE(DESCR LK 'bridge*')");
  ASSERT_EQ(lk.lines.size(), 3u);  // details, name and type, the WHERE attribute
  EXPECT_EQ(lk.lines[2], "   DESCR(bridge one)");
  EXPECT_THAT(lk.lines[1], StartsWith("   QUEUE(W.A)"));
  exec_outcome nl = run(c, "DISPLAY QLOCAL(W.*) WHERE(DESCR NL 'bridge*')");
  ASSERT_EQ(nl.lines.size(), 3u);
  EXPECT_THAT(nl.lines[1], StartsWith("   QUEUE(W.B)"));
}

TEST(Display, WhereOnNamelistElements) {
  object_catalog c = fresh();
  applied(c, "DEFINE NAMELIST(N1) NAMES(A, B)");
  applied(c, "DEFINE NAMELIST(N2) NAMES(C)");
  EXPECT_THAT(run(c, "DISPLAY NAMELIST(N*) WHERE(NAMES CT B)").lines[1], StartsWith("   NAMELIST(N1) "));
  EXPECT_THAT(run(c, "DISPLAY NAMELIST(N*) WHERE(NAMES EX B)").lines[1], StartsWith("   NAMELIST(N2) "));
  EXPECT_THAT(run(c, "DISPLAY NAMELIST(N*) WHERE(NAMES CTG A*)").lines[1], StartsWith("   NAMELIST(N1) "));
  EXPECT_EQ(run(c, "DISPLAY NAMELIST(*) WHERE(NAMES EXG *)").lines.size(), 2u);  // only the empty default
  EXPECT_THAT(refused(c, "DISPLAY NAMELIST(N*) WHERE(NAMES EQ B)"), StartsWith(imsb::msg::IMB1048E));
}

TEST(Display, WhereErrorsAreReported) {
  object_catalog c = fresh();
  EXPECT_THAT(refused(c, "DISPLAY QLOCAL(*) WHERE(NOSUCH EQ 1)"), StartsWith(imsb::msg::IMB1040E));
  EXPECT_THAT(refused(c, "DISPLAY QLOCAL(*) WHERE(MAXDEPTH GT X)"), StartsWith(imsb::msg::IMB1041E));
  EXPECT_THAT(refused(c, "DISPLAY QLOCAL(*) WHERE(MAXDEPTH LK 5*)"), StartsWith(imsb::msg::IMB1048E));
  EXPECT_THAT(refused(c, "DISPLAY QLOCAL(*) NOSUCH"), StartsWith(imsb::msg::IMB1040E));
}

TEST(Display, EveryObjectTypeHasItsDetailsLine) {
  object_catalog c = fresh();
  EXPECT_THAT(run(c, "DISPLAY STGCLASS(DEFAULT*)").lines,
              ElementsAre(std::string(imsb::msg::IMB1008I) + ": Display storage class details.",
                          "   STGCLASS(DEFAULT)"));
  EXPECT_THAT(run(c, "DISPLAY PROCESS(SYSTEM.DEFAULT.PROCESS)").lines[0],
              std::string(imsb::msg::IMB1016I) + ": Display process details.");
  EXPECT_THAT(run(c, "DISPLAY CHANNEL(SYSTEM.DEF.SENDER*)").lines,
              ElementsAre(std::string(imsb::msg::IMB1020I) + ": Display channel details.",
                          "   CHANNEL(SYSTEM.DEF.SENDER)              CHLTYPE(SDR)"));
  EXPECT_THAT(run(c, "DISPLAY CHANNEL(*) CHLTYPE(RCVR)").lines,
              ElementsAre(std::string(imsb::msg::IMB1020I) + ": Display channel details.",
                          "   CHANNEL(SYSTEM.DEF.RECEIVER)            CHLTYPE(RCVR)"));
  EXPECT_THAT(run(c, "DISPLAY LISTENER(*) PORT").lines,
              ElementsAre(std::string(imsb::msg::IMB1024I) + ": Display listener details.",
                          "   LISTENER(SYSTEM.DEFAULT.LISTENER.TCP)   PORT(0)"));
}

// --- QMGR -----------------------------------------------------------------------------------------

TEST(Qmgr, AlterAndDisplay) {
  object_catalog c = fresh();
  exec_outcome o = run(c, "ALTER QMGR DEADQ('SYSTEM.DEAD.LETTER.QUEUE') DEFXMITQ(QM2) CHAD(ENABLED) FORCE");
  EXPECT_THAT(o.lines, ElementsAre(std::string(imsb::msg::IMB1025I) + ": Queue manager changed."));
  EXPECT_EQ(c.qmgr().text("DEADQ"), "SYSTEM.DEAD.LETTER.QUEUE");
  EXPECT_EQ(c.snapshot().qmgr.defxmitq, "QM2");
  exec_outcome d = run(c, "DISPLAY QMGR DEADQ CCSID");
  EXPECT_THAT(d.lines, ElementsAre(std::string(imsb::msg::IMB1026I) + ": Display queue manager details.",
                                   "   QMNAME(QM1)                             CCSID(819)",
                                   "   DEADQ(SYSTEM.DEAD.LETTER.QUEUE)"));
  EXPECT_GT(run(c, "DISPLAY QMGR").lines.size(), 10u);
}

TEST(Qmgr, ReadOnlyAndUnknownKeywordsFail) {
  object_catalog c = fresh();
  EXPECT_EQ(
      refused(c, "ALTER QMGR CMDLEVEL(800)"),
      std::string(imsb::msg::IMB1048E) + ": ALTER QMGR: keyword CMDLEVEL is read-only and cannot be set");
  EXPECT_THAT(refused(c, "ALTER QMGR PLATFORM(MVS)"), StartsWith(imsb::msg::IMB1048E));
  EXPECT_THAT(refused(c, "ALTER QMGR NOSUCH(1)"), StartsWith(imsb::msg::IMB1040E));
  EXPECT_THAT(refused(c, "ALTER QMGR MAXMSGL(100)"), HasSubstr("from 32768 to 104857600"));
  EXPECT_THAT(refused(c, "ALTER QMGR STATQ(ON)", exec_status::unsupported), StartsWith(imsb::msg::IMB1050E));
}

TEST(Qmgr, ZosOnlyAttributesAreNotSupportedRatherThanInvalid) {
  // Real-world z/OS scripts carry queue-sharing-group and channel-initiator attributes: "applied or not
  // supported", never an error in the script.
  object_catalog c = fresh();
  for (const char* cmd :
       {"ALTER QMGR GROUPUR(ENABLED)", "ALTER QMGR IGQ(ENABLED)", "ALTER QMGR TCPNAME(TCPIP)"})
    EXPECT_THAT(refused(c, cmd, exec_status::unsupported), StartsWith(imsb::msg::IMB1050E)) << cmd;
}

TEST(Display, StatusAttributesNeedTheRunningQueueManager) {
  // CURDEPTH, IPPROCS, OPPROCS come from the running queue manager, not from the catalog.
  object_catalog c = fresh();
  applied(c, "DEFINE QLOCAL(A)");
  EXPECT_EQ(refused(c, "DISPLAY QLOCAL(A) CURDEPTH"),
            std::string(imsb::msg::IMB1049E) +
                ": DISPLAY QLOCAL(A): queue manager not running: CURDEPTH comes from the running queue "
                "manager; start it with strmqm, then ask again");
  EXPECT_THAT(refused(c, "DISPLAY QLOCAL(*) WHERE(CURDEPTH GT 0) IPPROCS"),
              AllOf(StartsWith(imsb::msg::IMB1049E), HasSubstr("CURDEPTH comes from")));
  EXPECT_THAT(refused(c, "DISPLAY QUEUE(*) OPPROCS"), StartsWith(imsb::msg::IMB1049E));
  EXPECT_THAT(refused(c, "DISPLAY QLOCAL(A) QMID", exec_status::unsupported),
              StartsWith(imsb::msg::IMB1050E));
  EXPECT_THAT(refused(c, "DISPLAY QLOCAL(A) NOSUCH"), StartsWith(imsb::msg::IMB1040E));
}

// With the running queue manager's status (exec_context::local_queue_status): asked for by name, with
// ALL (and by default for one queue), filtered with WHERE; local queues only.
TEST(Display, StatusAttributesOfARunningQueueManager) {
  object_catalog c = fresh();
  applied(c, "DEFINE QLOCAL(APP.A)");
  applied(c, "DEFINE QLOCAL(APP.B)");
  applied(c, "DEFINE QALIAS(APP.AL) TARGET(APP.A)");
  exec_context running = ctx;
  running.qmgr_running = true;
  running.local_queue_status = [](const std::string& q) -> std::optional<exec_context::queue_status> {
    if (q == "APP.A") return exec_context::queue_status{7, 1, 2};
    if (q == "APP.B") return exec_context::queue_status{};
    return std::nullopt;
  };
  exec_outcome o = run(c, "DISPLAY QLOCAL(APP.*) CURDEPTH IPPROCS OPPROCS", running);
  EXPECT_THAT(o.lines, ElementsAre(std::string(imsb::msg::IMB1004I) + ": Display queue details.",
                                   "   QUEUE(APP.A)                            TYPE(QLOCAL)",
                                   "   CURDEPTH(7)                             IPPROCS(1)", "   OPPROCS(2)",
                                   std::string(imsb::msg::IMB1004I) + ": Display queue details.",
                                   "   QUEUE(APP.B)                            TYPE(QLOCAL)",
                                   "   CURDEPTH(0)                             IPPROCS(0)", "   OPPROCS(0)"));
  o = run(c, "DISPLAY QUEUE(APP.*) WHERE(CURDEPTH GT 0)", running);
  EXPECT_THAT(o.lines,
              ElementsAre(std::string(imsb::msg::IMB1004I) + ": Display queue details.",
                          "   QUEUE(APP.A)                            TYPE(QLOCAL)", "   CURDEPTH(7)"));
  o = run(c, "DISPLAY QLOCAL(APP.*) WHERE(OPPROCS LT 1) MAXDEPTH", running);  // WHERE's is shown too
  EXPECT_THAT(o.lines, ElementsAre(std::string(imsb::msg::IMB1004I) + ": Display queue details.",
                                   "   QUEUE(APP.B)                            TYPE(QLOCAL)",
                                   "   MAXDEPTH(5000)                          OPPROCS(0)"));
  // ALL, and one queue with nothing asked: in keyword order among the catalog's attributes.
  o = run(c, "DISPLAY QLOCAL(APP.A)", running);
  const std::string all = [&] {
    std::string t;
    for (const auto& l : o.lines) t += l + "\n";
    return t;
  }();
  EXPECT_THAT(all, HasSubstr("   CURDEPTH(7)                             DEFPRTY(0)\n")) << all;
  EXPECT_THAT(all, HasSubstr("   IPPROCS(1)                              MAXDEPTH(5000)\n")) << all;
  EXPECT_THAT(all, HasSubstr("   OPPROCS(2)                              PROCESS( )\n")) << all;
  // Not for other queue types.
  EXPECT_THAT(refused(c, "DISPLAY QALIAS(APP.AL) CURDEPTH", exec_status::unsupported),
              StartsWith(imsb::msg::IMB1050E));
  o = run(c, "DISPLAY QALIAS(APP.AL)", running);
  for (const auto& l : o.lines) EXPECT_THAT(l, Not(HasSubstr("CURDEPTH"))) << l;
}

TEST(Qmgr, AlterOnABareCatalogFillsDefaults) {
  object_catalog c("QMX", names::fs_profile::posix);
  applied(c, "ALTER QMGR DESCR('x')");
  EXPECT_EQ(c.qmgr().text("CCSID"), "819");
  EXPECT_EQ(c.qmgr().text("QMNAME"), "QMX");
}

// --- AUTHREC --------------------------------------------------------------------------------------

TEST(Authrec, SetAddsAndRemovesAuthorities) {
  object_catalog c = fresh();
  exec_outcome o =
      run(c, "SET AUTHREC PROFILE(APP.**) OBJTYPE(QUEUE) PRINCIPAL('app1') AUTHADD(PUT, GET, INQ)");
  EXPECT_THAT(o.lines, ElementsAre(std::string(imsb::msg::IMB1027I) + ": Authority record set."));
  ASSERT_EQ(c.authrecs().size(), 1u);
  EXPECT_EQ(c.authrecs()[0].principal, "app1");
  EXPECT_THAT(c.authrecs()[0].authorities, ElementsAre("GET", "INQ", "PUT"));
  applied(c, "SET AUTHREC PROFILE(APP.**) OBJTYPE(QUEUE) PRINCIPAL('app1') AUTHRMV(INQ) AUTHADD(BROWSE)");
  ASSERT_EQ(c.authrecs().size(), 1u);
  EXPECT_THAT(c.authrecs()[0].authorities, ElementsAre("BROWSE", "GET", "PUT"));
  exec_outcome d = run(c, "DISPLAY AUTHREC PROFILE(APP.**) OBJTYPE(QUEUE)");
  EXPECT_THAT(d.lines, ElementsAre(std::string(imsb::msg::IMB1029I) + ": Display authority record details.",
                                   "   PROFILE(APP.**)                         ENTITY(app1)",
                                   "   ENTTYPE(PRINCIPAL)                      OBJTYPE(QUEUE)",
                                   "   AUTHLIST(BROWSE,GET,PUT)"));
  applied(c, "DELETE AUTHREC PROFILE(APP.**) OBJTYPE(QUEUE) PRINCIPAL('app1')");
  EXPECT_TRUE(c.authrecs().empty());
}

TEST(Authrec, MissingOrConflictingEntityFails) {
  object_catalog c = fresh();
  EXPECT_EQ(refused(c, "SET AUTHREC PROFILE(A) OBJTYPE(QUEUE) AUTHADD(PUT)"),
            std::string(imsb::msg::IMB1046E) + ": SET AUTHREC: keyword PRINCIPAL or GROUP is required");
  EXPECT_THAT(refused(c, "SET AUTHREC PROFILE(A) OBJTYPE(QUEUE) PRINCIPAL(X) GROUP(Y) AUTHADD(PUT)"),
              StartsWith(imsb::msg::IMB1048E));
  EXPECT_THAT(refused(c, "SET AUTHREC PROFILE(A) PRINCIPAL(X) AUTHADD(PUT)"),
              HasSubstr("OBJTYPE is required"));
  EXPECT_THAT(refused(c, "SET AUTHREC PROFILE(A) OBJTYPE(QUEUE) GROUP(G)"), HasSubstr("AUTHADD or AUTHRMV"));
  EXPECT_THAT(refused(c, "SET AUTHREC PROFILE(A) OBJTYPE(QUEUE) GROUP(G) AUTHADD(FLY)"),
              StartsWith(imsb::msg::IMB1041E));
  EXPECT_THAT(refused(c, "DELETE AUTHREC PROFILE(A) OBJTYPE(QUEUE) GROUP(G)"),
              StartsWith(imsb::msg::IMB1044E));
}

TEST(Authrec, QmgrProfileDefaultsToTheQueueManagerName) {
  object_catalog c = fresh();
  applied(c, "SET AUTHREC OBJTYPE(QMGR) GROUP(apps) AUTHADD(CONNECT, INQ)");
  ASSERT_EQ(c.authrecs().size(), 1u);
  EXPECT_EQ(c.authrecs()[0].profile, "QM1");
  EXPECT_EQ(c.authrecs()[0].group, "APPS");
}

TEST(Authrec, DeletingAQueueDeletesItsAuthorityRecords) {
  object_catalog c = fresh();
  applied(c, "DEFINE QLOCAL(A)");
  applied(c, "SET AUTHREC PROFILE(A) OBJTYPE(QUEUE) GROUP(G) AUTHADD(PUT)");
  applied(c, "DELETE QLOCAL(A)");
  EXPECT_TRUE(c.authrecs().empty());
  applied(c, "DEFINE QLOCAL(A)");
  applied(c, "SET AUTHREC PROFILE(A) OBJTYPE(QUEUE) GROUP(G) AUTHADD(PUT)");
  applied(c, "DELETE QLOCAL(A) AUTHREC(NO)");
  EXPECT_EQ(c.authrecs().size(), 1u);
}

// --- unsupported and runtime commands ----------------------------------------------------------------

TEST(Unsupported, CommandsOutOfScopeNameTheReason) {
  object_catalog c = fresh();
  EXPECT_EQ(refused(c, "DEFINE TOPIC(T1) TOPICSTR('a/b')", exec_status::unsupported),
            std::string(imsb::msg::IMB1050E) +
                ": DEFINE TOPIC(T1): " + mqsc::unsupported_reason("DEFINE", "TOPIC"));
  EXPECT_THAT(refused(c, "DEFINE SERVICE(S1)", exec_status::unsupported), StartsWith(imsb::msg::IMB1050E));
}

TEST(Runtime, CommandsNeedARunningQueueManager) {
  object_catalog c = fresh();
  EXPECT_EQ(
      refused(c, "START CHANNEL(C1)"),
      std::string(imsb::msg::IMB1049E) +
          ": START CHANNEL(C1): queue manager not running: START CHANNEL needs a running queue manager");
  for (std::string_view cmd :
       {"STOP LISTENER(L)", "DISPLAY QSTATUS(A)", "DISPLAY CHSTATUS(C)", "CLEAR QLOCAL(A)",
        "RESET TPIPE(T) XCFMNAME(M)", "SUSPEND QMGR FACILITY(IMSBRIDGE)", "RESUME QMGR"})
    EXPECT_THAT(refused(c, cmd), HasSubstr("queue manager not running")) << cmd;
  exec_context running = ctx;
  running.qmgr_running = true;
  auto r = mqsc::parse_command("START CHANNEL(C1)");
  EXPECT_EQ(execute(c, *r.cmd, running).status, exec_status::unsupported);
}

// runmqsc on a stopped queue manager (messages_unseen): DELETE QLOCAL is refused, with or without PURGE,
// since whether the queue holds messages is unknown; other deletes, and "not found", are as before.
TEST(Runtime, DeleteQlocalNeedsTheMessagesSeen) {
  object_catalog c = fresh();
  applied(c, "DEFINE QLOCAL(A)");
  applied(c, "DEFINE QALIAS(QA) TARGET(A)");
  exec_context stopped = ctx;
  stopped.messages_unseen = true;
  for (std::string_view cmd : {"DELETE QLOCAL(A)", "DELETE QLOCAL(A) PURGE", "DELETE QL(A) NOPURGE"}) {
    const std::string before = dump(c);
    const exec_outcome o = run(c, cmd, stopped);
    EXPECT_EQ(o.status, exec_status::failed) << cmd;
    ASSERT_EQ(o.lines.size(), 1u) << cmd;
    EXPECT_THAT(o.lines[0], StartsWith(std::string(imsb::msg::IMB1049E) + ": DELETE QLOCAL(A)")) << cmd;
    EXPECT_THAT(o.lines[0], HasSubstr("MQRC_Q_NOT_EMPTY 2055")) << cmd;
    EXPECT_EQ(dump(c), before) << cmd;
  }
  EXPECT_THAT(run(c, "DELETE QLOCAL(NOPE)", stopped).lines.at(0), StartsWith(imsb::msg::IMB1044E));
  EXPECT_EQ(run(c, "DELETE QALIAS(QA)", stopped).status, exec_status::ok);
  EXPECT_EQ(run(c, "DELETE QLOCAL(A)").status, exec_status::ok);  // messages seen (the default)
}

TEST(Display, WhereWithoutThreeValuesFromAProgramFails) {
  object_catalog c = fresh();
  mqsc::command cmd = *mqsc::parse_command("DISPLAY QLOCAL(*) WHERE(MAXDEPTH GT 1)").cmd;
  cmd.parameters[0].values.pop_back();
  const std::string before = dump(c);
  EXPECT_EQ(execute(c, cmd, ctx).status, exec_status::failed);
  EXPECT_EQ(dump(c), before);
}

TEST(End, StopsTheCaller) {
  object_catalog c = fresh();
  EXPECT_EQ(run(c, "END").status, exec_status::end);
}

// --- run_script -----------------------------------------------------------------------------------

TEST(RunScript, EchoesAndSummarises) {
  object_catalog c = fresh();
  script_outcome o = run_script(c, "DEFINE QLOCAL(A)\nDEFINE QLOCAL(B) +\n  MAXDEPTH(5)\nDIS QL(A*)\n", ctx);
  EXPECT_THAT(
      o.lines,
      ElementsAre("     1 : DEFINE QLOCAL(A)", std::string(imsb::msg::IMB1001I) + ": Queue created.",
                  "     2 : DEFINE QLOCAL(B) +", "       :   MAXDEPTH(5)",
                  std::string(imsb::msg::IMB1001I) + ": Queue created.", "     3 : DIS QL(A*)",
                  std::string(imsb::msg::IMB1004I) + ": Display queue details.",
                  "   QUEUE(A)                                TYPE(QLOCAL)", "", "3 MQSC commands read.",
                  "No commands have a syntax error.", "All valid MQSC commands were processed."));
  EXPECT_EQ(o.read, 3u);
  EXPECT_EQ(o.exit_code(), 0);
  EXPECT_TRUE(o.changed);
  EXPECT_EQ(queue(c, "B").text("MAXDEPTH"), "5");
}

TEST(RunScript, SyntaxErrorsAndFailuresInScriptOrder) {
  object_catalog c = fresh();
  script_outcome o = run_script(c,
                                "* comment\n"
                                "DEFINE QLOCAL(A)\n"
                                "DEFINE QLOCAL(B) MAXDEPTH(5\n"
                                "DEFINE QLOCAL(A)\n"
                                "DEFINE TOPIC(T)\n",
                                ctx);
  ASSERT_GE(o.lines.size(), 8u);
  EXPECT_EQ(o.lines[0], "     1 : DEFINE QLOCAL(A)");
  EXPECT_EQ(o.lines[2], "     2 : DEFINE QLOCAL(B) MAXDEPTH(5");
  EXPECT_THAT(o.lines[3], AllOf(StartsWith(std::string(imsb::msg::IMB1051E) + ": MQSC syntax error: line 3"),
                                HasSubstr("MAXDEPTH")));
  EXPECT_EQ(o.lines[4], "     3 : DEFINE QLOCAL(A)");
  EXPECT_THAT(o.lines[5], StartsWith(imsb::msg::IMB1043E));
  EXPECT_EQ(o.lines[6], "     4 : DEFINE TOPIC(T)");
  EXPECT_THAT(o.lines[7], StartsWith(imsb::msg::IMB1050E));
  EXPECT_THAT(std::vector<std::string>(o.lines.end() - 3, o.lines.end()),
              ElementsAre("4 MQSC commands read.", "One command has a syntax error.",
                          "2 valid MQSC commands could not be processed."));
  EXPECT_EQ(o.syntax_errors, 1u);
  EXPECT_EQ(o.failed, 2u);
  EXPECT_EQ(o.exit_code(), 10);
  EXPECT_EQ(c.find(object_family::queue, "B"), nullptr);
}

TEST(RunScript, StopsAtEnd) {
  object_catalog c = fresh();
  script_outcome o = run_script(c, "DEFINE QLOCAL(A)\nEND\nDEFINE QLOCAL(B)\n", ctx);
  EXPECT_EQ(o.read, 1u);
  EXPECT_EQ(c.find(object_family::queue, "B"), nullptr);
  EXPECT_THAT(std::vector<std::string>(o.lines.end() - 3, o.lines.end()),
              ElementsAre("One MQSC command read.", "No commands have a syntax error.",
                          "All valid MQSC commands were processed."));
}

TEST(RunScript, EmptyScript) {
  object_catalog c = fresh();
  script_outcome o = run_script(c, "* nothing\n\n", ctx);
  EXPECT_EQ(o.read, 0u);
  EXPECT_FALSE(o.changed);
  EXPECT_EQ(o.exit_code(), 0);
  EXPECT_EQ(o.lines[1], "No MQSC commands read.");
}

TEST(RunScript, SeedScenarioQueueManagerAlias) {
  // IBM's example [C: QMALIAS]: a queue-manager alias on QM1 sends Q@QM3 to transmission queue QM2.
  object_catalog c = fresh();
  script_outcome o = run_script(c,
                                "DEFINE QLOCAL(QM2) USAGE(XMITQ)\n"
                                "DEFINE QREMOTE(QM3) RNAME(' ') RQMNAME(QM3) XMITQ(QM2)\n",
                                ctx);
  EXPECT_EQ(o.exit_code(), 0);
  const catalog_snapshot s = c.snapshot();
  ASSERT_NE(s.find("QM3"), nullptr);
  EXPECT_EQ(s.find("QM3")->type, queue_type::remote);
  EXPECT_EQ(s.find("QM3")->rname, "");
  EXPECT_EQ(s.find("QM2")->usage, queue_usage::xmitq);
}

// A few thousand mutated scripts: nothing crashes, and a command that fails leaves the catalog alone.
TEST(RunScript, RandomScriptsDoNotCrashAndFailuresChangeNothing) {
  const std::vector<std::string> seeds = {
      "DEFINE QLOCAL(A) MAXDEPTH(10) DESCR('x') NOSHARE",
      "DEFINE QALIAS(B) TARGQ(A)",
      "DEFINE QREMOTE(C) RNAME(X) RQMNAME(QM2) XMITQ(QM2)",
      "DEFINE STGCLASS(IMSA) PSID(02) XCFGNAME(G) XCFMNAME(M)",
      "ALTER QLOCAL(A) MAXDEPTH(20) TRIGGER",
      "DEFINE CHANNEL(C1) CHLTYPE(SDR) CONNAME('h(1)') XMITQ(QM2)",
      "DISPLAY QUEUE(*) WHERE(MAXDEPTH GT 5) ALL",
      "SET AUTHREC PROFILE(A) OBJTYPE(QUEUE) PRINCIPAL(U) AUTHADD(PUT)",
      "DELETE QLOCAL(A) PURGE",
      "DEFINE NAMELIST(N) NAMES(A,B)",
      "ALTER QMGR DEADQ(DLQ) CCSID(500)",
      "DEFINE QLOCAL(A) LIKE(B) REPLACE",
  };
  const std::string alphabet = "AQ()' ,*+-;XMZ019.\n";
  std::mt19937 rng(4);
  object_catalog c = fresh();
  for (int i = 0; i < 3000; ++i) {
    std::string text = seeds[rng() % seeds.size()];
    const int edits = static_cast<int>(rng() % 4);
    for (int e = 0; e < edits && !text.empty(); ++e) {
      const std::size_t at = rng() % text.size();
      switch (rng() % 3) {
        case 0:
          text[at] = alphabet[rng() % alphabet.size()];
          break;
        case 1:
          text.erase(at, 1);
          break;
        default:
          text.insert(at, 1, alphabet[rng() % alphabet.size()]);
          break;
      }
    }
    // One command at a time through execute, to check atomicity; whole scripts through run_script.
    auto parsed = mqsc::parse_command(text);
    if (parsed.ok() && parsed.cmd->verb != "END") {
      const std::string before = dump(c);
      exec_outcome o = execute(c, *parsed.cmd, ctx);
      if (o.status != exec_status::ok) {
        ASSERT_EQ(dump(c), before) << text;
        ASSERT_EQ(o.lines.size(), 1u) << text;
      }
    }
    if (i % 10 == 0) {
      object_catalog scratch = fresh();
      script_outcome so = run_script(scratch, text + "\n" + seeds[rng() % seeds.size()], ctx);
      ASSERT_FALSE(so.lines.empty());
    }
  }
}

}  // namespace
}  // namespace imsb::objects
