// Every IMS flow and DFS message the emulator reproduces, through a real xcfhub and imsemu with the scripted
// OTMA client (otma_client.hpp): one test each, named after what it reproduces. The rules are engine.hpp's
// (its header comment, rules 1–6: IBM's OTMA flows [C: IMS-FLOWS, IMS-RS-SUMMARY] and our choices in
// docs/design/otma.md); the unit tests of the same rules are tests/imsemu/engine_test.cpp and
// engine_review_test.cpp. Flood warnings (DFS1988W) are in
// flood_test.cpp.

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <variant>
#include <vector>

#include "imsb/codepage/codepage.hpp"
#include "imsb/core/messages.hpp"
#include "imsb/otma/message.hpp"
#include "imsb/otma/sense.hpp"
#include "imsb/tpipe/protocol.hpp"
#include "imsemu_e2e.hpp"
#include "otma_client.hpp"
#include "process.hpp"

namespace imsb::test {
namespace {

// The definitions every test here runs with: IBM's IVP transactions, ECHO as a response-mode
// recoverable transaction and ECHONR as an unrecoverable one, a Fast Path ECHO, ALTOUT with a
// descriptor that routes its alternate output back to this test's client, and the IVP's LTERM.
std::string flows_definitions(const std::string& ims_keywords, const std::string& more) {
  return "IMS GRNAME=XCFGRP1,OTMANM=IMSA,IMSID=IMSA" + ims_keywords +
         "\n"
         "APPLCTN PSB=IVTNO,PGMTYPE=TP\n"
         "TRANSACT CODE=IVTNO,MSGTYPE=(SNGLSEG,NONRESPONSE,1)\n"
         "APPLCTN PSB=IVTCV,PGMTYPE=TP\n"
         "TRANSACT CODE=IVTCV,MSGTYPE=(SNGLSEG,NONRESPONSE,1),SPA=(80,)\n"
         "APPLCTN PSB=ECHO,PGMTYPE=TP\n"
         "TRANSACT CODE=ECHO,MSGTYPE=(MULTSEG,RESPONSE,1)\n"
         "TRANSACT CODE=ECHONR,MSGTYPE=(MULTSEG,RESPONSE,1),INQUIRY=(YES,NORECOV)\n"
         "APPLCTN PSB=FPECHO,PGMTYPE=TP,FPATH=YES,PGM=builtin:ECHO\n"
         "TRANSACT CODE=FPECHO,MSGTYPE=(SNGLSEG,RESPONSE,1)\n"
         "APPLCTN PSB=ALTOUT,PGMTYPE=TP\n"
         "TRANSACT CODE=ALTOUT,MSGTYPE=(MULTSEG,NONRESPONSE,1)\n"
         "NAME IVTNOLT\n"
         "D ALTDEST TYPE=MQSERIES TMEMBER=" +
         std::string(client_member) + " TPIPE=ALTTP SYNTP=N\n" + more;
}

otma::transaction_state_data& state_of(otma_message& m) {
  return std::get<otma::transaction_state_data>(*m.state);
}

// CM0 with recoverable number 0 and no synchronized-Tpipe flag.
otma_message cm0_unrecoverable(const std::string& tpipe, const std::string& text) {
  otma_message m = make_input(tpipe, text, 0);
  state_of(m).sync_flags =
      static_cast<std::uint8_t>(otma::sync_flags::commit_then_send | otma::sync_flags::sync_level_confirm);
  return m;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  for (std::size_t nl; (nl = text.find('\n', pos)) != std::string::npos; pos = nl + 1)
    out.push_back(text.substr(pos, nl - pos));
  if (pos < text.size()) out.push_back(text.substr(pos));
  return out;
}

// The line of `text` that starts with `prefix`, or "" when none does.
std::string line_starting(const std::string& text, const std::string& prefix) {
  for (const auto& l : lines_of(text))
    if (l.rfind(prefix, 0) == 0) return l;
  return {};
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f << text;
  if (!f) throw std::runtime_error("cannot write " + path);
}

bytes user_bytes(const std::string& s) { return bytes(s.begin(), s.end()); }

class flows_e2e : public imsemu_e2e {
 protected:
  // Writes the definitions into the test's folder and starts imsemu with them (the fixture's --group and
  // --member come first and agree with the file).
  void start_flows(const std::string& ims_keywords = {}, const std::string& more = {}) {
    const std::string file = dir_.file("flows.def");
    write_text(file, flows_definitions(ims_keywords, more));
    start_ims({"--config", file});
    if (HasFatalFailure()) return;
    connect_client();
  }

