// Verbs, object types, their synonyms, and the table of commands imsbridge implements.

#include "imsb/mqsc/vocabulary.hpp"

#include <gtest/gtest.h>

#include <iterator>
#include <set>

#include "imsb/mqsc/parser.hpp"

namespace imsb::mqsc {
namespace {

TEST(MqscVocabulary, VerbSynonyms) {
  const std::pair<const char*, const char*> cases[] = {
      {"DEF", "DEFINE"},      {"DEFINE", "DEFINE"},   {"ALT", "ALTER"},   {"ALTER", "ALTER"},
      {"DIS", "DISPLAY"},     {"DISPLAY", "DISPLAY"}, {"STA", "START"},   {"START", "START"},
      {"REF", "REFRESH"},     {"DELETE", "DELETE"},   {"STOP", "STOP"},   {"RESET", "RESET"},
      {"RESUME", "RESUME"},   {"SUSPEND", "SUSPEND"}, {"CLEAR", "CLEAR"}, {"PING", "PING"},
      {"RESOLVE", "RESOLVE"}, {"SET", "SET"},         {"END", "END"},
  };
  for (const auto& [word, canonical] : cases) {
    const auto v = canonical_verb(word);
    ASSERT_TRUE(v.has_value()) << word;
    EXPECT_EQ(*v, canonical) << word;
  }
}

TEST(MqscVocabulary, SynonymsAreNotMinimumStrings) {
  for (const char* word : {"DEFI", "DEFIN", "D", "DISP", "ALTE", "STAR", "define", ""})
    EXPECT_FALSE(canonical_verb(word).has_value()) << word;
}

TEST(MqscVocabulary, ObjectTypeSynonyms) {
  const std::pair<const char*, const char*> cases[] = {
      {"QL", "QLOCAL"},       {"QR", "QREMOTE"},  {"QA", "QALIAS"},     {"QM", "QMODEL"},
      {"Q", "QUEUE"},         {"QMGR", "QMGR"},   {"CHL", "CHANNEL"},   {"STC", "STGCLASS"},
      {"NL", "NAMELIST"},     {"PRO", "PROCESS"}, {"LSTR", "LISTENER"}, {"SERVICE", "SERVICE"},
      {"AUTHREC", "AUTHREC"}, {"TOPIC", "TOPIC"}, {"SUB", "SUB"},       {"CHLAUTH", "CHLAUTH"},
      {"TPIPE", "TPIPE"},     {"QS", "QSTATUS"},  {"CHS", "CHSTATUS"},  {"CFSTRUCT", "CFSTRUCT"},
  };
  for (const auto& [word, canonical] : cases) {
    const auto o = canonical_object_type(word);
    ASSERT_TRUE(o.has_value()) << word;
    EXPECT_EQ(*o, canonical) << word;
  }
  EXPECT_FALSE(canonical_object_type("QLOC").has_value());
  EXPECT_FALSE(canonical_object_type("QUEUES").has_value());
}

TEST(MqscVocabulary, EveryObjectTypeWordParsesToItsCanonicalForm) {
  // Each (synonym, canonical) pair through the parser with a verb that applies to it.
  std::size_t checked = 0;
  for (const auto& [word, canonical] : object_type_words()) {
    for (std::string_view verb : verbs()) {
      if (!verb_applies(verb, canonical)) continue;
      std::string text = std::string(verb) + " " + std::string(word);
      const supported_command* s = find_supported(verb, canonical);
      if (s == nullptr || s->name != name_rule::none) text += "(X)";
      const command_result r = parse_command(text);
      ASSERT_TRUE(r.ok()) << verb << " " << word << ": " << (r.error ? r.error->message() : "");
      EXPECT_EQ(r.cmd->verb, verb);
      EXPECT_EQ(r.cmd->object_type, canonical);
      ++checked;
      break;
    }
  }
  EXPECT_GE(checked, object_type_words().size());
}

TEST(MqscVocabulary, VerbAppliesOnlyWhereMqscHasTheCommand) {
  EXPECT_TRUE(verb_applies("CLEAR", "QLOCAL"));
  EXPECT_FALSE(verb_applies("CLEAR", "CHANNEL"));
  EXPECT_FALSE(verb_applies("DEFINE", "QUEUE"));  // DISPLAY QUEUE only
  EXPECT_TRUE(verb_applies("DISPLAY", "QUEUE"));
  EXPECT_TRUE(verb_applies("RESET", "TPIPE"));
  EXPECT_FALSE(verb_applies("DEFINE", "TPIPE"));
  EXPECT_TRUE(verb_applies("SUSPEND", "QMGR"));
  EXPECT_FALSE(verb_applies("DEFINE", "QMGR"));
  EXPECT_FALSE(verb_applies("DEF", "QLOCAL"));  // canonical words only
}

TEST(MqscVocabulary, SupportedTableHoldsTheIssueList) {
  for (std::string_view verb : {"DEFINE", "ALTER", "DELETE", "DISPLAY"})
    for (std::string_view object : {"QLOCAL", "QREMOTE", "QALIAS", "QMODEL", "STGCLASS", "NAMELIST",
                                    "PROCESS", "CHANNEL", "LISTENER"}) {
      const supported_command* s = find_supported(verb, object);
      ASSERT_NE(s, nullptr) << verb << " " << object;
      EXPECT_EQ(s->name, name_rule::required);
    }
  const std::pair<const char*, const char*> others[] = {
      {"ALTER", "QMGR"},     {"DISPLAY", "QMGR"},    {"DISPLAY", "QUEUE"},    {"SET", "AUTHREC"},
      {"DELETE", "AUTHREC"}, {"DISPLAY", "AUTHREC"}, {"START", "LISTENER"},   {"STOP", "LISTENER"},
      {"START", "CHANNEL"},  {"STOP", "CHANNEL"},    {"RESET", "TPIPE"},      {"SUSPEND", "QMGR"},
      {"RESUME", "QMGR"},    {"DISPLAY", "QSTATUS"}, {"DISPLAY", "CHSTATUS"}, {"CLEAR", "QLOCAL"},
      {"END", ""},
  };
  for (const auto& [verb, object] : others)
    EXPECT_NE(find_supported(verb, object), nullptr) << verb << " " << object;
  EXPECT_EQ(supported_commands().size(), 36u + std::size(others));
  EXPECT_EQ(find_supported("SET", "CHLAUTH"), nullptr);
  EXPECT_EQ(find_supported("DEFINE", "TOPIC"), nullptr);
  EXPECT_EQ(find_supported("DEFINE", "SUB"), nullptr);
  EXPECT_EQ(find_supported("ALTER", "CFSTRUCT"), nullptr);
}

TEST(MqscVocabulary, SupportedEntriesAreValidMqscAndUnique) {
  std::set<std::pair<std::string_view, std::string_view>> seen;
  for (const supported_command& s : supported_commands()) {
    EXPECT_TRUE(seen.insert({s.verb, s.object_type}).second) << s.verb << " " << s.object_type;
    if (s.verb != "END") {
      EXPECT_TRUE(verb_applies(s.verb, s.object_type)) << s.verb << " " << s.object_type;
    }
  }
}

// Real MQSC commands from IBM's MQSC command reference (distributed and z/OS), one per verb and
// object type it applies to, with the synonyms IBM gives. Each must parse: supported, or "not
// supported", never a syntax error.
TEST(MqscVocabulary, RealIbmCommandsAreSupportedOrNotSupportedNeverSyntaxErrors) {
  const char* const commands[] = {
      // ALTER
      "ALTER AUTHINFO(LDAP.AUTH) AUTHTYPE(IDPWLDAP)",
      "ALTER BUFFPOOL(3) BUFFERS(2000)",
      "ALTER CFSTRUCT(APPL1) RECOVER(YES)",
      "ALTER CHANNEL(TO.QM2) CHLTYPE(SDR) BATCHSZ(50)",
      "ALTER COMMINFO(MC1) GRPADDR('239.0.0.1')",
      "ALTER LISTENER(L1) TRPTYPE(TCP) PORT(1415)",
      "ALTER NAMELIST(NL1) NAMES(A, B)",
      "ALTER PROCESS(P1) APPLICID('prog')",
      "ALTER PSID(3) EXPAND(SYSTEM)",
      "ALTER QMGR DEADQ(SYSTEM.DEAD.LETTER.QUEUE)",
      "ALT QL(Q1) MAXDEPTH(10)",
      "ALTER QALIAS(A1) TARGET(Q1)",
      "ALTER QMODEL(M1) DEFTYPE(PERMDYN)",
      "ALTER QREMOTE(R1) RNAME(Q)",
      "ALTER SECURITY INTERVAL(10)",
      "ALTER SERVICE(S1) CONTROL(MANUAL)",
      "ALTER SMDS(*) CFSTRUCT(APPL1) DSBUFS(100)",
      "ALTER STGCLASS(IMSA) PSID(2)",
      "ALTER SUB(S1) DEST(Q1)",
      "ALTER TOPIC(T1) TOPICSTR('a/b')",
      "ALTER TRACE(G) TNO(3) CLASS(1)",
      // ARCHIVE, BACKUP, RECOVER, RVERIFY (z/OS)
      "ARCHIVE LOG MODE(QUIESCE) WAIT(YES)",
      "ARC LOG CANCEL OFFLOAD",
      "BACKUP CFSTRUCT(APPL1)",
      "RECOVER BSDS",
      "RECOVER CFSTRUCT(APPL1) TYPE(NORMAL)",
      "RVERIFY SECURITY(USER1)",
      // CLEAR, MOVE
      "CLEAR QLOCAL(Q1)",
      "CLEAR TOPICSTR('a/b') CLRTYPE(RETAINED)",
      "MOVE QLOCAL(Q1) TOQLOCAL(Q2)",
      // DEFINE
      "DEFINE AUTHINFO(A1) AUTHTYPE(CRLLDAP) CONNAME('ldap')",
      "DEF BP(3) BUFFERS(1000)",
      "DEFINE BUFFPOOL(4) BUFFERS(1000)",
      "DEFINE CFSTRUCT(APPL1) CFLEVEL(5)",
      "DEF CHL(TO.QM2) CHLTYPE(SDR) CONNAME('qm2(1414)') XMITQ(QM2)",
      "DEFINE COMMINFO(MC1)",
      "DEFINE LISTENER(L1) TRPTYPE(TCP)",
      "DEFINE LOG DSNAME(MQ.LOGCOPY1.DS04) COPY(1)",
      "DEFINE LOG(X)",
      "DEFINE MAXSMSGS(5)",
      "DEF MAXSM(100)",
      "DEF NL(NL1) NAMES(A)",
      "DEFINE PROCESS(P1)",
      "DEF PRO(P2)",
      "DEF PROC(P3)",
      "DEFINE PSID(3) BUFFPOOL(2)",
      "DEF QL(Q1)",
      "DEFINE QALIAS(A1) TARGET(Q1)",
      "DEF QM(M1)",
      "DEF QR(R1) RNAME(Q) RQMNAME(QM2)",
      "DEFINE SERVICE(S1)",
      "DEF STC(IMSA) PSID(2)",
      "DEFINE SUB(S1) TOPICSTR('a/b') DEST(Q1)",
      "DEFINE TOPIC(T1) TOPICSTR('a/b')",
      "DEF TPC(T2)",
      // DELETE
      "DELETE AUTHINFO(A1)",
      "DELETE AUTHREC PROFILE(Q1) OBJTYPE(QUEUE) PRINCIPAL(app)",
      "DELETE BUFFPOOL(4)",
      "DELETE CFSTRUCT(APPL1)",
      "DELETE CHANNEL(TO.QM2)",
      "DELETE COMMINFO(MC1)",
      "DELETE LISTENER(L1)",
      "DELETE NAMELIST(NL1)",
      "DELETE POLICY(Q1)",
      "DELETE PROCESS(P1)",
      "DELETE PSID(3)",
      "DELETE QLOCAL(Q1) PURGE",
      "DELETE QALIAS(A1)",
      "DELETE QMODEL(M1)",
      "DELETE QREMOTE(R1)",
      "DELETE SERVICE(S1)",
      "DELETE STGCLASS(IMSA)",
      "DELETE SUB(S1)",
      "DELETE TOPIC(T1)",
      // DISPLAY
      "DISPLAY APSTATUS(*) TYPE(APPL)",
      "DIS ARCHIVE",
      "DIS AUTHINFO(*)",
      "DIS AUTHREC PROFILE(Q1)",
      "DIS AUTHSERV",
      "DIS CFSTATUS(*)",
      "DIS CFSTRUCT(*)",
      "DIS CHANNEL(*)",
      "DIS CHL(*)",
      "DIS CHINIT",
      "DIS DQM",
      "DIS CHLAUTH(*)",
      "DIS CHSTATUS(*)",
      "DIS CHS(*)",
      "DIS CLUSQMGR(*)",
      "DIS CMDSERV",
      "DIS CS",
      "DIS COMMINFO(*)",
      "DIS CONN(*) TYPE(HANDLE)",
      "DIS ENTAUTH PRINCIPAL(app) OBJTYPE(QMGR)",
      "DIS GROUP",
      "DIS LISTENER(*)",
      "DIS LSTR(*)",
      "DIS LOG",
      "DIS LSSTATUS(*)",
      "DIS MAXSMSGS",
      "DIS NAMELIST(*)",
      "DIS POLICY(*)",
      "DIS PROCESS(*)",
      "DIS PUBSUB",
      "DIS QMGR ALL",
      "DIS QMSTATUS",
      "DIS QUEUE(*) TYPE(QLOCAL)",
      "DIS Q(*)",
      "DIS QLOCAL(*)",
      "DIS QALIAS(*)",
      "DIS QMODEL(*)",
      "DIS QREMOTE(*)",
      "DIS QC(*)",
      "DISPLAY QCLUSTER(*)",
      "DIS QSTATUS(Q1) TYPE(HANDLE)",
      "DIS QS(*)",
      "DIS SBSTATUS(*)",
      "DIS SECURITY",
      "DIS SEC",
      "DIS SERVICE(*)",
      "DIS SMDS(*) CFSTRUCT(APPL1)",
      "DIS SMDSCONN(*) CFSTRUCT(APPL1)",
      "DIS STGCLASS(*)",
      "DIS STC(*)",
      "DIS SUB(*)",
      "DIS SVSTATUS(*)",
      "DIS SYSTEM",
      "DISPLAY TCLUSTER(*)",
      "DIS THREAD(*)",
      "DIS THD(*) TYPE(INDOUBT)",
      "DIS TOPIC(*)",
      "DIS TPSTATUS('#')",
      "DIS TPS('a/b')",
      "DIS TRACE(*)",
      "DISPLAY USAGE PSID(*)",
      "DIS USAGE TYPE(ALL)",
      // END, EXIT, QUIT (runmqsc)
      "END",
      "EXIT",
      "QUIT",
      // PING, PURGE, REFRESH, RESET, RESOLVE, RESUME, SUSPEND
      "PING CHANNEL(TO.QM2)",
      "PING QMGR",
      "PURGE CHANNEL(MQTT.CHL) CLIENTID(c1)",
      "REFRESH CLUSTER(C1) REPOS(YES)",
      "REFRESH QMGR TYPE(CONFIGEV) OBJECT(QLOCAL)",
      "REF SEC TYPE(SSL)",
      "RESET CFSTRUCT(APPL1) ACTION(FAIL)",
      "RESET CHANNEL(TO.QM2) SEQNUM(1)",
      "RESET CLUSTER(C1) QMNAME(QM9) ACTION(FORCEREMOVE)",
      "RESET QMGR TYPE(ADVANCELOG)",
      "RESET QSTATS(IMS.BRIDGE.*)",
      "RESET SMDS(*) CFSTRUCT(APPL1) ACCESS(ENABLED)",
      "RESET TPIPE(TP1) XCFGNAME(G) XCFMNAME(M) ACTION(COMMIT)",
      "RESOLVE CHANNEL(TO.QM2) ACTION(COMMIT)",
      "RESOLVE INDOUBT(CICS1) ACTION(BACKOUT) NID(*)",
      "RES IND(IMS1) ACTION(COMMIT) NID(*)",
      "RESUME QMGR FACILITY(IMSBRIDGE)",
      "SUSPEND QMGR FACILITY(IMSBRIDGE)",
      "SUSPEND QMGR CLUSTER(C1)",
      // SET
      "SET ARCHIVE UNIT(TAPE)",
      "SET AUTHREC PROFILE(Q1) OBJTYPE(QUEUE) PRINCIPAL(app) AUTHADD(PUT)",
      "SET CHLAUTH(*) TYPE(BLOCKUSER) USERLIST(nobody)",
      "SET LOG MAXARCH(500)",
      "SET POLICY(Q1) SIGNALG(SHA256)",
      "SET SYSTEM LOGLOAD(500000)",
      // START, STOP
      "START CHANNEL(TO.QM2)",
      "STA CHL(TO.QM2)",
      "START CHINIT",
      "STA CHI",
      "START CMDSERV",
      "STA CS",
      "START LISTENER(L1)",
      "START LISTENER TRPTYPE(TCP) PORT(1414)",
      "START QMGR PARM(CSQZPARM)",
      "START SERVICE(S1)",
      "START SMDSCONN(*) CFSTRUCT(APPL1)",
      "START TRACE(GLOBAL) CLASS(*)",
      "STOP CHANNEL(TO.QM2) MODE(QUIESCE)",
      "STOP CHINIT",
      "STOP CMDSERV",
      "STOP CONN(41A3B5C6) TYPE(HCONN)",
      "STOP LISTENER(L1)",
      "STOP LISTENER",
      "STOP LISTENER TRPTYPE(TCP) PORT(1414)",
      "STOP QMGR MODE(QUIESCE)",
      "STOP SERVICE(S1)",
      "STOP SMDSCONN(*) CFSTRUCT(APPL1)",
      "STOP TRACE(G) TNO(3)",
  };
  for (const char* text : commands) {
    const command_result r = parse_command(text);
    EXPECT_TRUE(r.ok()) << text << ": " << (r.error ? r.error->message() : "");
    if (r.ok() && !r.cmd->supported) {
      EXPECT_NE(r.cmd->unsupported_reason.find("is not implemented by imsbridge"), std::string::npos) << text;
    }
  }
}

TEST(MqscVocabulary, ZosListenerCommandsTakeNoName) {
  // z/OS starts and stops the channel initiator's listeners by TRPTYPE and PORT, without a name;
  // the distributed platforms name the LISTENER object. Both are the supported command.
  for (const char* text : {"START LISTENER TRPTYPE(TCP) PORT(1414)", "STOP LISTENER"}) {
    const command_result r = parse_command(text);
    ASSERT_TRUE(r.ok()) << text << ": " << (r.error ? r.error->message() : "");
    EXPECT_TRUE(r.cmd->supported) << text;
    EXPECT_FALSE(r.cmd->name.has_value()) << text;
  }
  const command_result named = parse_command("STOP LISTENER(TCP.1414)");
  ASSERT_TRUE(named.ok());
  EXPECT_EQ(named.cmd->name->text, "TCP.1414");
  EXPECT_EQ(find_supported("START", "LISTENER")->name, name_rule::optional);
}

TEST(MqscVocabulary, ZosAndClusterNounsOfTheReview) {
  const std::pair<const char*, error_kind> before[] = {
      {"RESET QSTATS(IMS.BRIDGE.*)", error_kind::unknown_object_type},
      {"DIS QC(*)", error_kind::unknown_object_type},
      {"DISPLAY QCLUSTER(*)", error_kind::unknown_object_type},
      {"DISPLAY TCLUSTER(*)", error_kind::unknown_object_type},
      {"DISPLAY USAGE PSID(*)", error_kind::unknown_object_type},
      {"DEFINE LOG(X)", error_kind::invalid_object_type},
      {"DEFINE MAXSMSGS(5)", error_kind::invalid_object_type},
  };
  for (const auto& [text, old_error] : before) {
    const command_result r = parse_command(text);
    ASSERT_TRUE(r.ok()) << text << " (was " << error_kind_name(old_error)
                        << "): " << (r.error ? r.error->message() : "");
    EXPECT_FALSE(r.cmd->supported) << text;
  }
  EXPECT_EQ(canonical_object_type("QC"), "QCLUSTER");
  EXPECT_EQ(canonical_object_type("CS"), "CMDSERV");
  EXPECT_EQ(canonical_object_type("BP"), "BUFFPOOL");
  EXPECT_EQ(canonical_verb("EXIT"), "END");
  EXPECT_EQ(canonical_verb("ARC"), "ARCHIVE");
  EXPECT_EQ(parse_command("RESET QSTATS(IMS.BRIDGE.*)").cmd->unsupported_reason,
            "RESET QSTATS is not implemented by imsbridge: it manages z/OS queue-manager resources");
  // Still errors: the verbs these nouns do not take.
  EXPECT_EQ(parse_command("DEFINE QCLUSTER(X)").error->kind, error_kind::invalid_object_type);
  EXPECT_EQ(parse_command("DELETE USAGE").error->kind, error_kind::invalid_object_type);
}

TEST(MqscVocabulary, UnsupportedReasonSaysWhy) {
  EXPECT_EQ(unsupported_reason("DEFINE", "TOPIC"),
            "DEFINE TOPIC is not implemented by imsbridge: publish/subscribe is out of scope");
  EXPECT_EQ(unsupported_reason("SET", "CHLAUTH"), "SET CHLAUTH is not implemented by imsbridge");
  EXPECT_EQ(unsupported_reason("ALTER", "CFSTRUCT"),
            "ALTER CFSTRUCT is not implemented by imsbridge: queue-sharing groups are out of scope");
}

}  // namespace
}  // namespace imsb::mqsc
