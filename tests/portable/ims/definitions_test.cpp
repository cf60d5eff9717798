#include "imsb/ims/definitions.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "vectors.hpp"

namespace imsb::ims {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;

definitions parsed(std::string_view text) {
  auto r = parse_definitions(text);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().to_string()) << "\n" << text;
  return r.ok() ? r.value() : definitions{};
}

decode_error failed(std::string_view text) {
  auto r = parse_definitions(text);
  EXPECT_FALSE(r.ok()) << "parsed without error:\n" << text;
  return r.ok() ? decode_error{} : r.error();
}

// Byte offset where 1-based line `line` of `text` starts.
std::size_t line_start(std::string_view text, std::size_t line) {
  std::size_t offset = 0;
  for (std::size_t n = 1; n < line; ++n) offset = text.find('\n', offset) + 1;
  return offset;
}

// --- statements and their values --------------------------------------------------------------------

TEST(DefinitionsTest, ImsStatementSetsTheSystem) {
  const auto d = parsed("IMS GRNAME=XCFGRP1,OTMANM=IMSA,IMSID=IMS1,MAXTP=500,INPUT=3000,HEARTBEAT=30\n");
  EXPECT_EQ(d.grname, "XCFGRP1");
  EXPECT_EQ(d.otmanm, "IMSA");
  EXPECT_EQ(d.imsid, "IMS1");
  EXPECT_EQ(d.maxtp, 500u);
  EXPECT_EQ(d.tib_limit, 3000u);
  EXPECT_EQ(d.heartbeat_seconds, 30u);
}

TEST(DefinitionsTest, EmptyTextGivesTheDefaults) {
  const auto d = parsed("");
  EXPECT_EQ(d.grname, "");
  EXPECT_EQ(d.imsid, "IMSA");
  EXPECT_EQ(d.maxtp, 0u);
  EXPECT_EQ(d.tib_limit, 5000u);
  EXPECT_EQ(d.heartbeat_seconds, 60u);
  EXPECT_EQ(d.security, otma_security::none);
  EXPECT_TRUE(d.programs.empty());
  EXPECT_TRUE(d.transactions.empty());
}

TEST(DefinitionsTest, InputZeroTurnsFloodControlOffAndTheRangeEndsAre200And9999) {
  EXPECT_EQ(parsed("IMS INPUT=0").tib_limit, 0u);
  EXPECT_EQ(parsed("IMS INPUT=200").tib_limit, 200u);
  EXPECT_EQ(parsed("IMS INPUT=9999").tib_limit, 9999u);
  EXPECT_THAT(failed("IMS INPUT=199").detail, HasSubstr("INPUT"));
  EXPECT_THAT(failed("IMS INPUT=10000").detail, HasSubstr("INPUT"));
}

TEST(DefinitionsTest, ApplctnNamedLikeABuiltinRunsIt) {
  const auto d = parsed("APPLCTN PSB=ECHO,PGMTYPE=TP\n");
  const program_def* p = d.program("ECHO");
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->builtin, "ECHO");
  EXPECT_EQ(p->external, "");
  EXPECT_FALSE(p->fast_path);
}

TEST(DefinitionsTest, ApplctnPgmSaysWhatRuns) {
  const auto d = parsed(
      "APPLCTN PSB=PHONE,PGMTYPE=TP,PGM=builtin:ivtno\n"
      "APPLCTN PSB=MINE,PGMTYPE=(TP),FPATH=YES,PGM=external:/opt/bin/My_Pgm\n"
      "APPLCTN PSB=QUOTED,PGM='external:/opt/my prog'\n");
  EXPECT_EQ(d.program("PHONE")->builtin, "IVTNO");
  EXPECT_EQ(d.program("MINE")->external, "/opt/bin/My_Pgm");
  EXPECT_EQ(d.program("MINE")->builtin, "");
  EXPECT_TRUE(d.program("MINE")->fast_path);
  EXPECT_EQ(d.program("QUOTED")->external, "/opt/my prog");
  EXPECT_EQ(d.program("NOPE"), nullptr);
}

TEST(DefinitionsTest, TransactBelongsToTheApplctnAboveIt) {
  const auto d = parsed(
      "APPLCTN PSB=IVTNO,PGMTYPE=TP\n"
      "TRANSACT CODE=T1,MSGTYPE=(SNGLSEG,RESPONSE,7)\n"
      "APPLCTN PSB=IVTCV,PGMTYPE=TP\n"
      "TRANSACT CODE=T2,MSGTYPE=(MULTSEG,NONRESPONSE,1),SPA=(80,),INQUIRY=(YES,NORECOV)\n"
      "TRANSACT CODE=(T3,T4),SPA=(100,STRUNC),INQUIRY=YES\n");
  const transaction_def* t1 = d.transaction("T1");
  ASSERT_NE(t1, nullptr);
  EXPECT_EQ(t1->code, "T1");
  EXPECT_EQ(t1->program, "IVTNO");
  EXPECT_TRUE(t1->response_mode);
  EXPECT_EQ(t1->message_class, 7);
  EXPECT_TRUE(t1->recoverable);
  EXPECT_FALSE(t1->conversational);
  EXPECT_EQ(t1->spa_size, 0u);
  EXPECT_FALSE(t1->fast_path);
  EXPECT_FALSE(t1->stopped);
  EXPECT_EQ(t1->line, 2u);

  const transaction_def* t2 = d.transaction("T2");
  ASSERT_NE(t2, nullptr);
  EXPECT_EQ(t2->program, "IVTCV");
  EXPECT_FALSE(t2->response_mode);
  EXPECT_TRUE(t2->conversational);
  EXPECT_EQ(t2->spa_size, 80u);
  EXPECT_FALSE(t2->recoverable);
  EXPECT_EQ(t2->line, 4u);

  for (const char* code : {"T3", "T4"}) {
    const transaction_def* t = d.transaction(code);
    ASSERT_NE(t, nullptr) << code;
    EXPECT_EQ(t->program, "IVTCV");
    EXPECT_EQ(t->spa_size, 100u);
    EXPECT_TRUE(t->recoverable) << "INQUIRY=YES is RECOVER by default";
    EXPECT_EQ(t->line, 5u);
  }
  EXPECT_EQ(d.transaction("T5"), nullptr);
}