  // A new client in place of one whose session ended, with the records of its synchronized Tpipes (as the
  // bridge reloads them, docs/design/commit-modes.md, CM0 step 7): it bids with resync.
  void reconnect_keeping_records() {
    const auto records = client_->locked([&] { return client_->records; });
    client_.reset();
    client_ = std::make_unique<otma_client>(endpoint_);
    client_->locked([&] { client_->records = records; });
    const auto rc = client_->join();
    ASSERT_TRUE(rc.ok()) << rc.rc << "/" << rc.rsn;
    ASSERT_TRUE(client_->wait([&] { return client_->ready_count >= 1; })) << client_->lost_reason;
  }

  std::size_t output_count() {
    return client_->locked([&] { return client_->outputs.size(); });
  }
  otma_message output_at(std::size_t i) {
    return client_->locked([&] { return client_->outputs.at(i); });
  }
  otma_message last_message() {
    return client_->locked([&] { return client_->outputs.back(); });
  }
  std::uint32_t last_output_rsn() { return last_message().mci.recoverable_seq; }

  // An IMS command sent CM1 on the command Tpipe ([C: IMS-CMDS]: a Tpipe reserved for commands); its answer.
  std::string command(const std::string& text, const std::string& user = {}) {
    const auto r = exchange(make_input("CMDTP", text, 0, user));
    EXPECT_TRUE(r.ack) << text << ": sense " << r.sense;
    return last_output();
  }

  // Nothing more arrives for a while: an output that should not come has time to show up (the emulator's
  // timer ticks every 100 ms).
  void expect_no_more_outputs(std::size_t count) {
    std::this_thread::sleep_for(milliseconds(400));
    EXPECT_EQ(output_count(), count) << (output_count() > count ? last_output() : std::string());
  }

