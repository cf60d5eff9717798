// IMS commands and FAULT commands (imsemu/commands.hpp): exact output lines, abbreviations, errors,
// effects, FAULT parsing and the architected /DIS TRAN segment [C: IMS-CMDS, IMS-DISTRAN].
#include "imsb/imsemu/commands.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "imsb/codepage/codepage.hpp"
#include "imsb/core/messages.hpp"

namespace imsb::imsemu {
namespace {

using lines = std::vector<std::string>;

constexpr const char* defs_text =
    "IMS GRNAME=XCFGRP1,OTMANM=IMSA\n"
    "APPLCTN PSB=IVTNO,PGMTYPE=TP\n"
    "TRANSACT CODE=IVTNO,MSGTYPE=(SNGLSEG,NONRESPONSE,1)\n"
    "APPLCTN PSB=IVTCV,PGMTYPE=TP\n"
    "TRANSACT CODE=IVTCV,MSGTYPE=(SNGLSEG,NONRESPONSE,1),SPA=(80,)\n"
    "APPLCTN PSB=ECHO,PGMTYPE=TP\n"
    "TRANSACT CODE=ECHO,MSGTYPE=(MULTSEG,RESPONSE,3),INQUIRY=(YES,NORECOV)\n"
    "APPLCTN PSB=SHOWOTMA,PGMTYPE=TP,FPATH=YES\n"
    "TRANSACT CODE=FPTRAN,MSGTYPE=(SNGLSEG,RESPONSE,1)\n"
    "/SECURE OTMA CHECK\n";

ims::definitions load_defs() {
  auto d = ims::parse_definitions(defs_text);
  EXPECT_TRUE(d.ok()) << (d.ok() ? "" : d.error().detail);
  return d.ok() ? d.value() : ims::definitions{};
}

queued_output out(std::uint64_t id) {
  queued_output o;
  o.id = id;
  o.data = {1, 2, 3};
  o.synchronized = true;
  return o;
}

class commands_test : public ::testing::Test {
 protected:
  commands_test() : defs_(load_defs()), state_(defs_, journal_) {
    // The journal: MQXCF1's synchronized Tpipe SYN1 with two queued outputs; MQXCF2 known only from the
    // journal (a synchronized Tpipe kept across a restart).
    journal_.tpipes[{"MQXCF1", "SYN1"}] = tpipe_state{true, 7, 5, false};
    journal_.outputs[{"MQXCF1", "SYN1"}] = {out(11), out(12)};
    journal_.tpipes[{"MQXCF2", "OLDTP"}] = tpipe_state{true, 3, 3, true};
    client_status c1;
    c1.ready = true;
    c1.tib_count = 2;
    c1.tib_limit = 5000;
    tpipe_status syn;
    syn.synchronized = true;
    syn.enqct = 9;
    syn.deqct = 7;
    c1.tpipes["SYN1"] = syn;
    tpipe_status conv;
    conv.conversation_active = true;
    conv.conversation_id = 42;
    c1.tpipes["NSYN1"] = conv;
    tpipe_status stopped;
    stopped.stopped = true;
    c1.tpipes["STOPPED"] = stopped;
    state_.clients["MQXCF1"] = c1;
    client_status c3;  // connected, no Tpipes yet
    c3.ready = true;
    c3.tib_limit = 200;
    state_.clients["MQXCF3"] = c3;
    state_.member = "IMSA";
    state_.stopped_transactions.insert("IVTCV");
    state_.transaction_queue_counts["IVTNO"] = 4;
    state_.tib_count = 2;
    state_.tib_limit = 10000;
  }

  command_result run(std::string_view text) { return run_command(state_, text); }

