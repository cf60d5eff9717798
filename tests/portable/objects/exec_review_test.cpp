// The executor's answers to a review: each test names the defect it guards against.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "exec_test_support.hpp"
#include "imsb/core/messages.hpp"
#include "imsb/mqsc/parser.hpp"
#include "imsb/objects/mqsc_exec.hpp"
#include "imsb/objects/schema.hpp"

namespace imsb::objects {
namespace {

using ::testing::AllOf;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::StartsWith;

using namespace test;  // NOLINT: the shared helpers read as part of each test

// The object names a DISPLAY shows, in order.
std::vector<std::string> shown(object_catalog& c, std::string_view text) {
  exec_outcome o = run(c, text);
  EXPECT_EQ(o.status, exec_status::ok) << text << ": " << (o.lines.empty() ? "" : o.lines[0]);
  std::vector<std::string> names;
  for (const auto& l : o.lines) {
    for (std::string_view k : {"   QUEUE(", "   CHANNEL(", "   PROFILE("})
      if (l.rfind(k, 0) == 0) names.push_back(l.substr(k.size(), l.find(')') - k.size()));
  }
  return names;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string s;
  for (const auto& l : lines) s += l + "\n";
  return s;
}

// --- 1. WHERE on flags -------------------------------------------------------------------------

TEST(ReviewWhereFlags, FlagsFilterWithYesAndNo) {
  object_catalog c = fresh();
  applied(c, "DEFINE QLOCAL(F.A) NOSHARE TRIGGER HARDENBO");
  applied(c, "DEFINE QLOCAL(F.B)");
  EXPECT_THAT(shown(c, "DISPLAY QLOCAL(F.*) WHERE(SHARE EQ NO)"), ElementsAre("F.A"));
  EXPECT_THAT(shown(c, "DISPLAY QLOCAL(F.*) WHERE(SHARE EQ YES)"), ElementsAre("F.B"));
  EXPECT_THAT(shown(c, "DISPLAY QLOCAL(F.*) WHERE(SHARE NE YES)"), ElementsAre("F.A"));
  EXPECT_THAT(shown(c, "DISPLAY QLOCAL(F.*) WHERE(TRIGGER EQ YES)"), ElementsAre("F.A"));
  EXPECT_THAT(shown(c, "DISPLAY QLOCAL(F.*) WHERE(HARDENBO EQ NO)"), ElementsAre("F.B"));
  EXPECT_THAT(shown(c, "DISPLAY QLOCAL(F.*) WHERE(trigger eq 'yes')"), ElementsAre("F.A"));
}

TEST(ReviewWhereFlags, FlagWordsAndOtherOperatorsAreRefused) {
  object_catalog c = fresh();
  EXPECT_THAT(refused(c, "DISPLAY QLOCAL(*) WHERE(SHARE EQ NOSHARE)"),
              AllOf(StartsWith(imsb::msg::IMB1041E), HasSubstr("is not one of YES, NO")));
  EXPECT_THAT(refused(c, "DISPLAY QLOCAL(*) WHERE(SHARE EQ SHARE)"), StartsWith(imsb::msg::IMB1041E));
  EXPECT_THAT(refused(c, "DISPLAY QLOCAL(*) WHERE(SHARE GT NO)"),
              AllOf(StartsWith(imsb::msg::IMB1048E), HasSubstr("EQ or NE only")));
  EXPECT_THAT(refused(c, "DISPLAY QLOCAL(*) WHERE(NOSHARE EQ YES)"), StartsWith(imsb::msg::IMB1048E));
}

// --- 2. exact name without attributes ------------------------------------------------------------

TEST(ReviewDisplayAll, ExactNameShowsEveryAttributeGenericNameOnlyNameAndType) {
  object_catalog c = fresh();
  const exec_outcome exact = run(c, "DISPLAY QUEUE(SYSTEM.DEFAULT.LOCAL.QUEUE)");
  EXPECT_THAT(exact.lines, Contains(HasSubstr("MAXDEPTH(5000)")));
  EXPECT_EQ(exact.lines, run(c, "DISPLAY QUEUE(SYSTEM.DEFAULT.LOCAL.QUEUE) ALL").lines);
  EXPECT_THAT(run(c, "DISPLAY CHANNEL(SYSTEM.DEF.RECEIVER)").lines, Contains(HasSubstr("SEQWRAP(")));
  EXPECT_EQ(run(c, "DISPLAY QUEUE(SYSTEM.DEFAULT.LOCAL.*)").lines.size(), 2u);
  EXPECT_EQ(run(c, "DISPLAY QUEUE(SYSTEM.DEFAULT.LOCAL.QUEUE) MAXDEPTH").lines.size(), 3u);
}

// --- 3. DISPLAY CHANNEL TYPE -------------------------------------------------------------------------

TEST(ReviewChannelType, TypeFiltersByChltype) {
  object_catalog c = fresh();
  EXPECT_THAT(shown(c, "DISPLAY CHANNEL(*) TYPE(SDR)"), ElementsAre("SYSTEM.DEF.SENDER"));
  EXPECT_THAT(shown(c, "DISPLAY CHANNEL(*) TYPE(SVRCONN)"), ElementsAre("SYSTEM.DEF.SVRCONN"));
  EXPECT_THAT(shown(c, "DISPLAY CHANNEL(SYSTEM.*) TYPE('rcvr')"), ElementsAre("SYSTEM.DEF.RECEIVER"));
  EXPECT_EQ(shown(c, "DISPLAY CHANNEL(*) TYPE(ALL)").size(), 3u);
  EXPECT_THAT(refused(c, "DISPLAY CHANNEL(*) TYPE(CLUSSDR)", exec_status::unsupported),
              AllOf(StartsWith(imsb::msg::IMB1050E), HasSubstr("TYPE(CLUSSDR)")));
  EXPECT_THAT(refused(c, "DISPLAY CHANNEL(*) TYPE(SVR)", exec_status::unsupported),
              StartsWith(imsb::msg::IMB1050E));
  EXPECT_THAT(refused(c, "DISPLAY CHANNEL(*) TYPE(BOGUS)"), StartsWith(imsb::msg::IMB1041E));
}

// --- 4. AUTHREC profiles -------------------------------------------------------------------------------

TEST(ReviewGenericProfile, QuestionMarkIsOneCharacter) {
  EXPECT_TRUE(generic_profile_matches("AB?D", "ABCD"));
  EXPECT_FALSE(generic_profile_matches("AB?D", "ABD"));
  EXPECT_FALSE(generic_profile_matches("AB?D", "AB.D"));
  EXPECT_FALSE(generic_profile_matches("AB?D", "ABCDE"));
}

TEST(ReviewGenericProfile, StarStaysWithinOneQualifier) {
  EXPECT_TRUE(generic_profile_matches("ABC*", "ABCD"));
  EXPECT_TRUE(generic_profile_matches("ABC*", "ABC"));
  EXPECT_FALSE(generic_profile_matches("ABC*", "ABC.D"));
  EXPECT_TRUE(generic_profile_matches("A.*.C", "A.XYZ.C"));
  EXPECT_FALSE(generic_profile_matches("A.*.C", "A.X.Y.C"));
  EXPECT_TRUE(generic_profile_matches("A*Z.Q", "ABCZ.Q"));
  EXPECT_FALSE(generic_profile_matches("A*Z.Q", "ABCZ.R"));
}

TEST(ReviewGenericProfile, DoubleStarIsAnyNumberOfQualifiers) {
  EXPECT_TRUE(generic_profile_matches("**", "ANY.NAME.AT.ALL"));
  EXPECT_TRUE(generic_profile_matches("APP.**", "APP.A.B"));
  EXPECT_TRUE(generic_profile_matches("APP.**", "APP.A"));
  EXPECT_TRUE(generic_profile_matches("APP.**", "APP"));
  EXPECT_FALSE(generic_profile_matches("APP.**", "APPX.A"));
  EXPECT_TRUE(generic_profile_matches("**.REPLY", "A.B.REPLY"));
  EXPECT_TRUE(generic_profile_matches("A.**.Z", "A.Z"));
  EXPECT_TRUE(generic_profile_matches("A.**.Z", "A.B.C.Z"));
  EXPECT_FALSE(generic_profile_matches("A.**.Z", "A.B.C"));
}

TEST(ReviewGenericProfile, CaseSensitiveAndExactOtherwise) {
  EXPECT_TRUE(generic_profile_matches("APP.Q", "APP.Q"));
  EXPECT_FALSE(generic_profile_matches("APP.Q", "app.q"));
  EXPECT_FALSE(generic_profile_matches("APP.Q", "APP.Q1"));
}

TEST(ReviewAuthrecDisplay, MatchProfileReturnsTheProfilesCoveringTheName) {
  object_catalog c = fresh();
  applied(c, "SET AUTHREC PROFILE(APP.**) OBJTYPE(QUEUE) GROUP(G) AUTHADD(PUT)");
  applied(c, "SET AUTHREC PROFILE(APP.IN) OBJTYPE(QUEUE) GROUP(G) AUTHADD(GET)");
  applied(c, "SET AUTHREC PROFILE(APP.O*) OBJTYPE(QUEUE) GROUP(G) AUTHADD(INQ)");
  applied(c, "SET AUTHREC PROFILE(OTHER.**) OBJTYPE(QUEUE) GROUP(G) AUTHADD(INQ)");
  EXPECT_THAT(shown(c, "DISPLAY AUTHREC PROFILE(APP.IN) OBJTYPE(QUEUE)"), ElementsAre("APP.**", "APP.IN"));
  EXPECT_THAT(shown(c, "DISPLAY AUTHREC PROFILE(APP.OUT) MATCH(PROFILE)"), ElementsAre("APP.**", "APP.O*"));
  EXPECT_THAT(shown(c, "DISPLAY AUTHREC PROFILE(APP.IN) MATCH(EXACT)"), ElementsAre("APP.IN"));
  EXPECT_THAT(shown(c, "DISPLAY AUTHREC PROFILE(APP.**) MATCH(EXACT)"), ElementsAre("APP.**"));
  EXPECT_EQ(shown(c, "DISPLAY AUTHREC").size(), 4u);
  EXPECT_THAT(refused(c, "DISPLAY AUTHREC PROFILE(APP.OUT) MATCH(EXACT)"), StartsWith(imsb::msg::IMB1044E));
  EXPECT_THAT(refused(c, "DISPLAY AUTHREC PROFILE(APP.IN) MATCH(MEMBERSHIP)", exec_status::unsupported),
              StartsWith(imsb::msg::IMB1050E));
  EXPECT_THAT(refused(c, "DISPLAY AUTHREC PROFILE(APP.IN) MATCH(SOME)"), StartsWith(imsb::msg::IMB1041E));
}

// --- 5. required keywords of SDR on DEFINE only -----------------------------------------------------

TEST(ReviewSenderRequired, AlterOfASenderAndTheTemplateWork) {
  object_catalog c = fresh();
  applied(c, "ALTER CHANNEL(SYSTEM.DEF.SENDER) CHLTYPE(SDR) HBINT(60)");
  EXPECT_EQ(c.find(object_family::channel, "SYSTEM.DEF.SENDER")->text("HBINT"), "60");
  applied(c, "DEFINE CHANNEL(SYSTEM.DEF.SENDER) CHLTYPE(SDR) REPLACE");
  applied(c, "DEFINE CHANNEL(S1) CHLTYPE(SDR) CONNAME('h(1)') XMITQ(X)");
  applied(c, "ALTER CHANNEL(S1) CONNAME(' ')");  // ALTER is not DEFINE: the keyword is not required
  EXPECT_THAT(refused(c, "DEFINE CHANNEL(S2) CHLTYPE(SDR) XMITQ(X)"), HasSubstr("CONNAME is required"));
}

// --- 6. IBM attributes that were errors -----------------------------------------------------------

TEST(ReviewIbmAttributes, QmgrReadOnlyAttributesAreShown) {
  object_catalog c = fresh();
  const std::string out = joined(run(c, "DISPLAY QMGR QMID MAXPRTY COMMANDQ SYNCPT DISTL VERSION").lines);
  EXPECT_THAT(out, AllOf(HasSubstr("QMID(QM1_2026-11-29_19.08.32)"), HasSubstr("MAXPRTY(9)"),
                         HasSubstr("COMMANDQ(SYSTEM.ADMIN.COMMAND.QUEUE)"), HasSubstr("   SYNCPT"),
                         HasSubstr("DISTL(YES)"), HasSubstr("VERSION(09030000)")));
  for (std::string_view k : {"ALTER QMGR MAXPRTY(5)", "ALTER QMGR SYNCPT", "ALTER QMGR VERSION(1)",
                             "ALTER QMGR QMID(X)", "ALTER QMGR COMMANDQ(Q)", "ALTER QMGR DISTL(NO)"})
    EXPECT_THAT(refused(c, k), AllOf(StartsWith(imsb::msg::IMB1048E), HasSubstr("read-only"))) << k;
  EXPECT_THAT(run(c, "DISPLAY QMGR WHERE(MAXPRTY EQ 9)").lines, Contains(HasSubstr("MAXPRTY(9)")));
  const exec_outcome none = run(c, "DISPLAY QMGR WHERE(MAXPRTY EQ 8)");
  EXPECT_EQ(none.status, exec_status::ok);
  EXPECT_THAT(none.lines, IsEmpty());
}

TEST(ReviewIbmAttributes, QtypeIsTypeAndSplprotIsNotSupported) {
  object_catalog c = fresh();
  applied(c, "DEFINE QALIAS(QT.A) TARGET(X)");
  EXPECT_THAT(run(c, "DISPLAY QUEUE(QT.A) QTYPE").lines,
              ElementsAre(std::string(imsb::msg::IMB1004I) + ": Display queue details.",
                          "   QUEUE(QT.A)                             TYPE(QALIAS)"));
  EXPECT_THAT(refused(c, "DEFINE CHANNEL(R1) CHLTYPE(RCVR) SPLPROT(PASSTHRU)", exec_status::unsupported),
              AllOf(StartsWith(imsb::msg::IMB1050E), HasSubstr("SPLPROT")));
  EXPECT_THAT(refused(c, "DISPLAY CHANNEL(*) SPLPROT", exec_status::unsupported),
              StartsWith(imsb::msg::IMB1050E));
}

// --- 7. SSLCAUTH -------------------------------------------------------------------------------------

TEST(ReviewSslcauth, NotOnSenderChannels) {
  object_catalog c = fresh();
  EXPECT_EQ(refused(c, "DEFINE CHANNEL(S1) CHLTYPE(SDR) CONNAME('h') XMITQ(X) SSLCAUTH(OPTIONAL)"),
            std::string(imsb::msg::IMB1048E) +
                ": DEFINE CHANNEL(S1): keyword SSLCAUTH does not apply to CHLTYPE(SDR)");
  applied(c, "DEFINE CHANNEL(R1) CHLTYPE(RCVR) SSLCAUTH(OPTIONAL)");
  applied(c, "DEFINE CHANNEL(C1) CHLTYPE(SVRCONN) SSLCAUTH(OPTIONAL)");
  EXPECT_EQ(c.find(object_family::channel, "SYSTEM.DEF.SENDER")->attrs.count("SSLCAUTH"), 0u);
}

// --- 8. authorities per OBJTYPE --------------------------------------------------------------------

TEST(ReviewAuthorities, GroupsExpandToTheObjtypesAuthorities) {
  object_catalog c = fresh();
  applied(c, "SET AUTHREC PROFILE(Q1) OBJTYPE(QUEUE) GROUP(G) AUTHADD(ALLMQI)");
  EXPECT_THAT(c.authrecs().back().authorities,
              ElementsAre("BROWSE", "GET", "INQ", "PASSALL", "PASSID", "PUT", "SET", "SETALL", "SETID"));
  applied(c, "SET AUTHREC PROFILE(Q2) OBJTYPE(QUEUE) GROUP(G) AUTHADD(ALLADM)");
  EXPECT_THAT(c.authrecs().back().authorities, ElementsAre("CHG", "CLR", "DLT", "DSP"));
  applied(c, "SET AUTHREC PROFILE(Q3) OBJTYPE(QUEUE) GROUP(G) AUTHADD(ALL)");
  EXPECT_EQ(c.authrecs().back().authorities.size(), 13u);
  applied(c, "SET AUTHREC OBJTYPE(QMGR) GROUP(G) AUTHADD(ALLMQI)");
  EXPECT_THAT(c.authrecs().back().authorities,
              ElementsAre("ALTUSR", "CONNECT", "INQ", "SET", "SETALL", "SETID"));
  applied(c, "SET AUTHREC PROFILE(CH1) OBJTYPE(CHANNEL) GROUP(G) AUTHADD(ALLADM)");
  EXPECT_THAT(c.authrecs().back().authorities, ElementsAre("CHG", "CTRL", "CTRLX", "DLT", "DSP"));
  // ALLMQI removed from a queue record with everything leaves the administration authorities.
  applied(c, "SET AUTHREC PROFILE(Q3) OBJTYPE(QUEUE) GROUP(G) AUTHRMV(ALLMQI)");
  EXPECT_THAT(c.authrecs()[2].authorities, ElementsAre("CHG", "CLR", "DLT", "DSP"));
}

TEST(ReviewAuthorities, AuthoritiesOfAnotherObjtypeAreRefused) {
  object_catalog c = fresh();
  EXPECT_EQ(refused(c, "SET AUTHREC OBJTYPE(QMGR) GROUP(G) AUTHADD(BROWSE)"),
            std::string(imsb::msg::IMB1041E) +
                ": SET AUTHREC: keyword AUTHADD: authority BROWSE does not apply to OBJTYPE(QMGR)");
  EXPECT_THAT(refused(c, "SET AUTHREC PROFILE(Q) OBJTYPE(QUEUE) GROUP(G) AUTHADD(CONNECT)"),
              HasSubstr("CONNECT does not apply"));
  EXPECT_THAT(refused(c, "SET AUTHREC PROFILE(P) OBJTYPE(PROCESS) GROUP(G) AUTHADD(PUT)"),
              StartsWith(imsb::msg::IMB1041E));
  EXPECT_THAT(refused(c, "SET AUTHREC PROFILE(C) OBJTYPE(CHANNEL) GROUP(G) AUTHADD(INQ, CTRL)"),
              StartsWith(imsb::msg::IMB1041E));
}

TEST(ReviewAuthorities, RemovingFromNoRecordFailsAndAnEmptiedRecordShowsNone) {
  object_catalog c = fresh();
  EXPECT_THAT(refused(c, "SET AUTHREC PROFILE(Q) OBJTYPE(QUEUE) GROUP(G) AUTHRMV(PUT)"),
              AllOf(StartsWith(imsb::msg::IMB1044E), HasSubstr("nothing to remove")));
  applied(c, "SET AUTHREC PROFILE(Q) OBJTYPE(QUEUE) GROUP(G) AUTHADD(PUT, GET)");
  applied(c, "SET AUTHREC PROFILE(Q) OBJTYPE(QUEUE) GROUP(G) AUTHRMV(ALL)");
  ASSERT_EQ(c.authrecs().size(), 1u);
  EXPECT_THAT(c.authrecs()[0].authorities, IsEmpty());
  EXPECT_THAT(run(c, "DISPLAY AUTHREC PROFILE(Q)").lines, Contains(HasSubstr("AUTHLIST(NONE)")));
}

// --- 9. DISPLAY QUEUE across types -----------------------------------------------------------------------

TEST(ReviewDisplayQueue, KeywordsOfAnyQueueTypeWithTypeNarrowing) {
  object_catalog c = fresh();
  applied(c, "DEFINE QLOCAL(Z.L) MAXDEPTH(10)");
  applied(c, "DEFINE QALIAS(Z.A) TARGET(Z.L)");
  applied(c, "DEFINE QREMOTE(Z.R) RNAME(X) RQMNAME(Y)");
  // A filter keyword the type does not have: those queues are not shown, and the DISPLAY works.
  EXPECT_THAT(shown(c, "DISPLAY QUEUE(Z.*) TYPE(QREMOTE) WHERE(MAXDEPTH GT 0)"), IsEmpty());
  EXPECT_THAT(shown(c, "DISPLAY QUEUE(Z.*) WHERE(MAXDEPTH GT 0)"), ElementsAre("Z.L"));
  EXPECT_THAT(shown(c, "DISPLAY QUEUE(Z.*) WHERE(TARGET EQ Z.L)"), ElementsAre("Z.A"));
  const exec_outcome local = run(c, "DISPLAY QUEUE(Z.*) TYPE(QLOCAL) TARGET");
  EXPECT_EQ(local.status, exec_status::ok);
  EXPECT_THAT(local.lines, ElementsAre(std::string(imsb::msg::IMB1004I) + ": Display queue details.",
                                       "   QUEUE(Z.L)                              TYPE(QLOCAL)"));
  const std::string both = joined(run(c, "DISPLAY QUEUE(Z.*) MAXDEPTH RNAME").lines);
  EXPECT_THAT(both, AllOf(HasSubstr("MAXDEPTH(10)"), HasSubstr("RNAME(X)")));
  EXPECT_THAT(refused(c, "DISPLAY QUEUE(Z.*) WHERE(NOSUCH EQ 1)"), StartsWith(imsb::msg::IMB1040E));
}

// --- 10. a WHERE that leaves nothing --------------------------------------------------------------

TEST(ReviewDisplayEmpty, FilteredOutIsNotNotFound) {
  object_catalog c = fresh();
  applied(c, "DEFINE QLOCAL(E.A) MAXDEPTH(10)");
  const exec_outcome o = run(c, "DISPLAY QLOCAL(E.*) WHERE(MAXDEPTH GT 100)");
  EXPECT_EQ(o.status, exec_status::ok);
  EXPECT_THAT(o.lines, IsEmpty());
  EXPECT_EQ(run(c, "DISPLAY CHANNEL(*) CHLTYPE(SDR) WHERE(HBINT EQ 1)").status, exec_status::ok);
  EXPECT_THAT(refused(c, "DISPLAY QLOCAL(NONE.*) WHERE(MAXDEPTH GT 100)"), StartsWith(imsb::msg::IMB1044E));
  const script_outcome s = run_script(c, "DISPLAY QLOCAL(E.*) WHERE(MAXDEPTH GT 100)\n", ctx);
  EXPECT_EQ(s.failed, 0u);
  EXPECT_EQ(s.exit_code(), 0);
}

// --- 11. smaller ones ------------------------------------------------------------------------------------

TEST(ReviewSmaller, DefineWithoutTheDefaultObjectFailsNamingIt) {
  object_catalog c = fresh();
  applied(c, "DELETE QLOCAL(SYSTEM.DEFAULT.LOCAL.QUEUE)");
  EXPECT_EQ(refused(c, "DEFINE QLOCAL(A)"),
            std::string(imsb::msg::IMB1044E) +
                ": DEFINE QLOCAL(A): default object 'SYSTEM.DEFAULT.LOCAL.QUEUE' not found: DEFINE without "
                "LIKE copies its attributes from it");
  applied(c, "DEFINE QLOCAL(B) LIKE(SYSTEM.ADMIN.COMMAND.QUEUE)");
  applied(c, "DELETE CHANNEL(SYSTEM.DEF.RECEIVER)");
  EXPECT_THAT(refused(c, "DEFINE CHANNEL(R1) CHLTYPE(RCVR)"), HasSubstr("'SYSTEM.DEF.RECEIVER'"));
  applied(c, "DEFINE CHANNEL(S1) CHLTYPE(SVRCONN)");
  // Storage classes take the schema's defaults, not storage class DEFAULT's.
  applied(c, "DELETE STGCLASS(DEFAULT)");
  applied(c, "DEFINE STGCLASS(S2)");
}

TEST(ReviewSmaller, DeadqAndDefxmitqMustDiffer) {
  auto r = new_queue_manager("QM1", names::fs_profile::posix, "SAME.Q", "SAME.Q", ctx);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().field, "defxmitq");
  EXPECT_EQ(r.error().code, std::make_error_code(std::errc::invalid_argument));
}

TEST(ReviewSmaller, QuotedChltypeIsUpperCased) {
  object_catalog c = fresh();
  applied(c, "DEFINE CHANNEL(R1) CHLTYPE('rcvr')");
  EXPECT_EQ(c.find(object_family::channel, "R1")->text("CHLTYPE"), "RCVR");
  applied(c, "ALTER CHANNEL(R1) CHLTYPE('rcvr') HBINT(5)");
  EXPECT_THAT(shown(c, "DISPLAY CHANNEL(R*) CHLTYPE('rcvr')"), ElementsAre("R1"));
}

TEST(ReviewSmaller, ReplaceAndNoreplaceTogetherFail) {
  object_catalog c = fresh();
  mqsc::command cmd = *mqsc::parse_command("DEFINE QLOCAL(A) REPLACE").cmd;
  mqsc::parameter no;
  no.keyword = "NOREPLACE";
  cmd.parameters.push_back(no);
  const std::string before = dump(c);
  const exec_outcome o = execute(c, cmd, ctx);
  EXPECT_EQ(o.status, exec_status::failed);
  ASSERT_EQ(o.lines.size(), 1u);
  EXPECT_THAT(o.lines[0], AllOf(StartsWith(imsb::msg::IMB1048E), HasSubstr("REPLACE and NOREPLACE")));
  EXPECT_EQ(dump(c), before);
}

TEST(ReviewSmaller, EventSwitchesAreRefusedInWhere) {
  object_catalog c = fresh();
  for (std::string_view k : {"QDPHIEV", "QDPLOEV", "QDPMAXEV", "QSVCIEV"}) {
    const std::string cmd = "DISPLAY QLOCAL(*) WHERE(" + std::string(k) + " EQ ENABLED)";
    EXPECT_EQ(refused(c, cmd), std::string(imsb::msg::IMB1048E) +
                                   ": DISPLAY QLOCAL(*): keyword WHERE: attribute " + std::string(k) +
                                   " cannot be used in a filter");
  }
  EXPECT_THAT(run(c, "DISPLAY QLOCAL(SYSTEM.DEFAULT.LOCAL.QUEUE) QDPHIEV").lines,
              Contains(HasSubstr("QDPHIEV(DISABLED)")));
  EXPECT_THAT(run(c, "DISPLAY QLOCAL(SYSTEM.DEFAULT.LOCAL.QUEUE) QDPHIEV").lines, Not(IsEmpty()));
}

// crtmqm -u SYSTEM.DEFAULT.MODEL.QUEUE made DEADQ name a QMODEL (the default model was replaced by a
// local queue of its name, or DEADQ pointed at a model): a default queue that is not local is refused
// for -u and for -d; a default local queue and names of other families' defaults are still accepted.
TEST(ReviewNewQueueManager, DefaultQueuesThatAreNotLocalAreRefusedAsDeadqAndDefxmitq) {
  const std::pair<std::string_view, std::string_view> defaults[] = {
      {"SYSTEM.DEFAULT.MODEL.QUEUE", "QMODEL"},
      {"SYSTEM.DEFAULT.ALIAS.QUEUE", "QALIAS"},
      {"SYSTEM.DEFAULT.REMOTE.QUEUE", "QREMOTE"}};
  for (const auto& [name, type] : defaults) {
    auto d = new_queue_manager("QM1", names::fs_profile::posix, name, "", ctx);
    ASSERT_FALSE(d.ok()) << name;
    EXPECT_EQ(d.error().code, std::make_error_code(std::errc::invalid_argument)) << name;
    EXPECT_EQ(d.error().field, "deadq") << name;
    EXPECT_THAT(d.error().detail, AllOf(HasSubstr(std::string(name)), HasSubstr(std::string(type)),
                                        HasSubstr("not a local queue")));
    auto x = new_queue_manager("QM1", names::fs_profile::posix, "", name, ctx);
    ASSERT_FALSE(x.ok()) << name;
    EXPECT_EQ(x.error().code, std::make_error_code(std::errc::invalid_argument)) << name;
    EXPECT_EQ(x.error().field, "defxmitq") << name;
    EXPECT_THAT(x.error().detail, AllOf(HasSubstr(std::string(name)), HasSubstr(std::string(type))));
    // The clash is found whichever of the two names it is in.
    auto both = new_queue_manager("QM1", names::fs_profile::posix, "SYSTEM.DEAD.LETTER.QUEUE", name, ctx);
    ASSERT_FALSE(both.ok()) << name;
    EXPECT_EQ(both.error().field, "defxmitq") << name;
  }
  // Accepted: a default local queue, and a queue named like a default namelist or process (other
  // name spaces); the default model queue is still a model.
  for (std::string_view ok :
       {"SYSTEM.DEFAULT.LOCAL.QUEUE", "SYSTEM.DEFAULT.PROCESS", "SYSTEM.DEFAULT.NAMELIST"}) {
    auto c = new_queue_manager("QM1", names::fs_profile::posix, ok, "QM2.XMIT", ctx);
    ASSERT_TRUE(c.ok()) << ok << ": " << c.error().to_string();
    EXPECT_EQ(c.value().qmgr().text("DEADQ"), ok);
    const object_record* dlq = c.value().find(object_family::queue, ok);
    ASSERT_NE(dlq, nullptr) << ok;
    EXPECT_EQ(dlq->type, object_type::qlocal) << ok;
    const object_record* model = c.value().find(object_family::queue, "SYSTEM.DEFAULT.MODEL.QUEUE");
    ASSERT_NE(model, nullptr);
    EXPECT_EQ(model->type, object_type::qmodel);
  }
}

}  // namespace
}  // namespace imsb::objects