  bool log_shows(const std::string& what) {
    const auto until = std::chrono::steady_clock::now() + wait_long;
    for (;;) {
      if (read_file(log_of(starts_)).find(what) != std::string::npos) return true;
      if (std::chrono::steady_clock::now() >= until) return false;
      std::this_thread::sleep_for(milliseconds(10));
    }
  }
};

// ---- Rule 2: destinations -----------------------------------------------------------------------------

TEST_F(flows_e2e, dfs064_unknown_transaction_code_is_answered_as_output_data) {
  start_flows();
  // CM0 on a synchronized Tpipe: ACKed, the input logged (its number used), DFS064 through the queue with
  // the next recoverable send number ([D], docs/design/otma.md).
  auto r = exchange(make_input("MQTP1", "BADTRAN SOMETHING", 1));
  EXPECT_TRUE(r.ack);
  EXPECT_EQ(last_output(), "DFS064 DESTINATION CAN NOT BE FOUND OR CREATED, DEST=BADTRAN\n");
  EXPECT_TRUE(last_message().mci.response_requested());
  EXPECT_EQ(last_output_rsn(), 1u);
  // CM1: ACKed, DFS064 as the reply.
  r = exchange(make_input("CM1TP", "NOSUCH  X", 0));
  EXPECT_TRUE(r.ack);
  EXPECT_EQ(last_output(), "DFS064 DESTINATION CAN NOT BE FOUND OR CREATED, DEST=NOSUCH\n");
  // The recoverable number 1 was used: 2 is next.
  r = exchange(make_input("MQTP1", "ECHO    AFTER", 2));
  EXPECT_TRUE(r.ack);
  EXPECT_EQ(last_output(), "ECHO    AFTER\n");
  EXPECT_EQ(last_output_rsn(), 2u);
}

TEST_F(flows_e2e, dfs065_transaction_stopped_by_sto_tran_from_the_client_runs_again_after_sta_tran) {
  start_flows();
  EXPECT_EQ(command("/STO TRAN ECHO"), "DFS058I STOP COMMAND COMPLETED\n");
  EXPECT_EQ(line_starting(command("/DIS TRAN ECHO"), "DFS000I ECHO "), "DFS000I ECHO       1        0 STOP");
  auto r = exchange(make_input("MQTP1", "ECHO    STOPPED", 1));
  EXPECT_TRUE(r.ack);
  EXPECT_EQ(last_output(), "DFS065 TRAN/LTERM STOPPED ECHO\n");
  EXPECT_EQ(last_output_rsn(), 1u);
  r = exchange(make_input("CM1TP", "ECHO    STOPPED TOO", 0));
  EXPECT_TRUE(r.ack);
  EXPECT_EQ(last_output(), "DFS065 TRAN/LTERM STOPPED ECHO\n");
  EXPECT_TRUE(log_shows("DFS065 TRAN/LTERM STOPPED ECHO"));

  EXPECT_EQ(command("/STA TRAN ECHO"), "DFS058I START COMMAND COMPLETED\n");
  EXPECT_EQ(line_starting(command("/DIS TRAN ECHO"), "DFS000I ECHO "), "DFS000I ECHO       1        0");
  r = exchange(make_input("MQTP1", "ECHO    RUNS", 2));
  EXPECT_TRUE(r.ack);
  EXPECT_EQ(last_output(), "ECHO    RUNS\n");
  EXPECT_EQ(last_output_rsn(), 2u);
}

TEST_F(flows_e2e, sto_tmember_tpipe_keeps_cm0_output_queued_until_sta_tmember_tpipe) {
  start_flows();
  auto r = exchange(make_input("MQTP1", "ECHO    ONE", 1));
  EXPECT_TRUE(r.ack);
  EXPECT_EQ(last_output(), "ECHO    ONE\n");
  EXPECT_EQ(command(std::string("/STO TMEMBER ") + client_member + " TPIPE MQTP1"),
            "DFS058I STOP COMMAND COMPLETED\n");

  // What the engine does: input on a stopped Tpipe is still logged, ACKed and run; its CM0 output waits
  // on the Tpipe's queue and is not sent.
  const std::size_t before = output_count();
  r = exchange(make_input("MQTP1", "ECHO    HELD", 2), 0);
  EXPECT_TRUE(r.ack);
  expect_no_more_outputs(before);
  const std::string dis = command(std::string("/DIS TMEMBER ") + client_member + " TPIPE MQTP1");
  EXPECT_EQ(line_starting(dis, "DFS000I     MQTP1"),
            "DFS000I     MQTP1            2        1        1 SYN STO")
      << dis;

  // /STA: the command's answer first, then the output it releases, with the next send number.
  const std::size_t at = output_count();
  r = exchange(make_input("CMDTP", std::string("/STA TMEMBER ") + client_member + " TPIPE MQTP1", 0), 2);
  EXPECT_TRUE(r.ack);
  ASSERT_GE(output_count(), at + 2);
  EXPECT_EQ(all_text(output_at(at)), "DFS058I START COMMAND COMPLETED\n");
  EXPECT_EQ(all_text(output_at(at + 1)), "ECHO    HELD\n");
  EXPECT_EQ(tpipe::tpipe_of(output_at(at + 1)), "MQTP1");
  EXPECT_EQ(output_at(at + 1).mci.recoverable_seq, 2u);
  EXPECT_TRUE(client_->wait([&] { return client_->committed.size() >= 2; }));
}

TEST_F(flows_e2e, dfs1288e_lterm_name_as_transaction_code_is_naked_with_the_message_following) {
  start_flows();
  auto r = exchange(make_input("MQTP1", "IVTNOLT HELLO", 1));
  EXPECT_FALSE(r.ack);
  EXPECT_EQ(r.sense, otma::sense::unknown_destination);
  EXPECT_TRUE(r.error_message_follows);
  EXPECT_EQ(last_output(), "DFS1288E DESTINATION IVTNOLT IS AN LTERM, NOT A TRANSACTION\n");
  EXPECT_EQ(tpipe::tpipe_of(last_message()), "MQTP1");
  EXPECT_FALSE(last_message().mci.response_requested());
  // The NAKed input did not use its recoverable number.
  r = exchange(make_input("MQTP1", "ECHO    FIRST", 1));
  EXPECT_TRUE(r.ack);
  EXPECT_EQ(last_output(), "ECHO    FIRST\n");
}

// ---- Rule 3: commit mode and Tpipe ----------------------------------------------------------------------

TEST_F(flows_e2e, dfs1291e_fast_path_or_conversational_transaction_sent_cm0_is_naked_0007) {
  start_flows();
  for (const std::string text : {"FPECHO  FAST", "IVTCV   DISPLAY SMITH"}) {
    const auto r = exchange(make_input("MQTP1", text, 1));
    EXPECT_FALSE(r.ack) << text;
    EXPECT_EQ(r.sense, otma::sense::invalid_commit_mode) << text;
    EXPECT_TRUE(r.error_message_follows) << text;
    EXPECT_EQ(last_output(), "DFS1291E DESTINATION HAS AN INVALID COMMIT MODE\n") << text;
  }
  // The same Fast Path transaction sent CM1 runs.
  auto r = exchange(make_input("CM1TP", "FPECHO  FAST", 0));
  EXPECT_TRUE(r.ack);
  EXPECT_EQ(last_output(), "FPECHO  FAST\n");
  r = exchange(make_input("MQTP1", "ECHO    ONE", 1));
  EXPECT_TRUE(r.ack);
}

TEST_F(flows_e2e, sense_23_recoverable_number_on_an_unrecoverable_transaction_or_on_a_command) {
  start_flows();
  auto r = exchange(make_input("MQTP1", "ECHONR  A", 1), 0);
  EXPECT_FALSE(r.ack);
  EXPECT_EQ(r.sense, otma::sense::seq_not_recoverable);
  EXPECT_FALSE(r.error_message_follows);
  r = exchange(make_input("MQTP1", "/DIS OTMA", 1), 0);
  EXPECT_FALSE(r.ack);
  EXPECT_EQ(r.sense, otma::sense::seq_not_recoverable);
  expect_no_more_outputs(0);

  // Neither used the number; with 0 both run on the (now synchronized) Tpipe, their output unnumbered.
  r = exchange(make_input("MQTP1", "ECHO    B", 1));
  EXPECT_TRUE(r.ack);
  EXPECT_EQ(last_output_rsn(), 1u);
  r = exchange(cm0_unrecoverable("MQTP1", "ECHONR  C"));
  EXPECT_TRUE(r.ack);
  EXPECT_EQ(last_output(), "ECHONR  C\n");
  EXPECT_EQ(last_output_rsn(), 0u);
  r = exchange(cm0_unrecoverable("MQTP1", "/DIS TRAN ECHONR"));
  EXPECT_TRUE(r.ack);
  EXPECT_EQ(line_starting(last_output(), "DFS000I ECHONR"), "DFS000I ECHONR     1        0");
}

TEST_F(flows_e2e, sense_1c_cm1_on_a_synchronized_tpipe) {
  start_flows();
  auto r = exchange(make_input("MQTP1", "ECHO    SYNC", 1));
  EXPECT_TRUE(r.ack);
  const std::size_t count = output_count();
  // Any CM1 input on it, whatever the destination: a transaction, an unknown code (before DFS064), a
  // command [C: IMS-RS-SUMMARY].
  for (const std::string text : {"ECHO    CM1", "NOSUCH  CM1", "/DIS OTMA"}) {
    r = exchange(make_input("MQTP1", text, 0), 0);
    EXPECT_FALSE(r.ack) << text;
    EXPECT_EQ(r.sense, otma::sense::cm1_on_synchronized_tpipe) << text;
    EXPECT_FALSE(r.error_message_follows) << text;
  }
  expect_no_more_outputs(count);
  r = exchange(make_input("CM1TP", "ECHO    CM1", 0));
  EXPECT_TRUE(r.ack);
  EXPECT_EQ(last_output(), "ECHO    CM1\n");
}

TEST_F(flows_e2e, sense_11_sync_level_syncpt_needs_rrs_which_ims_has_not) {
  start_flows();
  const std::size_t count = output_count();
  otma::otma_message m = make_input("CM1TP", "ECHO    SYNCPT", 0);
  auto& sd = std::get<otma::transaction_state_data>(*m.state);
  sd.sync_flags = static_cast<std::uint8_t>((sd.sync_flags & ~otma::sync_flags::sync_level_mask) |
                                            otma::sync_flags::sync_level_syncpt);
  auto r = exchange(m, 0);
  EXPECT_FALSE(r.ack);
  EXPECT_EQ(r.sense, otma::sense::rrs_not_enabled);
  expect_no_more_outputs(count);
  // The same message with CONFIRM runs.
  r = exchange(make_input("CM1TP", "ECHO    CONFIRM", 0));
  EXPECT_TRUE(r.ack);
  EXPECT_EQ(last_output(), "ECHO    CONFIRM\n");
}

TEST_F(flows_e2e, sense_1f_recoverable_number_that_is_not_receive_plus_1_then_resync) {
  start_flows();
  auto r = exchange(make_input("MQTP1", "ECHO    ONE", 1));
  EXPECT_TRUE(r.ack);
  ASSERT_TRUE(client_->wait([&] { return client_->committed.size() >= 1; }));
  for (const std::uint32_t rsn : {3u, 1u}) {  // a gap, a repeat
    const std::size_t count = output_count();
    r = exchange(make_input("MQTP1", "ECHO    WRONG", rsn), 0);
    EXPECT_FALSE(r.ack) << rsn;
    EXPECT_EQ(r.sense, otma::sense::invalid_recoverable_seq) << rsn;
    // CM0 step 7 (docs/design/commit-modes.md): the client drops the session on X'1F', and the next bid
    // resyncs the Tpipe; IMS logged nothing of it, so both sides still agree on 1/1 and the client says
    // "continue".
    ASSERT_TRUE(client_->wait([&] { return client_->lost_count >= 1; })) << rsn;
    EXPECT_NE(client_->locked([&] { return client_->lost_reason; }).find("X'1F'"), std::string::npos);
    expect_no_more_outputs(count);
    reconnect_keeping_records();
    client_->locked([&] {
      ASSERT_EQ(client_->decisions.size(), 1u);
      EXPECT_EQ(client_->decisions[0].action, otma::represynch_action::continue_tpipe);
    });
  }
  r = exchange(make_input("MQTP1", "ECHO    TWO", 2));
  EXPECT_TRUE(r.ack);
  EXPECT_EQ(last_output(), "ECHO    TWO\n");
  EXPECT_EQ(last_output_rsn(), 2u);
  EXPECT_EQ(output_count(), 1u);  // nothing of the NAKed inputs, nothing sent again
}

// ---- Rule 4: security ---------------------------------------------------------------------------------

TEST_F(flows_e2e, dfs1292e_secure_otma_check_user_not_allowed_is_naked_the_allowed_user_runs) {
  start_flows({},
              "GROUP NAME=CLERKS,TRANS=(IVTNO,IVTCV),CMDS=(DIS)\n"
              "GROUP NAME=OPER,TRANS=(ECHO),CMDS=(DIS,STA,STO)\n"
              "USER ID=CLERK1,GROUPS=(CLERKS)\n"
              "USER ID=ADMIN,GROUPS=(CLERKS,OPER)\n"
              "/SECURE OTMA CHECK\n");
  for (const std::string user : {"CLERK1", ""}) {
    const auto r = exchange(make_input("CM1TP", "ECHO    NOT YOURS", 0, user));
    EXPECT_FALSE(r.ack) << user;
    EXPECT_EQ(r.sense, otma::sense::security_violation) << user;
    EXPECT_TRUE(r.error_message_follows) << user;
    EXPECT_EQ(last_output(), "DFS1292E SECURITY VIOLATION\n") << user;
  }
  auto r = exchange(make_input("CM1TP", "ECHO    BY ADMIN", 0, "ADMIN"));
  EXPECT_TRUE(r.ack);
  EXPECT_EQ(last_output(), "ECHO    BY ADMIN\n");
  r = exchange(make_input("CM1TP", phone_line("DISPLAY", "NOBODY"), 0, "CLERK1"));
  EXPECT_TRUE(r.ack);
  EXPECT_NE(last_output().find("SPECIFIED PERSON WAS NOT FOUND"), std::string::npos) << last_output();
  // Commands too: CLERK1 may display, not stop.
  r = exchange(make_input("CMDTP", "/STO TRAN IVTNO", 0, "CLERK1"));
  EXPECT_FALSE(r.ack);
  EXPECT_EQ(r.sense, otma::sense::security_violation);
  EXPECT_EQ(last_output(), "DFS1292E SECURITY VIOLATION\n");
  EXPECT_EQ(line_starting(command("/DIS TRAN IVTNO", "CLERK1"), "DFS000I IVTNO"),
            "DFS000I IVTNO      1        0");
}

// ---- CM1 and CM0 without a reply, CM1 backed out ----------------------------------------------------------

TEST_F(flows_e2e, dfs2082_cm1_transaction_whose_program_does_not_reply) {
  start_flows();
  // ALTOUT with REPLY=NO inserts to its ALTPCB only; the descriptor ALTDEST routes that to our Tpipe ALTTP.
  const std::string text = "ALTOUT  DEST=ALTDEST REPLY=NO HELLO";
  auto r = exchange(make_input("CM1TP", text, 0));
  EXPECT_TRUE(r.ack);
  // The first output, not the last: the client ACKs it at once, and the alternate output it releases may
  // already be here too by the time this thread looks.
  ASSERT_TRUE(client_->wait([&] { return !client_->commits.empty() && client_->outputs.size() >= 2; }));
  EXPECT_EQ(all_text(output_at(0)), "DFS2082 RESPONSE MODE TRANSACTION TERMINATED WITHOUT REPLY\n");
  EXPECT_EQ(tpipe::tpipe_of(output_at(0)), "CM1TP");
  // Our ACK commits the run: commit confirmation "committed", and then the alternate output is sent.
  EXPECT_TRUE(client_->locked([&] { return client_->commits[0]; }));
  EXPECT_EQ(tpipe::tpipe_of(output_at(1)), "ALTTP");
  EXPECT_EQ(all_text(output_at(1)), text + "\n");

  // CM0: no DFS2082 unless the client asks for it with server state X'40' [C: IIH-FLAGS].
  r = exchange(make_input("MQTP1", text, 1));
  EXPECT_TRUE(r.ack);
  EXPECT_EQ(tpipe::tpipe_of(last_message()), "ALTTP");
  expect_no_more_outputs(3);
  otma_message asks = make_input("MQTP1", text, 2);
  state_of(asks).server_state = otma::server_state::cm0_dfs2082;
  r = exchange(asks, 2);
  EXPECT_TRUE(r.ack);
  bool dfs2082 = false;
  for (std::size_t i = 3; i < output_count(); ++i) {
    const otma_message m = output_at(i);
    if (tpipe::tpipe_of(m) != "MQTP1") continue;
    dfs2082 = all_text(m) == "DFS2082 RESPONSE MODE TRANSACTION TERMINATED WITHOUT REPLY\n";
    EXPECT_EQ(m.mci.recoverable_seq, 1u);  // the Tpipe's first output
  }
  EXPECT_TRUE(dfs2082);
}

TEST_F(flows_e2e, dfs554_cm1_output_naked_by_the_client_backs_out_the_run) {
  start_flows();
  client_->locked([&] { client_->auto_ack = false; });
  auto r = exchange(make_input("CM1TP", phone_line("ADD", "BROWN", "ANN", "77", "10001"), 0));
  EXPECT_TRUE(r.ack);
  EXPECT_NE(last_output().find("ENTRY WAS ADDED"), std::string::npos) << last_output();
  const otma_message reply = last_message();
  ASSERT_TRUE(reply.mci.response_requested());
  client_->nak_output(reply, otma::sense::invalid_message);

  ASSERT_TRUE(client_->wait([&] { return !client_->commits.empty() && client_->outputs.size() >= 2; }));
  EXPECT_FALSE(client_->locked([&] { return client_->commits[0]; }));  // "aborted"
  EXPECT_EQ(last_output(), "DFS554A IVTNO ABEND U0119\n");
  EXPECT_TRUE(log_shows("DFS554A IMSA IVTNO IVTNO ABEND U0119"));

  // The ADD was backed out.
  client_->locked([&] { client_->auto_ack = true; });
  r = exchange(make_input("CM1TP", phone_line("DISPLAY", "BROWN"), 0));
  EXPECT_TRUE(r.ack);
  EXPECT_NE(last_output().find("SPECIFIED PERSON WAS NOT FOUND"), std::string::npos) << last_output();
}

// ---- /DEQUEUE of output held after NAKs -----------------------------------------------------------------

TEST_F(flows_e2e, dequeue_purge1_and_purge_discard_cm0_output_held_after_naks) {
  start_flows();
  client_->locked([&] { client_->auto_ack = false; });
  auto r = exchange(make_input("MQTP1", "ECHO    ONE", 1));
  EXPECT_TRUE(r.ack);
  EXPECT_EQ(last_output(), "ECHO    ONE\n");
  client_->nak_output(last_message(), otma::sense::invalid_message);
  EXPECT_TRUE(log_shows("NAKed by MQCLIENT (sense"));
  // Held ([C: IMS-CTS-FLOW]: a NAK returns it to the queue): what comes after waits behind it.
  r = exchange(make_input("MQTP1", "ECHO    TWO", 2), 0);
  EXPECT_TRUE(r.ack);
  r = exchange(make_input("MQTP1", "ECHO    THREE", 3), 0);
  EXPECT_TRUE(r.ack);
  expect_no_more_outputs(1);
  const std::string dis_tpipe = std::string("/DIS TMEMBER ") + client_member + " TPIPE MQTP1";
  EXPECT_EQ(line_starting(command(dis_tpipe), "DFS000I     MQTP1"),
            "DFS000I     MQTP1            3        0        3 SYN");

  // PURGE1: the first (ONE) goes; TWO is sent with the send number ONE never used.
  const std::string deq = std::string("/DEQUEUE TMEMBER ") + client_member + " TPIPE MQTP1 ";
  std::size_t at = output_count();
  r = exchange(make_input("CMDTP", deq + "PURGE1", 0), 2);
  EXPECT_TRUE(r.ack);
  ASSERT_GE(output_count(), at + 2);
  EXPECT_EQ(
      all_text(output_at(at)),
      "DFS058I DEQUEUE COMMAND COMPLETED\nIMB5065I 1 OUTPUT MESSAGE(S) DEQUEUED FROM MQCLIENT TPIPE MQTP1\n");
  EXPECT_EQ(all_text(output_at(at + 1)), "ECHO    TWO\n");
  EXPECT_EQ(output_at(at + 1).mci.recoverable_seq, 1u);
  // NAKed again: held again (the NAK reaches IMS before the command, on the same ordered stream).
  client_->nak_output(output_at(at + 1), otma::sense::invalid_message);

  // PURGE: everything left (TWO, held, and THREE) goes.
  EXPECT_EQ(
      command(deq + "PURGE"),
      "DFS058I DEQUEUE COMMAND COMPLETED\nIMB5065I 2 OUTPUT MESSAGE(S) DEQUEUED FROM MQCLIENT TPIPE MQTP1\n");
  EXPECT_EQ(line_starting(command(dis_tpipe), "DFS000I     MQTP1"),
            "DFS000I     MQTP1            3        3        0 SYN");

  // The Tpipe goes on: the next output is the first the client commits, send number 1.
  client_->locked([&] { client_->auto_ack = true; });
  at = output_count();
  r = exchange(make_input("MQTP1", "ECHO    FOUR", 4));
  EXPECT_TRUE(r.ack);
  EXPECT_EQ(last_output(), "ECHO    FOUR\n");
  EXPECT_EQ(last_output_rsn(), 1u);
  expect_no_more_outputs(at + 1);
  client_->locked([&] {
    ASSERT_EQ(client_->committed.size(), 1u);
    EXPECT_EQ(client_->committed[0], "ECHO    FOUR\n");
  });
}

// ---- /DISPLAY ---------------------------------------------------------------------------------------------

TEST_F(flows_e2e, dis_tran_plain_lists_class_queue_count_and_status) {
  start_flows();
  EXPECT_EQ(command("/STO TRAN ECHO"), "DFS058I STOP COMMAND COMPLETED\n");
  EXPECT_EQ(command("/DIS TRAN IVTNO ECHO NOSUCH"),
            "DFS000I TRAN     CLS      QCT STATUS\n"
            "DFS000I IVTNO      1        0\n"
            "DFS000I ECHO       1        0 STOP\n"
            "DFS000I     NOSUCH IS INVALID\n");
}

TEST_F(flows_e2e, dis_tran_architected_with_extended_response_requested) {
  start_flows();
  EXPECT_EQ(command("/STO TRAN ECHO"), "DFS058I STOP COMMAND COMPLETED\n");
  // [C: IMS-DISTRAN]: MCI+2 X'10'; one Transaction Attributes Segment per transaction.
  otma_message m = make_input("CMDTP", "/DIS TRAN IVTNO IVTCV ECHO ECHONR FPECHO NOSUCH", 0);
  m.mci.response_flag = otma::response::extended_requested;
  const auto r = exchange(m);
  EXPECT_TRUE(r.ack);
  const otma_message out = last_message();
  struct want {
    const char* code;
    std::uint8_t flag1, flag2, status;
  };
  // flag 1: X'08' Fast Path exclusive, X'FF' not found; flag 2: X'80' response, X'40' conversational,
  // X'20' update capability (recoverable), X'10' irrecoverable; status X'80' stopped.
  const want wants[] = {{"IVTNO", 0x00, 0x20, 0x00},  {"IVTCV", 0x00, 0x60, 0x00},
                        {"ECHO", 0x00, 0xA0, 0x80},   {"ECHONR", 0x00, 0x90, 0x00},
                        {"FPECHO", 0x08, 0xA0, 0x00}, {"NOSUCH", 0xFF, 0x00, 0x00}};
  const auto& segs = out.segments();
  ASSERT_EQ(segs.size(), std::size(wants)) << all_text(out);
  for (std::size_t i = 0; i < segs.size(); ++i) {
    const bytes& d = segs[i].data;
    ASSERT_EQ(d.size(), 11u) << i;
    EXPECT_EQ(text_of(bytes(d.begin(), d.begin() + 8)), codepage::pad_field(wants[i].code, 8));
    EXPECT_EQ(d[8], wants[i].flag1) << wants[i].code;
    EXPECT_EQ(d[9], wants[i].flag2) << wants[i].code;
    EXPECT_EQ(d[10], wants[i].status) << wants[i].code;
  }
}

TEST_F(flows_e2e, dis_otma_shows_the_group_the_server_and_the_client) {
  start_flows();
  const std::string dis = command("/DIS OTMA");
  const auto lines = lines_of(dis);
  ASSERT_GE(lines.size(), 4u) << dis;
  EXPECT_EQ(lines[0], "DFS000I GROUP/MEMBER      XCF-STATUS   USER-STATUS    SECURITY TIB   INPT");
  EXPECT_EQ(lines[1], "DFS000I XCFGRP1");
  EXPECT_EQ(lines[2], "DFS000I -IMSA             ACTIVE       SERVER         NONE");
  EXPECT_EQ(line_starting(dis, "DFS000I -MQCLIENT"),
            "DFS000I -MQCLIENT         ACTIVE       ACCEPT TRAFFIC NONE     0     5000");
  EXPECT_NE(line_starting(dis, std::string(imsb::msg::IMB5064I) + " SERVER STATE NORMAL TIB 0/"), "") << dis;
}

TEST_F(flows_e2e, dis_tmember_tpipe_shows_the_member_and_the_tpipe_counts) {
  start_flows();
  auto r = exchange(make_input("MQTP1", "ECHO    ONE", 1));
  EXPECT_TRUE(r.ack);
  // Our ACK goes out inside on_output, under the link's lock, so before the command below, on the same
  // ordered XCF stream.
  ASSERT_TRUE(client_->wait([&] { return client_->committed.size() >= 1; }));
  const std::string dis = command(std::string("/DIS TMEMBER ") + client_member + " TPIPE MQTP1");
  EXPECT_EQ(dis,
            "DFS000I MEMBER/TPIPE  ENQCT  DEQCT  QCT  STATUS\n"
            "DFS000I MQCLIENT                                 ACCEPT TRAFFIC\n"
            "DFS000I     MQTP1            1        1        0 SYN\n");
  EXPECT_EQ(line_starting(command(std::string("/DIS TMEMBER ") + client_member + " TPIPE NOTP"),
                          "DFS000I     NOTP"),
            "DFS000I     NOTP IS INVALID");
}

TEST_F(flows_e2e, command_output_does_not_echo_the_clients_user_data) {
  start_flows();
  const bytes ours = user_bytes("OUR USER DATA 0123456789");
  // A transaction's output returns the user data unchanged [C: IMS-USR] ...
  otma_message echo = make_input("CM1TP", "ECHO    WITH USER DATA", 0);
  echo.user = otma::user_data{ours};
  auto r = exchange(echo);
  EXPECT_TRUE(r.ack);
  ASSERT_TRUE(last_message().user.has_value());
  EXPECT_EQ(last_message().user->body, ours);
  // ... a command's does not: the prefixes are not replicated [C: IMS-CMDS].
  otma_message cmd = make_input("CMDTP", "/DIS OTMA", 0);
  cmd.user = otma::user_data{ours};
  r = exchange(cmd);
  EXPECT_TRUE(r.ack);
  EXPECT_NE(last_output().find("DFS000I -MQCLIENT"), std::string::npos) << last_output();
  const otma_message out = last_message();
  EXPECT_TRUE(!out.user.has_value() || out.user->body != ours);
}

// ---- Rule 6: MAXTP ----------------------------------------------------------------------------------------

TEST_F(flows_e2e, maxtp_a_tpipe_beyond_the_members_limit_is_naked_0002_with_dfs4383e) {
  start_flows(",MAXTP=2");
  for (const char* tp : {"TP1", "TP2"}) {
    const auto r = exchange(make_input(tp, "ECHO    OK", 0));
    EXPECT_TRUE(r.ack) << tp;
  }
  const std::size_t count = output_count();
  auto r = exchange(make_input("TP3", "ECHO    ONE TOO MANY", 0), 0);
  EXPECT_FALSE(r.ack);
  EXPECT_EQ(r.sense, otma::sense::unknown_destination);
  EXPECT_FALSE(r.error_message_follows);
  expect_no_more_outputs(count);
  ASSERT_TRUE(log_shows("DFS4383E"));
  const std::string line = line_starting(read_file(log_of(1)), "DFS4383E");
  EXPECT_NE(line.find(" 2 "), std::string::npos) << line;  // the limit
  EXPECT_NE(line.find(client_member), std::string::npos) << line;
  // The Tpipes it has go on working.
  r = exchange(make_input("TP1", "ECHO    AGAIN", 0));
  EXPECT_TRUE(r.ack);
  EXPECT_EQ(last_output(), "ECHO    AGAIN\n");
}

}  // namespace
}  // namespace imsb::test