TEST(DefinitionsTest, FastPathComesFromTheTransactOrItsApplctn) {
  const auto d = parsed(
      "APPLCTN PSB=ECHO,PGMTYPE=TP\n"
      "TRANSACT CODE=FP1,FPATH=YES\n"
      "TRANSACT CODE=NFP,FPATH=NO\n"
      "APPLCTN PSB=FPPGM,FPATH=YES,PGM=builtin:ECHO\n"
      "TRANSACT CODE=FP2\n");
  EXPECT_TRUE(d.transaction("FP1")->fast_path);
  EXPECT_FALSE(d.transaction("NFP")->fast_path);
  EXPECT_TRUE(d.transaction("FP2")->fast_path);
}

TEST(DefinitionsTest, NameDefinesAnLterm) {
  const auto d = parsed("NAME IVTNOLT\nNAME LT2\n");
  EXPECT_TRUE(d.is_lterm("IVTNOLT"));
  EXPECT_TRUE(d.is_lterm("LT2"));
  EXPECT_FALSE(d.is_lterm("LT3"));
  EXPECT_EQ(d.lterms.at("LT2"), 2u);
}

TEST(DefinitionsTest, CreatePgmAndTran) {
  const auto d = parsed(
      "CREATE PGM NAME(P) SET(FP(N),RUN(builtin:ECHO))\n"
      "CREATE PROGRAM NAME(SHOWOTMA)\n"
      "create pgm name(EXT) set(run(external:/bin/x),fp(e))\n"
      "CREATE TRAN NAME(T) SET(PGM(P),RECOVER(N),RESP(Y),SPASZ(0),FP(N),STATUS(STOPPED),CLASS(9))\n"
      "CREATE TRANSACTION NAME(C1,C2) SET(PGM(SHOWOTMA) SPASZ(120) CONV(Y))\n");
  EXPECT_EQ(d.program("P")->builtin, "ECHO");
  EXPECT_FALSE(d.program("P")->fast_path);
  EXPECT_EQ(d.program("SHOWOTMA")->builtin, "SHOWOTMA");
  EXPECT_EQ(d.program("EXT")->external, "/bin/x");
  EXPECT_TRUE(d.program("EXT")->fast_path);
  const transaction_def* t = d.transaction("T");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->program, "P");
  EXPECT_FALSE(t->recoverable);
  EXPECT_TRUE(t->response_mode);
  EXPECT_FALSE(t->conversational);
  EXPECT_TRUE(t->stopped);
  EXPECT_EQ(t->message_class, 9);
  EXPECT_EQ(t->line, 4u);
  for (const char* code : {"C1", "C2"}) {
    ASSERT_NE(d.transaction(code), nullptr) << code;
    EXPECT_TRUE(d.transaction(code)->conversational);
    EXPECT_EQ(d.transaction(code)->spa_size, 120u);
    EXPECT_EQ(d.transaction(code)->program, "SHOWOTMA");
  }
}

TEST(DefinitionsTest, CreateTranOnAFastPathProgramIsFastPath) {
  const auto d = parsed(
      "CREATE PGM NAME(P) SET(FP(E),RUN(builtin:ECHO))\n"
      "CREATE TRAN NAME(T) SET(PGM(P))\n"
      "CREATE TRAN NAME(U) SET(PGM(P),FP(P))\n");
  EXPECT_TRUE(d.transaction("T")->fast_path);
  EXPECT_FALSE(d.transaction("U")->fast_path);
}