  ims::definitions defs_;
  journal_state journal_;
  command_state state_;
};

// --- /DIS TMEMBER ... TPIPE -----------------------------------------------------------------------

TEST_F(commands_test, display_tmember_tpipe_all_lists_every_tpipe_with_counts_and_status) {
  auto r = run("/DIS TMEMBER MQXCF1 TPIPE ALL");
  EXPECT_TRUE(r.recognized);
  EXPECT_EQ(r.lines, (lines{
                         "DFS000I MEMBER/TPIPE  ENQCT  DEQCT  QCT  STATUS",
                         "DFS000I MQXCF1                                   ACCEPT TRAFFIC",
                         "DFS000I     NSYN1            0        0        0 CONV",
                         "DFS000I     STOPPED          0        0        0 STO",
                         "DFS000I     SYN1             9        7        2 SYN",
                     }));
  EXPECT_TRUE(r.effects.empty());
}

TEST_F(commands_test, display_tmember_tpipe_shows_journal_only_tpipes_of_a_disconnected_member) {
  auto r = run("/DIS TMEMBER MQXCF2 TPIPE OLDTP");
  EXPECT_EQ(r.lines, (lines{
                         "DFS000I MEMBER/TPIPE  ENQCT  DEQCT  QCT  STATUS",
                         "DFS000I MQXCF2                                   DISCONNECTED",
                         "DFS000I     OLDTP            0        0        0 SYN STO",
                     }));
}

TEST_F(commands_test, display_tmember_tpipe_names_unknown_tpipes_and_members) {
  auto r = run("/DIS TMEMBER MQXCF1 TPIPE SYN1,NOPE");
  ASSERT_EQ(r.lines.size(), 4u);
  EXPECT_EQ(r.lines[2], "DFS000I     SYN1             9        7        2 SYN");
  EXPECT_EQ(r.lines[3], "DFS000I     NOPE IS INVALID");
  EXPECT_EQ(run("/DIS TMEMBER NOBODY TPIPE ALL").lines, (lines{"DFS000I     NOBODY IS INVALID"}));
  EXPECT_EQ(run("/DIS TMEMBER MQXCF3 TPIPE ALL").lines, (lines{"DFS1268 NO TPIPES ASSOCIATED WITH TMEMBER"}));
}

TEST_F(commands_test, display_tmember_all_tpipe_all_lists_every_member_under_one_header) {
  auto r = run("/DIS TMEMBER ALL TPIPE ALL");
  ASSERT_FALSE(r.lines.empty());
  EXPECT_EQ(r.lines.front(), "DFS000I MEMBER/TPIPE  ENQCT  DEQCT  QCT  STATUS");
  EXPECT_EQ(std::count(r.lines.begin(), r.lines.end(), r.lines.front()), 1);
  const auto has = [&](const std::string& l) {
    return std::find(r.lines.begin(), r.lines.end(), l) != r.lines.end();
  };
  EXPECT_TRUE(has("DFS000I MQXCF1                                   ACCEPT TRAFFIC"));
  EXPECT_TRUE(has("DFS000I     SYN1             9        7        2 SYN"));
  EXPECT_TRUE(has("DFS000I MQXCF2                                   DISCONNECTED"));
  EXPECT_TRUE(has("DFS000I     OLDTP            0        0        0 SYN STO"));
  // Each Tpipe line follows its own member's line.
  const auto at = [&](const std::string& l) {
    return std::find(r.lines.begin(), r.lines.end(), l) - r.lines.begin();
  };
  EXPECT_LT(at("DFS000I MQXCF1                                   ACCEPT TRAFFIC"),
            at("DFS000I     SYN1             9        7        2 SYN"));
  EXPECT_LT(at("DFS000I MQXCF2                                   DISCONNECTED"),
            at("DFS000I     OLDTP            0        0        0 SYN STO"));
  EXPECT_TRUE(r.effects.empty());
  // ALL members with named Tpipes is not a form IMS takes.
  EXPECT_EQ(run("/DIS TMEMBER ALL TPIPE SYN1").lines, (lines{"DFS108 COMMAND SYNTAX INVALID"}));
}

// --- /DIS OTMA, /DIS TMEMBER m|ALL ----------------------------------------------------------------

TEST_F(commands_test, display_otma_lists_group_server_and_clients) {
  const lines expected{
      "DFS000I GROUP/MEMBER      XCF-STATUS   USER-STATUS    SECURITY TIB   INPT",
      "DFS000I XCFGRP1",
      "DFS000I -IMSA             ACTIVE       SERVER         CHECK",
      "DFS000I -MQXCF1           ACTIVE       ACCEPT TRAFFIC CHECK    2     5000",
      "DFS000I -MQXCF2           NOT DEFINED  DISCONNECTED   CHECK    0     5000",
      "DFS000I -MQXCF3           ACTIVE       ACCEPT TRAFFIC CHECK    0     200",
      std::string(imsb::msg::IMB5064I) + " SERVER STATE NORMAL TIB 2/10000",
  };
  EXPECT_EQ(run("/DIS OTMA").lines, expected);
  // IBM: /DISPLAY OTMA is functionally equivalent to /DISPLAY TMEMBER ALL.
  EXPECT_EQ(run("/DIS TMEMBER ALL").lines, expected);
}

TEST_F(commands_test, display_one_tmember_without_tpipe) {
  EXPECT_EQ(run("/DISPLAY TMEMBER MQXCF3").lines,
            (lines{
                "DFS000I GROUP/MEMBER      XCF-STATUS   USER-STATUS    SECURITY TIB   INPT",
                "DFS000I XCFGRP1",
                "DFS000I -MQXCF3           ACTIVE       ACCEPT TRAFFIC CHECK    0     200",
            }));
  auto unknown = run("/DIS TMEMBER GHOST");
  EXPECT_EQ(unknown.lines.back(), "DFS000I     GHOST IS INVALID");
}

TEST_F(commands_test, display_otma_reports_a_degraded_server) {
  state_.server_state = "DEGRADED";
  EXPECT_EQ(run("/DIS OTMA").lines.back(),
            std::string(imsb::msg::IMB5064I) + " SERVER STATE DEGRADED TIB 2/10000");
}

// --- /DIS TRAN ------------------------------------------------------------------------------------

TEST_F(commands_test, display_tran_shows_class_queue_count_and_stop_status) {
  EXPECT_EQ(run("/DIS TRAN IVTNO").lines, (lines{
                                              "DFS000I TRAN     CLS      QCT STATUS",
                                              "DFS000I IVTNO      1        4",
                                          }));
  EXPECT_EQ(run("/DIS TRAN ALL").lines, (lines{
                                            "DFS000I TRAN     CLS      QCT STATUS",
                                            "DFS000I ECHO       3        0",
                                            "DFS000I FPTRAN     1        0",
                                            "DFS000I IVTCV      1        0 STOP",
                                            "DFS000I IVTNO      1        4",
                                        }));
  EXPECT_EQ(run("/DIS TRAN IVTCV NOSUCH").lines, (lines{
                                                     "DFS000I TRAN     CLS      QCT STATUS",
                                                     "DFS000I IVTCV      1        0 STOP",
                                                     "DFS000I     NOSUCH IS INVALID",
                                                 }));
}

TEST_F(commands_test, abbreviations_synonyms_case_and_a_trailing_period_give_the_same_answer) {
  const auto expected = run("/DIS TRAN IVTNO").lines;
  for (const char* text :
       {"/DISPLAY TRANSACTION IVTNO", "/dis tran ivtno", "/DIS TRANS IVTNO.", "  /DIS  TRAN   IVTNO  "}) {
    auto r = run(text);
    EXPECT_TRUE(r.recognized) << text;
    EXPECT_EQ(r.lines, expected) << text;
  }
  EXPECT_EQ(run("/DIS TMEM MQXCF1 TPIPE SYN1").lines, run("/DISPLAY TMEMBER MQXCF1 TPIPE SYN1").lines);
}

// --- /STOP, /START --------------------------------------------------------------------------------

TEST_F(commands_test, stop_and_start_tran_produce_effects_and_dfs058i) {
  auto stop = run("/STO TRAN IVTNO");
  EXPECT_EQ(stop.lines, (lines{"DFS058I STOP COMMAND COMPLETED"}));
  EXPECT_EQ(stop.effects.stop_transactions, (lines{"IVTNO"}));
  EXPECT_TRUE(stop.effects.start_transactions.empty());

  auto start = run("/START TRANSACTION IVTCV");
  EXPECT_EQ(start.lines, (lines{"DFS058I START COMMAND COMPLETED"}));
  EXPECT_EQ(start.effects.start_transactions, (lines{"IVTCV"}));
  EXPECT_TRUE(start.effects.stop_transactions.empty());
}

TEST_F(commands_test, stop_tran_names_unknown_transactions_in_the_except_phrase) {
  auto r = run("/STOP TRAN IVTNO,NOPE1 NOPE2");
  EXPECT_EQ(r.lines, (lines{"DFS058I STOP COMMAND COMPLETED EXCEPT TRAN NOPE1, NOPE2"}));
  EXPECT_EQ(r.effects.stop_transactions, (lines{"IVTNO"}));
  auto all = run("/STA TRAN ALL");
  EXPECT_EQ(all.effects.start_transactions, (lines{"ECHO", "FPTRAN", "IVTCV", "IVTNO"}));
  EXPECT_EQ(run("/STO TRAN ABCDEFGHI").lines, (lines{"DFS121I PARAMETER TOO LONG"}));
}

TEST_F(commands_test, stop_and_start_tpipe_produce_effects) {
  auto stop = run("/STO TMEMBER MQXCF1 TPIPE SYN1");
  EXPECT_EQ(stop.lines, (lines{"DFS058I STOP COMMAND COMPLETED"}));
  EXPECT_EQ(stop.effects.stop_tpipes, (std::vector<tpipe_key>{{"MQXCF1", "SYN1"}}));
  auto start = run("/STA TMEMBER MQXCF2 TPIPE OLDTP");
  EXPECT_EQ(start.effects.start_tpipes, (std::vector<tpipe_key>{{"MQXCF2", "OLDTP"}}));
  auto all = run("/STO TMEMBER MQXCF1 TPIPE ALL");
  EXPECT_EQ(all.effects.stop_tpipes,
            (std::vector<tpipe_key>{{"MQXCF1", "NSYN1"}, {"MQXCF1", "STOPPED"}, {"MQXCF1", "SYN1"}}));
}

TEST_F(commands_test, stop_tpipe_of_unknown_member_or_tpipe_is_an_exception) {
  auto m = run("/STO TMEMBER GHOST TPIPE T1");
  EXPECT_EQ(m.lines, (lines{"DFS058I STOP COMMAND COMPLETED EXCEPT TMEMBER GHOST"}));
  EXPECT_TRUE(m.effects.empty());
  auto t = run("/STA TMEMBER MQXCF1 TPIPE NOPE");
  EXPECT_EQ(t.lines, (lines{"DFS058I START COMMAND COMPLETED EXCEPT TPIPE NOPE"}));
  EXPECT_TRUE(t.effects.empty());
  EXPECT_EQ(run("/STO TMEMBER MQXCF1").lines, (lines{"DFS107 REQUIRED KEYWORD NOT PRESENT"}));
}

// --- /DEQUEUE -------------------------------------------------------------------------------------

TEST_F(commands_test, dequeue_purge1_takes_the_first_output_and_purge_all) {
  auto one = run("/DEQ TMEMBER MQXCF1 TPIPE SYN1 PURGE1");
  EXPECT_EQ(one.lines, (lines{"DFS058I DEQUEUE COMMAND COMPLETED",
                              std::string(imsb::msg::IMB5065I) +
                                  " 1 OUTPUT MESSAGE(S) DEQUEUED FROM MQXCF1 TPIPE SYN1"}));
  EXPECT_EQ(one.effects.purge_outputs, (std::vector<std::uint64_t>{11}));
  auto all = run("/DEQUEUE TMEMBER MQXCF1 TPIPE SYN1 PURGE");
  EXPECT_EQ(all.effects.purge_outputs, (std::vector<std::uint64_t>{11, 12}));
  auto none = run("/DEQ TMEMBER MQXCF1 TPIPE NSYN1 PURGE");
  EXPECT_TRUE(none.effects.purge_outputs.empty());
  EXPECT_EQ(none.lines.back(),
            std::string(imsb::msg::IMB5065I) + " 0 OUTPUT MESSAGE(S) DEQUEUED FROM MQXCF1 TPIPE NSYN1");
}

TEST_F(commands_test, dequeue_errors) {
  EXPECT_EQ(run("/DEQ TMEMBER MQXCF1 TPIPE SYN1").lines, (lines{"DFS107 REQUIRED KEYWORD NOT PRESENT"}));
  EXPECT_EQ(run("/DEQ TMEMBER MQXCF1 TPIPE SYN1 PURGE PURGE1").lines,
            (lines{"DFS130 INVALID KEYWORD COMBINATION"}));
  EXPECT_EQ(run("/DEQ TMEMBER MQXCF1 TPIPE SYN1 PURGE1 X").lines,
            (lines{"DFS239 NO PARAMETER ALLOWED WITH PURGE OR PURGE1."}));
  EXPECT_EQ(run("/DEQ TMEMBER GHOST TPIPE SYN1 PURGE").lines,
            (lines{"DFS058I DEQUEUE COMMAND COMPLETED EXCEPT TMEMBER GHOST"}));
  auto t = run("/DEQ TMEMBER MQXCF1 TPIPE NOPE PURGE");
  EXPECT_EQ(t.lines, (lines{"DFS058I DEQUEUE COMMAND COMPLETED EXCEPT TPIPE NOPE"}));
  EXPECT_TRUE(t.effects.empty());
}

// --- /EXIT ----------------------------------------------------------------------------------------

TEST_F(commands_test, exit_ends_the_conversation_of_a_named_tpipe_or_conversation_id) {
  auto named = run("/EXIT TMEMBER MQXCF1 TPIPE NSYN1");
  EXPECT_EQ(named.lines, (lines{"DFS576I EXIT COMPLETED, TRANSACTION DISCARDED"}));
  EXPECT_EQ(named.effects.end_conversations, (std::vector<tpipe_key>{{"MQXCF1", "NSYN1"}}));
  auto by_id = run("/EXI CONV 0042");
  EXPECT_EQ(by_id.effects.end_conversations, (std::vector<tpipe_key>{{"MQXCF1", "NSYN1"}}));
  auto wrong_id = run("/EXIT CONVERSATION 0043");
  EXPECT_EQ(wrong_id.lines, (lines{"DFS180 NO ACTIVE CONVERSATION IN PROCESS, CANNOT PROCESS COMMAND"}));
  EXPECT_TRUE(wrong_id.effects.empty());
  EXPECT_EQ(run("/EXIT CONV 42").lines, (lines{"DFS108 COMMAND SYNTAX INVALID"}));
  EXPECT_EQ(run("/EXIT TMEMBER MQXCF1 TPIPE SYN1").lines,
            (lines{"DFS180 NO ACTIVE CONVERSATION IN PROCESS, CANNOT PROCESS COMMAND"}));
}

TEST_F(commands_test, bare_exit_uses_the_origin_tpipe_and_needs_one) {
  EXPECT_EQ(run("/EXIT").lines, (lines{"DFS107 REQUIRED KEYWORD NOT PRESENT"}));
  state_.origin = tpipe_key{"MQXCF1", "NSYN1"};
  auto r = run("/EXIT");
  EXPECT_EQ(r.effects.end_conversations, (std::vector<tpipe_key>{{"MQXCF1", "NSYN1"}}));
  state_.origin = tpipe_key{"MQXCF1", "SYN1"};
  EXPECT_TRUE(run("/EXIT").effects.empty());
}

// --- errors ---------------------------------------------------------------------------------------

TEST_F(commands_test, syntax_errors_use_ims_messages) {
  auto verb = run("/FOO TRAN X");
  EXPECT_FALSE(verb.recognized);
  EXPECT_EQ(verb.lines, (lines{"DFS105I COMMAND VERB /FOO IS INCORRECT"}));
  EXPECT_FALSE(run("").recognized);
  EXPECT_EQ(run("   ").lines, (lines{"DFS108 COMMAND SYNTAX INVALID"}));
  EXPECT_EQ(run("/DIS").lines, (lines{"DFS107 REQUIRED KEYWORD NOT PRESENT"}));
  EXPECT_EQ(run("/DIS FOO").lines, (lines{"DFS163 KEYWORD IS INVALID"}));
  EXPECT_EQ(run("/DIS TRAN").lines, (lines{"DFS108 COMMAND SYNTAX INVALID"}));
  EXPECT_EQ(run("/DIS TRAN A TRAN B").lines, (lines{"DFS127 TOO MANY KEYWORDS"}));
  EXPECT_EQ(run("/DIS TRAN A OTMA").lines, (lines{"DFS130 INVALID KEYWORD COMBINATION"}));
  EXPECT_EQ(run("/DIS TMEMBER ABCDEFGHIJKLMNOPQ TPIPE ALL").lines, (lines{"DFS121I PARAMETER TOO LONG"}));
  EXPECT_EQ(run("/DIS TMEMBER MQXCF1 TPIPE ALL QCNT").lines, (lines{"DFS163 KEYWORD IS INVALID"}));
  EXPECT_TRUE(run("/DIS FOO").recognized);
}

TEST_F(commands_test, arbitrary_bytes_never_break_it) {
  std::string junk;
  for (int i = 0; i < 256; ++i) junk.push_back(static_cast<char>(i));
  for (std::size_t n = 0; n < junk.size(); n += 17) {
    auto r = run(std::string("/DIS ") + junk.substr(n, 40));
    EXPECT_FALSE(r.lines.empty());
    auto a = architected_display_tran(state_, std::string("/DIS TRAN ") + junk.substr(n, 40));
    EXPECT_FALSE(a.empty());
  }
}

// --- FAULT ----------------------------------------------------------------------------------------

TEST_F(commands_test, fault_commands_map_to_fault_fields) {
  struct row {
    const char* text;
    std::vector<fault_change> changes;
  };
  const std::vector<row> rows{
      {"FAULT STOP", {{"stop_answering", 1}}},
      {"FAULT RESUME", {{"stop_answering", 0}}},
      {"FAULT WITHHOLD ACK 3", {{"withhold_next_acks", 3}}},
      {"fault ignore acks 2", {{"ignore_next_client_acks", 2}}},
      {"FAULT DUPLICATE OUTPUT 1", {{"duplicate_next_outputs", 1}}},
      {"FAULT NAK 0030", {{"nak_next_sense", 0x30}}},
      {"FAULT NAK X'001F'", {{"nak_next_sense", 0x1F}}},
      {"FAULT NAK 0x23", {{"nak_next_sense", 0x23}}},
      {"FAULT DELAY OUTPUT 250", {{"delay_output_ms", 250}}},
      {"FAULT CRASH AFTER LOG", {{"crash_after_log", 1}}},
      {"FAULT CRASH AFTER RUN", {{"crash_after_run", 1}}},
      {"FAULT WITHHOLD ACK 4294967295", {{"withhold_next_acks", 4294967295u}}},
  };
  for (const auto& row : rows) {
    auto r = run(row.text);
    EXPECT_TRUE(r.recognized) << row.text;
    EXPECT_EQ(r.effects.fault_changes, row.changes) << row.text;
    ASSERT_EQ(r.lines.size(), 1u) << row.text;
    EXPECT_EQ(r.lines[0].rfind(std::string(imsb::msg::IMB5060I) + " FAULT SET ", 0), 0u) << r.lines[0];
  }
  EXPECT_EQ(run("FAULT NAK 0030").lines,
            (lines{std::string(imsb::msg::IMB5060I) + " FAULT SET nak_next_sense=X'0030'"}));
  EXPECT_EQ(run("FAULT DELAY OUTPUT 250").lines,
            (lines{std::string(imsb::msg::IMB5060I) + " FAULT SET delay_output_ms=250"}));
}

TEST_F(commands_test, fault_bad_values_are_rejected_without_effects) {
  for (const char* text :
       {"FAULT", "FAULT WITHHOLD ACK", "FAULT WITHHOLD ACK -1", "FAULT WITHHOLD ACK 4294967296",
        "FAULT WITHHOLD ACK 1 2", "FAULT IGNORE ACK X", "FAULT NAK", "FAULT NAK 12345", "FAULT NAK ZZ",
        "FAULT NAK X'30", "FAULT DELAY OUTPUT 1.5", "FAULT CRASH AFTER LUNCH", "FAULT CRASH",
        "FAULT STOP NOW", "FAULT BOGUS", "FAULT DUPLICATE ACK 1"}) {
    auto r = run(text);
    EXPECT_TRUE(r.recognized) << text;
    EXPECT_TRUE(r.effects.empty()) << text;
    ASSERT_EQ(r.lines.size(), 1u) << text;
    EXPECT_EQ(r.lines[0].rfind(std::string(imsb::msg::IMB5061E) + " FAULT COMMAND REJECTED: ", 0), 0u)
        << r.lines[0];
  }
}

TEST_F(commands_test, fault_commands_come_from_the_operator_only) {
  state_.origin = tpipe_key{"MQXCF1", "NSYN1"};
  auto r = run("FAULT STOP");
  EXPECT_TRUE(r.effects.empty());
  EXPECT_EQ(r.lines, (lines{std::string(imsb::msg::IMB5062E) +
                            " FAULT COMMANDS ARE ACCEPTED FROM THE OPERATOR CONSOLE ONLY"}));
}

TEST_F(commands_test, fault_clear_show_and_apply_round_trip) {
  faults f;
  for (const char* text :
       {"FAULT STOP", "FAULT WITHHOLD ACK 3", "FAULT IGNORE ACK 4", "FAULT DUPLICATE OUTPUT 5",
        "FAULT NAK 0030", "FAULT DELAY OUTPUT 6", "FAULT CRASH AFTER LOG", "FAULT CRASH AFTER RUN"})
    apply_fault_changes(f, run(text).effects.fault_changes);
  EXPECT_TRUE(f.stop_answering);
  EXPECT_EQ(f.withhold_next_acks, 3u);
  EXPECT_EQ(f.ignore_next_client_acks, 4u);
  EXPECT_EQ(f.duplicate_next_outputs, 5u);
  EXPECT_EQ(f.nak_next_sense, 0x30);
  EXPECT_EQ(f.delay_output_ms, 6u);
  EXPECT_TRUE(f.crash_after_log);
  EXPECT_TRUE(f.crash_after_run);

  state_.fault_settings = f;
  EXPECT_EQ(run("FAULT SHOW").lines,
            (lines{
                std::string(imsb::msg::IMB5063I) + " FAULT stop_answering=1",
                std::string(imsb::msg::IMB5063I) + " FAULT withhold_next_acks=3",
                std::string(imsb::msg::IMB5063I) + " FAULT ignore_next_client_acks=4",
                std::string(imsb::msg::IMB5063I) + " FAULT duplicate_next_outputs=5",
                std::string(imsb::msg::IMB5063I) + " FAULT nak_next_sense=X'0030'",
                std::string(imsb::msg::IMB5063I) + " FAULT delay_output_ms=6",
                std::string(imsb::msg::IMB5063I) + " FAULT crash_after_log=1",
                std::string(imsb::msg::IMB5063I) + " FAULT crash_after_run=1",
                std::string(imsb::msg::IMB5063I) + " FAULT hold_runs=0",
            }));
  EXPECT_TRUE(run("FAULT SHOW").effects.empty());

  auto clear = run("FAULT CLEAR");
  EXPECT_EQ(clear.lines, (lines{std::string(imsb::msg::IMB5060I) + " FAULT SETTINGS CLEARED"}));
  EXPECT_EQ(clear.effects.fault_changes.size(), 9u);
  apply_fault_changes(f, clear.effects.fault_changes);
  const faults zero{};
  EXPECT_EQ(f.stop_answering, zero.stop_answering);
  EXPECT_EQ(f.withhold_next_acks, 0u);
  EXPECT_EQ(f.ignore_next_client_acks, 0u);
  EXPECT_EQ(f.duplicate_next_outputs, 0u);
  EXPECT_EQ(f.nak_next_sense, 0);
  EXPECT_EQ(f.delay_output_ms, 0u);
  EXPECT_FALSE(f.crash_after_log);
  EXPECT_FALSE(f.crash_after_run);
}

// --- architected /DIS TRAN [C: IMS-DISTRAN] -------------------------------------------------------

bytes ebcdic(std::string_view s, std::size_t n) {
  bytes b(n);
  codepage::put_field(b.data(), n, s, 37);
  return b;
}

bytes attributes(std::string_view code, std::uint8_t f1, std::uint8_t f2, std::uint8_t st) {
  bytes b{0x00, 0x0F, 0x00, 0x00};
  auto c = ebcdic(code, 8);
  b.insert(b.end(), c.begin(), c.end());
  b.push_back(f1);
  b.push_back(f2);
  b.push_back(st);
  return b;
}

TEST_F(commands_test, architected_display_tran_flags) {
  EXPECT_EQ(architected_display_tran(state_, "/DIS TRAN IVTNO"),
            (std::vector<bytes>{attributes("IVTNO", 0x00, 0x20, 0x00)}));
  // IVTCV: conversational, recoverable (update), stopped.
  EXPECT_EQ(architected_display_tran(state_, "/DIS TRAN IVTCV"),
            (std::vector<bytes>{attributes("IVTCV", 0x00, 0x60, 0x80)}));
  // ECHO: response mode, INQUIRY=(YES,NORECOV) → irrecoverable.
  EXPECT_EQ(architected_display_tran(state_, "/DISPLAY TRANSACTION ECHO"),
            (std::vector<bytes>{attributes("ECHO", 0x00, 0x90, 0x00)}));
  // FPTRAN of a Fast Path program: Fast Path exclusive, response mode.
  EXPECT_EQ(architected_display_tran(state_, "/DIS TRAN FPTRAN"),
            (std::vector<bytes>{attributes("FPTRAN", 0x08, 0xA0, 0x00)}));
  EXPECT_EQ(architected_display_tran(state_, "/DIS TRAN NOSUCH"),
            (std::vector<bytes>{attributes("NOSUCH", 0xFF, 0, 0)}));
  EXPECT_EQ(architected_display_tran(state_, "/DIS TRAN ALL").size(), 4u);
  EXPECT_EQ(architected_display_tran(state_, "/DIS TRAN IVTNO,NOSUCH").size(), 2u);
}

TEST_F(commands_test, architected_display_tran_in_ascii_and_bad_syntax) {
  auto a = architected_display_tran(state_, "/DIS TRAN IVTNO", 819);
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(std::string(a[0].begin() + 4, a[0].begin() + 12), "IVTNO   ");

  auto bad = architected_display_tran(state_, "/DIS TRAN");
  ASSERT_EQ(bad.size(), 1u);
  const auto text = ebcdic("DFS108 COMMAND SYNTAX INVALID", 29);
  ASSERT_EQ(bad[0].size(), 15u + text.size());
  EXPECT_EQ(bad[0][0], 0x00);
  EXPECT_EQ(bad[0][1], 15u + text.size());
  EXPECT_EQ(bad[0][12], 0xFE);
  EXPECT_EQ(bytes(bad[0].begin() + 15, bad[0].end()), text);
  auto wrong_verb = architected_display_tran(state_, "/STO TRAN IVTNO");
  ASSERT_EQ(wrong_verb.size(), 1u);
  EXPECT_EQ(wrong_verb[0][12], 0xFE);
}

}  // namespace
}  // namespace imsb::imsemu
