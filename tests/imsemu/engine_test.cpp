// The engine driven through a real tpipe::server_session against a tpipe::client_session, their send()
// callbacks wired to each other's receive() through a queue (no XCF), with a temporary state folder.

#include "imsb/imsemu/engine.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <deque>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "engine_rig.hpp"
#include "imsb/codepage/codepage.hpp"
#include "imsb/core/messages.hpp"
#include "imsb/otma/message.hpp"
#include "imsb/tpipe/client_session.hpp"
#include "imsb/tpipe/protocol.hpp"
#include "imsb/tpipe/server_session.hpp"

namespace imsb::imsemu {
namespace {

using namespace test_rig;  // NOLINT: the rig reads as part of each test

TEST_F(engine_test, bid_is_accepted_and_the_client_gets_ready) {
  open_engine();
  connect();
  EXPECT_TRUE(console_has(imsb::msg::IMB5022I));
  EXPECT_TRUE(console_has(imsb::msg::IMB5024I));
  EXPECT_EQ(client_->bid_rejected, 0);
}

TEST_F(engine_test, ivtno_add_then_display_in_cm0) {
  open_engine();
  connect();
  send(make_input("MQTP1", phone_line("IVTNO", "ADD", "SMITH", "JOHN", "1234", "95000"), cm0_sync(1)));
  ASSERT_EQ(client_->responses.size(), 1u);
  EXPECT_TRUE(last_response().ack);
  ASSERT_EQ(client_->outputs.size(), 1u);
  EXPECT_NE(last_output_text().find("ENTRY WAS ADDED"), std::string::npos) << last_output_text();
  EXPECT_EQ(client_->outputs.back().mci.recoverable_seq, 1u);

  send(make_input("MQTP1", phone_line("IVTNO", "DISPLAY", "SMITH"), cm0_sync(2)));
  ASSERT_EQ(client_->outputs.size(), 2u);
  const std::string reply = last_output_text();
  EXPECT_NE(reply.find("ENTRY WAS DISPLAYED"), std::string::npos) << reply;
  EXPECT_NE(reply.find("JOHN"), std::string::npos) << reply;
  EXPECT_NE(reply.find("1234"), std::string::npos) << reply;

  const journal_state& js = engine_->log().state();
  EXPECT_EQ(js.runs.size(), 2u);
  const auto& tp = js.tpipes.at({client_name, "MQTP1"});
  EXPECT_TRUE(tp.synchronized);
  EXPECT_EQ(tp.recv_rsn, 2u);
  EXPECT_EQ(tp.send_rsn, 2u);
  EXPECT_EQ(queued("MQTP1"), 0u);
  EXPECT_EQ(engine_->active_inputs(client_name), 0u);
}

TEST_F(engine_test, cm1_echo_with_commit_confirmation) {
  open_engine();
  connect();
  send(make_input("CM1TP", "ECHO    HELLO WORLD", cm1_plain()));
  ASSERT_EQ(client_->responses.size(), 1u);
  EXPECT_TRUE(last_response().ack);
  ASSERT_EQ(client_->outputs.size(), 1u);
  EXPECT_TRUE(client_->outputs.back().mci.response_requested());
  EXPECT_EQ(last_output_text(), "ECHO    HELLO WORLD\n");
  ASSERT_EQ(client_->commits.size(), 1u);
  EXPECT_TRUE(client_->commits[0].committed);
  EXPECT_EQ(client_->commits[0].tpipe, "CM1TP");
  EXPECT_EQ(engine_->log().state().runs.size(), 1u);
  EXPECT_EQ(engine_->log().state().runs.back().outcome, "OK");
}

TEST_F(engine_test, cm1_output_nak_backs_out_with_dfs554) {
  open_engine();
  connect();
  client_->auto_ack = false;
  send(make_input("CM1TP", phone_line("IVTNO", "ADD", "BROWN", "ANN", "77", "1"), cm1_plain()));
  ASSERT_EQ(client_->outputs.size(), 1u);
  client_->session->nak_output(client_->outputs.back(), 0x0001);
  pump();
  ASSERT_EQ(client_->commits.size(), 1u);
  EXPECT_FALSE(client_->commits[0].committed);
  EXPECT_NE(last_output_text().find("DFS554"), std::string::npos);
  EXPECT_FALSE(engine_->log().state().phonebook.find("BROWN").has_value());
}

TEST_F(engine_test, unknown_trancode_gets_dfs064_as_output) {
  open_engine();
  connect();
  send(make_input("MQTP1", "BADTRAN SOMETHING", cm0_sync(1)));
  ASSERT_EQ(client_->responses.size(), 1u);
  EXPECT_TRUE(last_response().ack);
  ASSERT_EQ(client_->outputs.size(), 1u);
  EXPECT_EQ(last_output_text(), "DFS064 DESTINATION CAN NOT BE FOUND OR CREATED, DEST=BADTRAN\n");
  EXPECT_TRUE(client_->outputs.back().mci.response_requested());
  EXPECT_EQ(engine_->log().state().tpipes.at({client_name, "MQTP1"}).recv_rsn, 1u);
}

TEST_F(engine_test, lterm_destination_is_naked_with_dfs1288e) {
  open_engine();
  connect();
  send(make_input("MQTP1", "IVTNOLT HELLO", cm0_sync(1)));
  ASSERT_EQ(client_->responses.size(), 1u);
  EXPECT_FALSE(last_response().ack);
  EXPECT_EQ(last_response().sense, otma::sense::unknown_destination);
  EXPECT_TRUE(last_response().error_message_follows);
  ASSERT_EQ(client_->outputs.size(), 1u);
  EXPECT_EQ(last_output_text().rfind("DFS1288E", 0), 0u) << last_output_text();
  EXPECT_TRUE(engine_->log().state().runs.empty());
}

TEST_F(engine_test, cm1_on_synchronized_tpipe_is_naked_1c) {
  open_engine();
  connect();
  input_options o = cm1_plain();
  o.synchronized = true;
  send(make_input("MQTP1", "ECHO    X", o));
  ASSERT_EQ(client_->responses.size(), 1u);
  EXPECT_FALSE(last_response().ack);
  EXPECT_EQ(last_response().sense, 0x001C);
  EXPECT_TRUE(client_->outputs.empty());
}

TEST_F(engine_test, recoverable_number_out_of_order_is_naked_1f) {
  open_engine();
  connect();
  send(make_input("MQTP1", "ECHO    X", cm0_sync(5)));
  ASSERT_EQ(client_->responses.size(), 1u);
  EXPECT_FALSE(last_response().ack);
  EXPECT_EQ(last_response().sense, 0x001F);
}

TEST_F(engine_test, fast_path_with_cm0_is_naked_with_dfs1291e) {
  ims::transaction_def fp;
  fp.code = "FPECHO";
  fp.program = "ECHO";
  fp.fast_path = true;
  defs_.transactions["FPECHO"] = fp;
  open_engine();
  connect();
  send(make_input("MQTP1", "FPECHO  X", cm0_sync(1)));
  ASSERT_EQ(client_->responses.size(), 1u);
  EXPECT_FALSE(last_response().ack);
  EXPECT_EQ(last_response().sense, otma::sense::invalid_commit_mode);
  EXPECT_TRUE(last_response().error_message_follows);
  ASSERT_EQ(client_->outputs.size(), 1u);
  EXPECT_EQ(last_output_text(), "DFS1291E DESTINATION HAS AN INVALID COMMIT MODE\n");
}

TEST_F(engine_test, security_check_rejects_a_user_not_allowed_with_dfs1292e) {
  defs_.security = ims::otma_security::check;
  ims::user_def u;
  u.id = "USER1";
  u.transactions = {"IVTNO"};
  defs_.users["USER1"] = u;
  open_engine();
  connect();
  input_options o = cm1_plain();
  o.user = "USER1";
  send(make_input("CM1TP", "ECHO    X", o));
  ASSERT_EQ(client_->responses.size(), 1u);
  EXPECT_FALSE(last_response().ack);
  EXPECT_EQ(last_response().sense, otma::sense::security_violation);
  ASSERT_EQ(client_->outputs.size(), 1u);
  EXPECT_EQ(last_output_text(), "DFS1292E SECURITY VIOLATION\n");
  // The same user may run IVTNO.
  send(make_input("CM1TP", phone_line("IVTNO", "DISPLAY", "NOBODY"), o));
  ASSERT_EQ(client_->responses.size(), 2u);
  EXPECT_TRUE(last_response().ack);
  EXPECT_NE(last_output_text().find("SPECIFIED PERSON WAS NOT FOUND"), std::string::npos);
}

TEST_F(engine_test, flood_limit_naks_30_and_relief_after_the_runs) {
  defs_.tib_limit = 2;
  open_engine();
  connect();
  engine_->fault_settings().hold_runs = true;
  send(make_input("MQTP1", "ECHO    ONE", cm0_sync(1)));
  send(make_input("MQTP1", "ECHO    TWO", cm0_sync(2)));
  ASSERT_EQ(client_->responses.size(), 2u);
  EXPECT_TRUE(client_->responses[0].ack);
  EXPECT_TRUE(client_->responses[1].ack);
  EXPECT_EQ(engine_->active_inputs(client_name), 2u);
  EXPECT_TRUE(console_has("DFS1988W"));
  send(make_input("MQTP1", "ECHO    THREE", cm0_sync(3)));
  ASSERT_EQ(client_->responses.size(), 3u);
  EXPECT_FALSE(last_response().ack);
  EXPECT_EQ(last_response().sense, otma::sense::flood);
  EXPECT_TRUE(console_has("DFS1989E"));
  EXPECT_TRUE(client_->outputs.empty());
  ASSERT_FALSE(client_->server_states.empty());
  EXPECT_EQ(client_->server_states.back(), otma::server_status::degraded);  // X'3C' at 80% [D]

  engine_->fault_settings().hold_runs = false;
  engine_->tick(now_);
  pump();
  EXPECT_EQ(engine_->active_inputs(client_name), 0u);
  ASSERT_EQ(client_->outputs.size(), 2u);
  EXPECT_EQ(all_text(client_->outputs[0]), "ECHO    ONE\n");
  EXPECT_EQ(all_text(client_->outputs[1]), "ECHO    TWO\n");
  EXPECT_TRUE(console_has("DFS0767I"));
  EXPECT_EQ(client_->server_states.back(), otma::server_status::normal);
  // The rejected input can be sent again now, with the same recoverable number.
  send(make_input("MQTP1", "ECHO    THREE", cm0_sync(3)));
  EXPECT_TRUE(last_response().ack);
}

TEST_F(engine_test, warm_restart_resends_the_unacked_output_exactly_once) {
  open_engine();
  connect();
  client_->auto_ack = false;
  send(make_input("MQTP1", phone_line("IVTNO", "ADD", "SMITH", "JOHN", "1234", "95000"), cm0_sync(1)));
  ASSERT_EQ(client_->outputs.size(), 1u);
  EXPECT_EQ(engine_->log().state().runs.size(), 1u);

  close_engine();  // the output was sent and not ACKed
  client_->auto_ack = true;
  open_engine();
  EXPECT_TRUE(console_has(imsb::msg::IMB5020I));
  connect();
  ASSERT_EQ(client_->decisions.size(), 1u);
  EXPECT_EQ(client_->decisions[0].action, otma::represynch_action::continue_tpipe);
  ASSERT_EQ(client_->outputs.size(), 2u);
  EXPECT_NE(all_text(client_->outputs[1]).find("ENTRY WAS ADDED"), std::string::npos);
  EXPECT_EQ(client_->outputs[1].mci.recoverable_seq, 1u);
  pump();
  engine_->tick(now_);
  pump();
  EXPECT_EQ(client_->outputs.size(), 2u);  // not a third time
  EXPECT_EQ(engine_->log().state().runs.size(), 1u);
  EXPECT_EQ(engine_->log().state().tpipes.at({client_name, "MQTP1"}).send_rsn, 1u);

  // The entry survives the restart, and the Tpipe goes on with the next numbers.
  send(make_input("MQTP1", phone_line("IVTNO", "DISPLAY", "SMITH"), cm0_sync(2)));
  EXPECT_TRUE(last_response().ack);
  ASSERT_EQ(client_->outputs.size(), 3u);
  EXPECT_NE(last_output_text().find("JOHN"), std::string::npos) << last_output_text();
  EXPECT_EQ(engine_->log().state().runs.size(), 2u);
}

TEST_F(engine_test, resync_dequeue_last_output_drops_the_held_output) {
  open_engine();
  connect();
  client_->auto_ack = false;
  send(make_input("MQTP1", "ECHO    ONCE", cm0_sync(1)));
  ASSERT_EQ(client_->outputs.size(), 1u);
  // The client committed the output, but its ACK never reached IMS.
  client_->records["MQTP1"].receive = client_->outputs.back().mci.recoverable_seq;
  close_engine();
  client_->auto_ack = true;
  open_engine();
  connect();
  ASSERT_EQ(client_->decisions.size(), 1u);
  EXPECT_EQ(client_->decisions[0].action, otma::represynch_action::dequeue_last_output);
  EXPECT_EQ(client_->outputs.size(), 1u);
  const auto& js = engine_->log().state();
  EXPECT_EQ(queued("MQTP1"), 0u);
  EXPECT_EQ(js.tpipes.at({client_name, "MQTP1"}).send_rsn, 1u);
}

TEST_F(engine_test, queued_input_not_run_is_run_at_warm_restart) {
  open_engine();
  connect();
  engine_->fault_settings().hold_runs = true;
  send(make_input("MQTP1", "ECHO    LATER", cm0_sync(1)));
  EXPECT_TRUE(last_response().ack);
  EXPECT_TRUE(engine_->log().state().runs.empty());
  close_engine();
  open_engine();
  EXPECT_EQ(engine_->log().state().runs.size(), 1u);
  connect();
  ASSERT_EQ(client_->outputs.size(), 1u);
  EXPECT_EQ(last_output_text(), "ECHO    LATER\n");
}

TEST_F(engine_test, ivtcv_three_step_conversation) {
  open_engine();
  connect();
  send(make_input("CONVTP", phone_line("IVTCV", "DISPLAY", "JONES"), cm1_plain()));
  ASSERT_EQ(client_->outputs.size(), 1u);
  EXPECT_NE(last_output_text().find("SPECIFIED PERSON WAS NOT FOUND"), std::string::npos)
      << last_output_text();
  const auto* sd1 = std::get_if<otma::transaction_state_data>(&*client_->outputs.back().state);
  ASSERT_NE(sd1, nullptr);
  EXPECT_NE(sd1->server_state & otma::server_state::conversational, 0);
  const auto token = sd1->server_token;
  EXPECT_NE(token, otma::raw_bytes<16>{});

  auto next = [&](const std::string& text) {
    otma_message m = make_input("CONVTP", text, cm1_plain());
    m.mci.message_type = otma::msg_type::data;  // later input of a conversation [C: ICON-MCI]
    auto& sd = std::get<otma::transaction_state_data>(*m.state);
    sd.server_state = otma::server_state::conversational;
    sd.server_token = token;
    return m;
  };
  send(next(phone_line("IVTCV", "ADD", "JONES")));
  ASSERT_EQ(client_->outputs.size(), 2u);
  EXPECT_NE(last_output_text().find("ENTER FIRST NAME, EXTENSION AND ZIP"), std::string::npos);
  send(next(phone_line("IVTCV", "", "", "MARY", "5555", "12345")));
  ASSERT_EQ(client_->outputs.size(), 3u);
  EXPECT_NE(last_output_text().find("ENTRY WAS ADDED"), std::string::npos) << last_output_text();
  const auto* sd3 = std::get_if<otma::transaction_state_data>(&*client_->outputs.back().state);
  ASSERT_NE(sd3, nullptr);
  EXPECT_EQ(sd3->server_state & otma::server_state::conversational, 0);
  EXPECT_EQ(client_->commits.size(), 3u);
  ASSERT_TRUE(engine_->log().state().phonebook.find("JONES").has_value());
  EXPECT_EQ(engine_->log().state().phonebook.find("JONES")->first_name, "MARY");
  EXPECT_TRUE(console_has(imsb::msg::IMB5034I));

  // The conversation is over: its token no longer answers.
  send(next(phone_line("IVTCV", "DISPLAY", "JONES")));
  EXPECT_FALSE(last_response().ack);
  EXPECT_EQ(last_response().sense, otma::sense::invalid_message);
}

TEST_F(engine_test, conversation_input_needs_its_token_and_deallocate_ends_it) {
  open_engine();
  connect();
  send(make_input("CONVTP", phone_line("IVTCV", "ADD", "KING"), cm1_plain()));
  ASSERT_EQ(client_->outputs.size(), 1u);
  const auto token = std::get<otma::transaction_state_data>(*client_->outputs.back().state).server_token;
  // A new transaction on the Tpipe without the token: NAK 0x0001 ([D], docs/design/otma.md).
  send(make_input("CONVTP", "ECHO    X", cm1_plain()));
  EXPECT_FALSE(last_response().ack);
  EXPECT_EQ(last_response().sense, otma::sense::invalid_message);
  client_->session->send_deallocate("CONVTP", token);
  pump();
  EXPECT_TRUE(console_has("ended by deallocate"));
  send(make_input("CONVTP", "ECHO    X", cm1_plain()));
  EXPECT_TRUE(last_response().ack);
}

TEST_F(engine_test, showotma_shows_the_fields_sent) {
  open_engine();
  connect();
  input_options o = cm1_plain();
  o.user = "USER1";
  o.group = "GRP1";
  o.security_flag = otma::security_flag::check;
  o.utoken = true;
  o.lterm = "LT01";
  send(make_input("SHOWTP", "SHOWOTMA", o));
  ASSERT_EQ(client_->outputs.size(), 1u);
  const std::string t = last_output_text();
  for (const char* want :
       {"TRAN=SHOWOTMA", "COMMITMODE=1", "SYNCLEVEL=CONFIRM", "TPIPE=SHOWTP", "SYNCHRONIZED=N", "LTERM=LT01",
        "USERID=USER1", "GROUP=GRP1", "SECFLAG=C", "TOKEN=NOTVERIFIED", "SEGMENTS=1", "LENGTHS=12"}) {
    EXPECT_NE(t.find(want), std::string::npos) << want << " not in\n" << t;
  }
}

TEST_F(engine_test, command_from_a_client_and_the_operator) {
  open_engine();
  connect();
  send(make_input("CMDTP", "/STO TRAN ECHO", cm1_plain()));
  EXPECT_TRUE(last_response().ack);
  ASSERT_FALSE(client_->outputs.empty());
  send(make_input("MQTP1", "ECHO    X", cm0_sync(1)));
  EXPECT_TRUE(last_response().ack);
  EXPECT_EQ(last_output_text().rfind("DFS065", 0), 0u) << last_output_text();
  const auto lines = engine_->operator_command("/STA TRAN ECHO");
  EXPECT_FALSE(lines.empty());
  send(make_input("MQTP1", "ECHO    Y", cm0_sync(2)));
  EXPECT_EQ(last_output_text(), "ECHO    Y\n");
  // A command on a synchronized Tpipe with a recoverable number: NAK X'23' [C: IMS-RESYNC].
  send(make_input("MQTP1", "/DIS OTMA", cm0_sync(3)));
  EXPECT_FALSE(last_response().ack);
  EXPECT_EQ(last_response().sense, otma::sense::seq_not_recoverable);
}

TEST_F(engine_test, output_nak_keeps_the_output_until_the_next_session) {
  open_engine();
  connect();
  client_->auto_ack = false;
  send(make_input("MQTP1", "ECHO    KEPT", cm0_sync(1)));
  ASSERT_EQ(client_->outputs.size(), 1u);
  client_->session->nak_output(client_->outputs.back(), 0x0001);
  pump();
  engine_->tick(now_);
  pump();
  EXPECT_EQ(client_->outputs.size(), 1u);  // kept, not re-sent at once
  EXPECT_EQ(queued("MQTP1"), 1u);
  // A new session (resync) sends it again.
  client_->auto_ack = true;
  client_->session->server_gone("test");
  server_->client_gone(client_name, "test");
  connect();
  ASSERT_EQ(client_->outputs.size(), 2u);
  EXPECT_EQ(last_output_text(), "ECHO    KEPT\n");
  EXPECT_EQ(queued("MQTP1"), 0u);
}

TEST_F(engine_test, bid_with_a_bad_member_name_is_rejected) {
  open_engine();
  otma_message bid = tpipe::make_client_bid(
      [] {
        tpipe::bid_params p;
        p.member = "DFSBAD";
        return p;
      }(),
      false);
  auto enc = otma::encode_message(bid);
  ASSERT_TRUE(enc.ok());
  server_->receive("DFSBAD", *enc, now_);
  ASSERT_FALSE(wire_.empty());
  auto answer = otma::decode_message(wire_.back().second);
  ASSERT_TRUE(answer.ok());
  EXPECT_EQ(tpipe::classify(*answer, false), tpipe::message_kind::bid_nak);
  EXPECT_EQ(answer->mci.sense_code, otma::sense::invalid_name);
}

TEST_F(engine_test, maxtp_rejects_a_new_tpipe_beyond_the_limit) {
  defs_.maxtp = 1;
  open_engine();
  connect();
  send(make_input("MQTP1", "ECHO    A", cm0_sync(1)));
  EXPECT_TRUE(last_response().ack);
  send(make_input("MQTP2", "ECHO    B", cm0_sync(1)));
  EXPECT_FALSE(last_response().ack);
  EXPECT_EQ(last_response().sense, otma::sense::unknown_destination);
  EXPECT_TRUE(console_has("DFS4383E"));
  send(make_input("MQTP1", "ECHO    C", cm0_sync(2)));
  EXPECT_TRUE(last_response().ack);
}

TEST_F(engine_test, recoverable_number_on_an_unrecoverable_transaction_is_naked_23) {
  defs_.transactions["ECHO"].recoverable = false;
  open_engine();
  connect();
  send(make_input("MQTP1", "ECHO    A", cm0_sync(1)));
  EXPECT_FALSE(last_response().ack);
  EXPECT_EQ(last_response().sense, otma::sense::seq_not_recoverable);
  input_options o;  // CM0 without a recoverable number on a plain Tpipe: fine
  send(make_input("PLAIN", "ECHO    B", o));
  EXPECT_TRUE(last_response().ack);
  EXPECT_EQ(last_output_text(), "ECHO    B\n");
  EXPECT_EQ(client_->outputs.back().mci.recoverable_seq, 0u);
}

TEST_F(engine_test, synchronous_wiring_answers_inside_send) {
  open_engine();
  connect();
  synchronous_ = true;
  client_->direct = [this](const bytes& b) { server_->receive(client_name, b, now_); };
  send(make_input("MQTP1", "ECHO    A", cm0_sync(1)));
  send(make_input("MQTP1", "ECHO    B", cm0_sync(2)));
  send(make_input("CM1TP", "ECHO    C", cm1_plain()));
  ASSERT_EQ(client_->outputs.size(), 3u);
  EXPECT_EQ(all_text(client_->outputs[1]), "ECHO    B\n");
  EXPECT_EQ(queued("MQTP1"), 0u);
  EXPECT_EQ(engine_->log().state().tpipes.at({client_name, "MQTP1"}).send_rsn, 2u);
  ASSERT_EQ(client_->commits.size(), 1u);
  EXPECT_TRUE(client_->commits[0].committed);
  EXPECT_EQ(engine_->log().state().runs.size(), 3u);
}

TEST_F(engine_test, exit_command_ends_the_conversation) {
  open_engine();
  connect();
  send(make_input("CONVTP", phone_line("IVTCV", "ADD", "KING"), cm1_plain()));
  ASSERT_EQ(client_->outputs.size(), 1u);
  const auto token = std::get<otma::transaction_state_data>(*client_->outputs.back().state).server_token;
  send(make_input("CONVTP", "/EXIT", cm1_plain()));
  EXPECT_TRUE(last_response().ack);
  EXPECT_TRUE(console_has("ended by /EXIT")) << last_output_text();
  otma_message m = make_input("CONVTP", phone_line("IVTCV", "", "", "A", "1", "2"), cm1_plain());
  m.mci.message_type = otma::msg_type::data;
  auto& sd = std::get<otma::transaction_state_data>(*m.state);
  sd.server_state = otma::server_state::conversational;
  sd.server_token = token;
  send(m);
  EXPECT_FALSE(last_response().ack);
}

TEST_F(engine_test, faults_nak_withhold_duplicate_and_ignore) {
  open_engine();
  connect();
  engine_->fault_settings().nak_next_sense = 0x0030;
  send(make_input("MQTP1", "ECHO    A", cm0_sync(1)));
  EXPECT_FALSE(last_response().ack);
  EXPECT_EQ(last_response().sense, 0x0030);
  EXPECT_TRUE(engine_->log().state().runs.empty());

  engine_->fault_settings().duplicate_next_outputs = 1;
  send(make_input("MQTP1", "ECHO    B", cm0_sync(1)));
  ASSERT_EQ(client_->outputs.size(), 2u);  // the same output twice
  EXPECT_EQ(all_text(client_->outputs[0]), all_text(client_->outputs[1]));
  EXPECT_EQ(client_->outputs[0].mci.recoverable_seq, client_->outputs[1].mci.recoverable_seq);
  EXPECT_EQ(queued("MQTP1"), 0u);
  EXPECT_EQ(engine_->log().state().tpipes.at({client_name, "MQTP1"}).send_rsn, 1u);

  engine_->fault_settings().ignore_next_client_acks = 1;
  send(make_input("MQTP1", "ECHO    C", cm0_sync(2)));
  EXPECT_EQ(queued("MQTP1"), 1u);  // the ACK was dropped: still queued
  EXPECT_EQ(engine_->log().state().tpipes.at({client_name, "MQTP1"}).send_rsn, 1u);

  const std::size_t before = client_->responses.size();
  engine_->fault_settings().withhold_next_acks = 1;
  send(make_input("CM1TP", "ECHO    D", cm1_plain()));
  EXPECT_EQ(client_->responses.size(), before);  // no ACK came
  EXPECT_EQ(client_->session->inputs_outstanding(), 1u);
  EXPECT_TRUE(console_has(imsb::msg::IMB5030W));
}

TEST_F(engine_test, delayed_output_waits_for_tick) {
  open_engine();
  connect();
  engine_->fault_settings().delay_output_ms = 500;
  engine_->tick(now_);
  send(make_input("MQTP1", "ECHO    SLOW", cm0_sync(1)));
  EXPECT_TRUE(last_response().ack);
  EXPECT_TRUE(client_->outputs.empty());
  engine_->tick(now_ + 100);
  pump();
  EXPECT_TRUE(client_->outputs.empty());
  engine_->tick(now_ + 1000);
  pump();
  ASSERT_EQ(client_->outputs.size(), 1u);
  EXPECT_EQ(last_output_text(), "ECHO    SLOW\n");
}

}  // namespace
}  // namespace imsb::imsemu