TEST(DefinitionsTest, DescriptorsKeepTheirOrderAndMasks) {
  const auto d = parsed(
      "D ALTDEST TMEMBER=MQXCF1 TPIPE=CSQ1N SYNTP=N\n"
      "D MQ* TYPE=MQSERIES TMEMBER=MQXCF2 TPIPE=CSQ2S SYNTP=Y\n"
      "D MQEXACT TMEMBER=MQXCF3 TPIPE=CSQ3\n"
      "D * TYPE=IMSCON,TMEMBER=HWS1,TPIPE=ANY\n");
  ASSERT_EQ(d.descriptors.size(), 4u);
  EXPECT_EQ(d.descriptors[0].name, "ALTDEST");
  EXPECT_EQ(d.descriptors[0].tmember, "MQXCF1");
  EXPECT_EQ(d.descriptors[0].tpipe, "CSQ1N");
  EXPECT_FALSE(d.descriptors[0].synchronized);
  EXPECT_TRUE(d.descriptors[1].synchronized);
  EXPECT_FALSE(d.descriptors[2].synchronized) << "SYNTP defaults to N";

  ASSERT_NE(d.descriptor_for("ALTDEST"), nullptr);
  EXPECT_EQ(d.descriptor_for("ALTDEST")->tpipe, "CSQ1N");
  EXPECT_EQ(d.descriptor_for("ALTDEST ")->tpipe, "CSQ1N") << "a blank-padded name is its value";
  EXPECT_EQ(d.descriptor_for("MQABC")->tpipe, "CSQ2S");
  EXPECT_EQ(d.descriptor_for("MQ")->tpipe, "CSQ2S");
  EXPECT_EQ(d.descriptor_for("MQEXACT")->tpipe, "CSQ2S") << "the first match wins, mask or not";
  EXPECT_EQ(d.descriptor_for("OTHER")->tmember, "HWS1") << "'*' alone matches anything";
}

TEST(DefinitionsTest, NoDescriptorMatches) {
  const auto d = parsed("D ALT* TMEMBER=MQXCF1 TPIPE=CSQ1N\n");
  EXPECT_EQ(d.descriptor_for("ALTERNATE")->tmember, "MQXCF1");
  EXPECT_EQ(d.descriptor_for("AL"), nullptr);
  EXPECT_EQ(d.descriptor_for("XALT"), nullptr);
}

TEST(DefinitionsTest, UsersAndGroups) {
  const auto d = parsed(
      "USER ID=U1,GROUPS=(G1,G2),TRANS=(IVTNO),CMDS=(DIS)\n"
      "USER ID=U2,TRANS=ECHO,CMDS=(/STA,display)\n"
      "USER ID=NOBODY\n"
      "GROUP NAME=G1,TRANS=(IVTNO,IVTCV),CMDS=(DIS,STA)\n"
      "GROUP NAME=G2,TRANS=(ALTOUT),CMDS=(EXIT)\n");
  const user_def& u1 = d.users.at("U1");
  EXPECT_THAT(u1.groups, ElementsAre("G1", "G2"));
  EXPECT_THAT(u1.transactions, ElementsAre("IVTNO"));
  EXPECT_THAT(u1.commands, ElementsAre("DIS"));
  EXPECT_THAT(d.users.at("U2").commands, ElementsAre("STA", "DISPLAY"));
  EXPECT_THAT(d.groups.at("G1").transactions, ElementsAre("IVTNO", "IVTCV"));
  EXPECT_THAT(d.groups.at("G2").commands, ElementsAre("EXIT"));

  EXPECT_TRUE(d.may_run_transaction("U1", "IVTNO"));   // its own
  EXPECT_TRUE(d.may_run_transaction("U1", "IVTCV"));   // through G1
  EXPECT_TRUE(d.may_run_transaction("U1", "ALTOUT"));  // through G2
  EXPECT_FALSE(d.may_run_transaction("U1", "ECHO"));
  EXPECT_TRUE(d.may_run_transaction("U2", "ECHO"));
  EXPECT_FALSE(d.may_run_transaction("U2", "IVTNO"));
  EXPECT_FALSE(d.may_run_transaction("NOBODY", "IVTNO"));
  EXPECT_FALSE(d.may_run_transaction("STRANGER", "IVTNO")) << "unknown users may run nothing";
  EXPECT_TRUE(d.may_run_transaction("U1      ", "IVTNO    ")) << "blank-padded fields";

  EXPECT_TRUE(d.may_run_command("U1", "DIS"));
  EXPECT_TRUE(d.may_run_command("U1", "/DISPLAY")) << "a verb is its first three letters";
  EXPECT_TRUE(d.may_run_command("U1", "STA"));   // G1
  EXPECT_TRUE(d.may_run_command("U1", "EXIT"));  // G2
  EXPECT_FALSE(d.may_run_command("U1", "STO"));
  EXPECT_TRUE(d.may_run_command("U2", "START"));
  EXPECT_TRUE(d.may_run_command("U2", "dis"));
  EXPECT_FALSE(d.may_run_command("U2", "DEQ"));
  EXPECT_FALSE(d.may_run_command("NOBODY", "DIS"));
  EXPECT_FALSE(d.may_run_command("STRANGER", "DIS"));
  EXPECT_FALSE(d.may_run_command("U1", "")) << "no verb, no authority";
}

TEST(DefinitionsTest, SecureOtmaLevels) {
  EXPECT_EQ(parsed("/SECURE OTMA NONE").security, otma_security::none);
  EXPECT_EQ(parsed("/SECURE OTMA CHECK").security, otma_security::check);
  EXPECT_EQ(parsed("/secure otma full").security, otma_security::full);
  EXPECT_EQ(parsed("/SEC OTMA PROFILE").security, otma_security::profile);
  EXPECT_EQ(parsed("/SECURE OTMA FULL\n/SECURE OTMA CHECK\n").security, otma_security::check)
      << "a later command replaces an earlier one";
  EXPECT_EQ(to_string(otma_security::none), "NONE");
  EXPECT_EQ(to_string(otma_security::check), "CHECK");
  EXPECT_EQ(to_string(otma_security::full), "FULL");
  EXPECT_EQ(to_string(otma_security::profile), "PROFILE");
}

TEST(DefinitionsTest, StopTranMayComeBeforeTheTransaction) {
  const auto d = parsed(
      "STOP TRAN=ECHO\n"
      "APPLCTN PSB=ECHO\n"
      "TRANSACT CODE=ECHO\n"
      "TRANSACT CODE=ECHO2\n"
      "TRANSACT CODE=ECHO3\n"
      "STOP TRAN=(ECHO3)\n");
  EXPECT_TRUE(d.transaction("ECHO")->stopped);
  EXPECT_FALSE(d.transaction("ECHO2")->stopped);
  EXPECT_TRUE(d.transaction("ECHO3")->stopped);
}

// --- layout: continuations, comments, case -----------------------------------------------------------

TEST(DefinitionsTest, ACommaContinuesTheStatement) {
  const auto d = parsed(
      "APPLCTN PSB=IVTCV,\n"
      "        PGMTYPE=TP\n"
      "TRANSACT CODE=IVTCV,MSGTYPE=(SNGLSEG,\n"
      "                     RESPONSE,3),   \n"
      "* a comment between continued lines\n"
      "   SPA=(80,)\n");
  const transaction_def* t = d.transaction("IVTCV");
  ASSERT_NE(t, nullptr);
  EXPECT_TRUE(t->response_mode);
  EXPECT_EQ(t->message_class, 3);
  EXPECT_EQ(t->spa_size, 80u);
}

TEST(DefinitionsTest, ColumnSeventyTwoContinuesACardAndColumnsSeventyThreeOnAreItsSequenceField) {
  std::string card1 = "         APPLCTN PSB=IVTNO,PGMTYPE=TP";
  card1.resize(71, ' ');
  card1 += "X0000010";
  std::string card2 = "               FPATH=NO";
  card2.resize(71, ' ');
  card2 += " 0000020";
  // Without a trailing comma, column 72 still continues (the pieces are joined with a blank).
  std::string card3 = "D ALTDEST TMEMBER=MQXCF1";
  card3.resize(71, ' ');
  card3 += "*";
  const std::string text = card1 + "\n" + card2 + "\n" + card3 + "\n      TPIPE=CSQ1N\n";
  const auto d = parsed(text);
  ASSERT_NE(d.program("IVTNO"), nullptr);
  EXPECT_FALSE(d.program("IVTNO")->fast_path);
  ASSERT_EQ(d.descriptors.size(), 1u);
  EXPECT_EQ(d.descriptors[0].tpipe, "CSQ1N");
}

TEST(DefinitionsTest, FreeFormTextThatRunsPastColumn71IsNotCut) {
  // Column 72 is not blank but neither is column 71: a long value, not a continuation mark.
  std::string line = "APPLCTN PSB=MINE,PGM=external:/opt/imsemu/programs/a/very/long/path/to/it";
  ASSERT_GT(line.size(), 72u);
  ASSERT_LE(line.size(), 80u);
  EXPECT_EQ(parsed(line + "\n").program("MINE")->external, "/opt/imsemu/programs/a/very/long/path/to/it");
  std::string longer = "APPLCTN PSB=MINE,PGM=external:/" + std::string(100, 'p');
  EXPECT_EQ(parsed(longer).program("MINE")->external, "/" + std::string(100, 'p'));
}

TEST(DefinitionsTest, CommentsBlankLinesCrLfAndIndentation) {
  const auto d = parsed(
      "* comment\r\n"
      "\r\n"
      "   \t \n"
      "*APPLCTN PSB=NOTME\n"
      "      APPLCTN PSB=ECHO,PGMTYPE=TP\r\n"
      "\tTRANSACT CODE = ECHO , MSGTYPE = ( MULTSEG , RESPONSE )\r\n");
  EXPECT_EQ(d.programs.size(), 1u);
  EXPECT_TRUE(d.transaction("ECHO")->response_mode);
}

TEST(DefinitionsTest, KeywordsAreCaseInsensitiveButNamesAreUpperCase) {
  const auto d = parsed("applctn psb=ECHO,pgmtype=tp\ntransact code=ECHO,msgtype=(snglseg,response,1)\n");
  EXPECT_TRUE(d.transaction("ECHO")->response_mode);
  const auto e = failed("applctn psb=echo");
  EXPECT_THAT(e.detail, HasSubstr("PSB"));
  EXPECT_THAT(e.detail, HasSubstr("lowercase"));
}

// --- errors: each names its line (field, offset) and keyword --------------------------------------------

struct error_case {
  const char* what;
  const char* text;
  std::size_t line;
  std::vector<const char*> detail;  // substrings the detail must hold (statement, keyword, reason)
};

class DefinitionsErrorTest : public ::testing::TestWithParam<error_case> {};

TEST_P(DefinitionsErrorTest, NamesLineAndKeyword) {
  const error_case& c = GetParam();
  const decode_error e = failed(c.text);
  EXPECT_EQ(e.code, std::make_error_code(std::errc::invalid_argument));
  EXPECT_EQ(e.field, "definitions.line " + std::to_string(c.line)) << e.detail;
  EXPECT_EQ(e.offset, line_start(c.text, c.line)) << e.detail;
  for (const char* s : c.detail) EXPECT_THAT(e.detail, HasSubstr(s));
}

const error_case error_cases[] = {
    {"unknown statement", "* c\nFOO BAR=1\n", 2, {"unknown statement 'FOO'"}},
    {"unknown keyword", "APPLCTN PSB=ECHO,COLOR=RED\n", 1, {"APPLCTN: keyword COLOR: unknown keyword"}},
    {"keyword twice", "IMS GRNAME=G1,GRNAME=G2\n", 1, {"IMS: keyword GRNAME: given twice"}},
    {"second IMS", "IMS GRNAME=G1\nIMS OTMANM=M1\n", 2, {"IMS:", "second IMS"}},
    {"keyword without value", "IMS GRNAME\n", 1, {"IMS: keyword GRNAME", "expected GRNAME=value"}},
    {"bad group", "IMS GRNAME=SYSGRP\n", 1, {"IMS: keyword GRNAME"}},
    {"bad member", "IMS OTMANM=DFSIMS\n", 1, {"IMS: keyword OTMANM"}},
    {"long imsid", "IMS IMSID=IMSAB\n", 1, {"IMS: keyword IMSID", "longer than 4"}},
    {"maxtp not a number", "IMS MAXTP=LOTS\n", 1, {"IMS: keyword MAXTP", "'LOTS' is not a number"}},
    {"heartbeat list", "IMS HEARTBEAT=(1,2)\n", 1, {"IMS: keyword HEARTBEAT", "not a single value"}},
    {"transact first", "TRANSACT CODE=ECHO\n", 1, {"TRANSACT: keyword CODE", "before any APPLCTN"}},
    {"transact no code",
     "APPLCTN PSB=ECHO\nTRANSACT MSGTYPE=SNGLSEG\n",
     2,
     {"TRANSACT: keyword CODE: missing"}},
    {"duplicate transaction",
     "APPLCTN PSB=ECHO\nTRANSACT CODE=ECHO\nTRANSACT CODE=ECHO\n",
     3,
     {"TRANSACT: keyword CODE", "defined twice", "line 2"}},
    {"duplicate program",
     "APPLCTN PSB=ECHO\nCREATE PGM NAME(ECHO)\n",
     2,
     {"CREATE PGM: keyword NAME", "twice"}},
    {"duplicate lterm", "NAME LT1\nNAME LT1\n", 2, {"NAME:", "LTERM LT1 is defined twice", "line 1"}},
    {"lterm then transaction",
     "NAME ECHO\nAPPLCTN PSB=ECHO\nTRANSACT CODE=ECHO\n",
     3,
     {"TRANSACT: keyword CODE", "already an LTERM (line 1)"}},
    {"transaction then lterm",
     "APPLCTN PSB=ECHO\nTRANSACT CODE=ECHO\nNAME ECHO\n",
     3,
     {"NAME:", "already a transaction (line 2)"}},
    {"create tran unknown pgm",
     "CREATE TRAN NAME(T) SET(PGM(NOPE))\n",
     1,
     {"CREATE TRAN: keyword PGM", "NOPE is not defined"}},
    {"create tran no pgm", "CREATE TRAN NAME(T) SET(RESP(Y))\n", 1, {"CREATE TRAN: keyword PGM: missing"}},
    {"create tran no set", "CREATE TRAN NAME(T)\n", 1, {"CREATE TRAN: keyword SET: missing"}},
    {"create what", "CREATE DB NAME(X)\n", 1, {"CREATE:", "'DB' is not PGM or TRAN"}},
    {"create eq form", "CREATE PGM NAME=ECHO\n", 1, {"CREATE PGM: keyword NAME", "expected NAME(value)"}},
    {"create conv no spa",
     "CREATE PGM NAME(ECHO)\nCREATE TRAN NAME(T) SET(PGM(ECHO),CONV(Y))\n",
     2,
     {"CREATE TRAN: keyword CONV", "SPASZ"}},
    {"create status",
     "CREATE PGM NAME(ECHO)\nCREATE TRAN NAME(T) SET(PGM(ECHO),STATUS(GONE))\n",
     2,
     {"CREATE TRAN: keyword STATUS"}},
    {"create pgm not builtin", "CREATE PGM NAME(MINE)\n", 1, {"CREATE PGM: keyword NAME", "RUN("}},
    {"spa not a size",
     "APPLCTN PSB=IVTCV\nTRANSACT CODE=IVTCV,SPA=(x,)\n",
     2,
     {"TRANSACT: keyword SPA: '(x,)' is not a size"}},
    {"spa too small",
     "APPLCTN PSB=IVTCV\nTRANSACT CODE=IVTCV,SPA=(15,)\n",
     2,
     {"TRANSACT: keyword SPA", "16-32767"}},
    {"spa too big",
     "APPLCTN PSB=IVTCV\nTRANSACT CODE=IVTCV,SPA=32768\n",
     2,
     {"TRANSACT: keyword SPA", "16-32767"}},
    {"spa truncation", "APPLCTN PSB=IVTCV\nTRANSACT CODE=IVTCV,SPA=(80,CUT)\n", 2, {"TRANSACT: keyword SPA"}},
    {"msgtype word",
     "APPLCTN PSB=ECHO\nTRANSACT CODE=ECHO,MSGTYPE=(ONESEG)\n",
     2,
     {"TRANSACT: keyword MSGTYPE"}},
    {"msgtype class",
     "APPLCTN PSB=ECHO\nTRANSACT CODE=ECHO,MSGTYPE=(SNGLSEG,RESPONSE,0)\n",
     2,
     {"TRANSACT: keyword MSGTYPE", "1-255"}},
    {"msgtype twice",
     "APPLCTN PSB=ECHO\nTRANSACT CODE=ECHO,MSGTYPE=(SNGLSEG,MULTSEG)\n",
     2,
     {"TRANSACT: keyword MSGTYPE"}},
    {"inquiry word",
     "APPLCTN PSB=ECHO\nTRANSACT CODE=ECHO,INQUIRY=MAYBE\n",
     2,
     {"TRANSACT: keyword INQUIRY"}},
    {"update not recoverable",
     "APPLCTN PSB=ECHO\nTRANSACT CODE=ECHO,INQUIRY=(NO,NORECOV)\n",
     2,
     {"TRANSACT: keyword INQUIRY", "inquiry"}},
    {"fast path not recoverable",
     "APPLCTN PSB=ECHO\nTRANSACT CODE=ECHO,FPATH=YES,INQUIRY=(YES,NORECOV)\n",
     2,
     {"TRANSACT: keyword INQUIRY", "Fast Path", "recoverable"}},
    {"fast path conversational",
     "APPLCTN PSB=IVTCV,FPATH=YES\nTRANSACT CODE=IVTCV,SPA=80\n",
     2,
     {"TRANSACT: keyword SPA", "Fast Path", "conversational"}},
    {"fpath word", "APPLCTN PSB=ECHO,FPATH=SOMETIMES\n", 1, {"APPLCTN: keyword FPATH", "YES or NO"}},
    {"name lowercase", "APPLCTN PSB=ECHO\nTRANSACT CODE=Echo\n", 2, {"TRANSACT: keyword CODE", "lowercase"}},
    {"name too long",
     "APPLCTN PSB=ECHO\nTRANSACT CODE=ABCDEFGHI\n",
     2,
     {"TRANSACT: keyword CODE", "longer than 8"}},
    {"name digit first", "APPLCTN PSB=1ECHO\n", 1, {"APPLCTN: keyword PSB", "digit"}},
    {"name bad character", "APPLCTN PSB=EC-HO\n", 1, {"APPLCTN: keyword PSB", "'-'"}},
    {"psb missing", "APPLCTN PGMTYPE=TP\n", 1, {"APPLCTN: keyword PSB: missing"}},
    {"pgm missing", "APPLCTN PSB=MINE\n", 1, {"APPLCTN: keyword PGM: missing"}},
    {"pgm not builtin", "APPLCTN PSB=MINE,PGM=builtin:NOPE\n", 1, {"APPLCTN: keyword PGM", "not a built-in"}},
    {"pgm kind", "APPLCTN PSB=MINE,PGM=/bin/x\n", 1, {"APPLCTN: keyword PGM", "builtin:NAME"}},
    {"pgm external empty", "APPLCTN PSB=MINE,PGM=external:\n", 1, {"APPLCTN: keyword PGM", "path"}},
    {"pgmtype batch", "APPLCTN PSB=ECHO,PGMTYPE=BATCH\n", 1, {"APPLCTN: keyword PGMTYPE", "not TP"}},
    {"name without lterm", "NAME\n", 1, {"NAME:"}},
    {"name extra", "NAME LT1 LT2\n", 1, {"NAME:", "'LT2'"}},
    {"descriptor no tmember", "D ALTDEST TPIPE=CSQ1N\n", 1, {"D: keyword TMEMBER: missing"}},
    {"descriptor no tpipe", "D ALTDEST TMEMBER=MQ1\n", 1, {"D: keyword TPIPE: missing"}},
    {"descriptor bad tpipe", "D ALTDEST TMEMBER=MQ1 TPIPE=DFSTP\n", 1, {"D: keyword TPIPE"}},
    {"descriptor bad tmember", "D ALTDEST TMEMBER=mq1 TPIPE=CSQ1\n", 1, {"D: keyword TMEMBER"}},
    {"descriptor type", "D ALTDEST TYPE=NONOTMA TMEMBER=MQ1 TPIPE=CSQ1\n", 1, {"D: keyword TYPE"}},
    {"descriptor syntp", "D ALTDEST TMEMBER=MQ1 TPIPE=CSQ1 SYNTP=MAYBE\n", 1, {"D: keyword SYNTP"}},
    {"descriptor twice",
     "D ALTDEST TMEMBER=MQ1 TPIPE=CSQ1\nD ALTDEST TMEMBER=MQ2 TPIPE=CSQ2\n",
     2,
     {"D:", "duplicate descriptor name ALTDEST"}},
    {"descriptor name", "D ALT*DEST TMEMBER=MQ1 TPIPE=CSQ1\n", 1, {"D:", "destination 'ALT*DEST'"}},
    {"user unknown group", "USER ID=U1,GROUPS=(G1,G9)\nGROUP NAME=G1\n", 1, {"USER: keyword GROUPS", "G9"}},
    {"user twice", "USER ID=U1\nUSER ID=U1\n", 2, {"USER: keyword ID", "twice"}},
    {"user no id", "USER TRANS=(ECHO)\n", 1, {"USER: keyword ID: missing"}},
    {"user bad command", "USER ID=U1,CMDS=(D1S)\n", 1, {"USER: keyword CMDS", "'D1S'"}},
    {"group twice", "GROUP NAME=G1\nGROUP NAME=G1\n", 2, {"GROUP: keyword NAME", "twice"}},
    {"group bad tran", "GROUP NAME=G1,TRANS=(ok)\n", 1, {"GROUP: keyword TRANS", "lowercase"}},
    {"secure level", "/SECURE OTMA SOME\n", 1, {"/SECURE:", "keyword OTMA", "'SOME'"}},
    {"secure what", "/SECURE APPC NONE\n", 1, {"/SECURE:", "OTMA"}},
    {"stop unknown",
     "APPLCTN PSB=ECHO\nTRANSACT CODE=ECHO\nSTOP TRAN=ECHO9\n",
     3,
     {"STOP: keyword TRAN", "ECHO9"}},
    {"unclosed paren", "APPLCTN PSB=ECHO\nTRANSACT CODE=ECHO,MSGTYPE=(SNGLSEG\n", 2, {"TRANSACT:", "'('"}},
    {"stray paren", "IMS GRNAME=G1)\n", 1, {"IMS:", "')'"}},
    {"unclosed quote", "APPLCTN PSB=MINE,PGM='external:/x\n", 1, {"APPLCTN:", "quote"}},
    {"empty operand", "IMS GRNAME=G1,,OTMANM=M1\n", 1, {"IMS:", "empty operand"}},
    {"no value", "IMS GRNAME=,OTMANM=M1\n", 1, {"IMS: keyword GRNAME", "no value"}},
    {"deep nesting", "IMS GRNAME=((((((((((G))))))))))\n", 1, {"IMS:", "nested"}},
    {"list without keyword", "IMS (A,B)\n", 1, {"IMS:", "without a keyword"}},
    {"blank line in continuation", "APPLCTN PSB=ECHO,\n\nPGMTYPE=TP\n", 2, {"continues", "blank"}},
    {"continuation at the end", "APPLCTN PSB=ECHO,\n  PGMTYPE=TP,\n", 2, {"past the end"}},
    {"error on a continuation line",
     "APPLCTN PSB=ECHO\nTRANSACT CODE=ECHO,\n  MSGTYPE=(SNGLSEG,RESPONSE,1),\n  SPA=(1,)\n",
     4,
     {"TRANSACT: keyword SPA"}},
};

INSTANTIATE_TEST_SUITE_P(Kinds, DefinitionsErrorTest, ::testing::ValuesIn(error_cases),
                         [](const ::testing::TestParamInfo<error_case>& param_info) {
                           std::string name;
                           for (const char* p = param_info.param.what; *p != '\0'; ++p)
                             name += (*p == ' ' || *p == '-') ? '_' : *p;
                           return name;
                         });

TEST(DefinitionsTest, ErrorToStringNamesTheLine) {
  const decode_error e = failed("\n\nIMS MAXTP=-1\n");
  EXPECT_THAT(e.to_string(), StartsWith("definitions.line 3 at offset 2:"));
}

// --- defaults and the sample file ----------------------------------------------------------------------

TEST(DefinitionsTest, DefaultDefinitions) {
  const definitions d = default_definitions("XCFGRP1", "IMSA");
  EXPECT_EQ(d.grname, "XCFGRP1");
  EXPECT_EQ(d.otmanm, "IMSA");
  EXPECT_EQ(d.security, otma_security::none);
  EXPECT_TRUE(d.is_lterm("IVTNOLT"));
  for (const char* name : {"IVTNO", "IVTCV", "ECHO", "SHOWOTMA", "ALTOUT"}) {
    const program_def* p = d.program(name);
    ASSERT_NE(p, nullptr) << name;
    EXPECT_EQ(p->builtin, name);
    const transaction_def* t = d.transaction(name);
    ASSERT_NE(t, nullptr) << name;
    EXPECT_EQ(t->program, name);
    EXPECT_TRUE(t->recoverable) << name;
    EXPECT_FALSE(t->fast_path) << name;
    EXPECT_FALSE(t->stopped) << name;
    EXPECT_EQ(t->conversational, std::string_view(name) == "IVTCV") << name;
  }
  EXPECT_EQ(d.transaction("IVTCV")->spa_size, 80u);
  EXPECT_EQ(d.transactions.size(), 5u);
  EXPECT_EQ(default_definitions("G2", "M2").grname, "G2");
}

TEST(DefinitionsTest, TheSampleIvpFileParses) {
  const std::string text = test::read_text(test::vectors_dir() + "/../../examples/imsemu/ivp.def");
  const definitions d = parsed(text);
  EXPECT_EQ(d.grname, "XCFGRP1");
  EXPECT_EQ(d.otmanm, "IMSA");
  EXPECT_EQ(d.maxtp, 500u);
  for (const char* code : {"IVTNO", "IVTCV", "ECHO", "ECHONR", "SHOWOTMA", "ALTOUT"})
    EXPECT_NE(d.transaction(code), nullptr) << code;
  EXPECT_EQ(d.transaction("IVTCV")->spa_size, 80u);
  EXPECT_FALSE(d.transaction("ECHONR")->recoverable);
  EXPECT_TRUE(d.transaction("ECHO")->response_mode);
  EXPECT_EQ(d.program("SHOWOTMA")->builtin, "SHOWOTMA");
  EXPECT_TRUE(d.is_lterm("IVTNOLT"));
  ASSERT_NE(d.descriptor_for("ALTDEST"), nullptr);
  EXPECT_EQ(d.descriptor_for("ALTDEST")->tpipe, "CSQ1N");
  EXPECT_TRUE(d.descriptor_for("MQREPLY")->synchronized);
  EXPECT_TRUE(d.may_run_transaction("CLERK1", "IVTCV"));
  EXPECT_FALSE(d.may_run_transaction("CLERK1", "ECHO"));
  EXPECT_TRUE(d.may_run_transaction("ADMIN", "ECHO"));
  EXPECT_TRUE(d.may_run_command("ADMIN", "STO"));
  EXPECT_FALSE(d.may_run_command("CLERK1", "STO"));
  EXPECT_EQ(d.security, otma_security::none);
}

}  // namespace
}  // namespace imsb::ims

namespace imsb::ims {
namespace {

// --- CLIENT allow-list and run-time limits ------------------------------------------------------------

TEST(DefinitionsClientTest, WithoutClientStatementsEveryMemberMayBid) {
  const auto d = parsed("IMS GRNAME=G,OTMANM=IMSA\n");
  EXPECT_TRUE(d.clients.empty());
  EXPECT_TRUE(d.may_bid("ANYONE", ""));
  EXPECT_TRUE(d.may_bid("MQCLIENT", "U1"));
}

TEST(DefinitionsClientTest, MembersMasksAndUsersDecideWhoMayBid) {
  const auto d = parsed(
      "USER ID=U1\n"
      "CLIENT MEMBER=(MQCLIENT,CSQ*)\n"
      "CLIENT MEMBER=BRIDGE2,USERS=(U1)\n");
  ASSERT_EQ(d.clients.size(), 3u);
  EXPECT_EQ(d.clients[1].member, "CSQ*");
  EXPECT_TRUE(d.may_bid("MQCLIENT", ""));
  EXPECT_TRUE(d.may_bid("CSQ1", "ANY"));
  EXPECT_TRUE(d.may_bid("CSQ", ""));
  EXPECT_FALSE(d.may_bid("MQCLIENT2", ""));  // a name, not a mask: equal only
  EXPECT_FALSE(d.may_bid("OTHER", ""));
  EXPECT_TRUE(d.may_bid("BRIDGE2", "U1      "));  // a blank-padded user ID compares as its value
  EXPECT_FALSE(d.may_bid("BRIDGE2", "U2"));
  EXPECT_FALSE(d.may_bid("BRIDGE2", ""));
}

TEST(DefinitionsClientTest, BadClientStatementsNameTheKeyword) {
  EXPECT_THAT(failed("CLIENT USERS=(U1)\n").detail, HasSubstr("keyword MEMBER: missing"));
  EXPECT_THAT(failed("CLIENT MEMBER=(MQ%1)\n").detail, HasSubstr("MEMBER"));
  EXPECT_THAT(failed("CLIENT MEMBER=ABCDEFGHIJKLMNOPQ\n").detail, HasSubstr("MEMBER"));
  EXPECT_THAT(failed("CLIENT MEMBER=MQ1,BOGUS=1\n").detail, HasSubstr("BOGUS"));
}

TEST(DefinitionsClientTest, ProclimAndPlcttimeSetTheRunTimeLimit) {
  const auto d = parsed(
      "APPLCTN PSB=P1,PGMTYPE=TP,PGM=external:/bin/cat\n"
      "TRANSACT CODE=T1,PROCLIM=(10,7)\n"
      "TRANSACT CODE=T2,PROCLIM=(10,)\n"
      "CREATE TRAN NAME(T3) SET(PGM(P1),PLCTTIME(250))\n");
  EXPECT_EQ(d.transaction("T1")->time_limit_seconds, 7u);
  EXPECT_EQ(d.transaction("T2")->time_limit_seconds, 0u);
  EXPECT_EQ(d.transaction("T3")->time_limit_seconds, 3u);  // 2.5 s, rounded up
  EXPECT_THAT(failed("APPLCTN PSB=ECHO,PGMTYPE=TP\nTRANSACT CODE=T1,PROCLIM=(1,X)\n").detail,
              HasSubstr("PROCLIM"));
  EXPECT_THAT(failed("APPLCTN PSB=ECHO,PGMTYPE=TP\nTRANSACT CODE=T1,PROCLIM=(1,2,3)\n").detail,
              HasSubstr("PROCLIM"));
  EXPECT_THAT(failed("APPLCTN PSB=ECHO,PGMTYPE=TP\nCREATE TRAN NAME(T3) SET(PGM(ECHO),PLCTTIME(0))\n").detail,
              HasSubstr("PLCTTIME"));
}

}  // namespace
}  // namespace imsb::ims
