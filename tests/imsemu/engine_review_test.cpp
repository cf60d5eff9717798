// Review findings on the engine (the defects a reviewer reproduced), each as a test that fails without its
// fix. The engine is driven through a real tpipe::server_session against a tpipe::client_session, their
// send() callbacks wired to each other's receive() through a queue (no XCF), with a temporary state folder.

#include "imsb/imsemu/engine.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <deque>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "engine_rig.hpp"
#include "imsb/codepage/codepage.hpp"
#include "imsb/core/bytes.hpp"
#include "imsb/core/messages.hpp"
#include "imsb/otma/message.hpp"
#include "imsb/tpipe/client_session.hpp"
#include "imsb/tpipe/protocol.hpp"
#include "imsb/tpipe/server_session.hpp"

namespace imsb::imsemu {
namespace {

using namespace test_rig;  // NOLINT: the rig reads as part of each test
namespace fs = std::filesystem;

class engine_review_test : public engine_test {};

// A client that bids again on the same XCF membership (ACK timeout -> lose -> start()) must not
// leave its old CM1 run behind: the new session's send numbers restart at 1, so the new ACK would commit it.
TEST_F(engine_review_test, rebid_backs_out_the_old_sessions_cm1_run) {
  open_engine();
  connect();
  client_->auto_ack = false;
  send(make_input("CM1TP", "ECHO    OLD", cm1_plain()));
  ASSERT_EQ(client_->outputs.size(), 1u);
  ASSERT_EQ(engine_->active_inputs(client_name), 1u);
  client_->session->server_gone("ack timeout");
  client_->auto_ack = true;
  client_->session->start(now_);
  pump();
  ASSERT_TRUE(client_->ready);
  // The old run is backed out at the bid, without a commit confirmation.
  EXPECT_EQ(engine_->active_inputs(client_name), 0u);
  EXPECT_TRUE(client_->commits.empty());
  send(make_input("CM1TP", "ECHO    NEW", cm1_plain()));
  ASSERT_EQ(client_->outputs.size(), 2u);
  EXPECT_NE(last_output_text().find("NEW"), std::string::npos);
  EXPECT_EQ(engine_->active_inputs(client_name), 0u);
  const auto& runs = engine_->log().state().runs;
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_NE(runs[0].outcome.find("BACKED OUT"), std::string::npos) << runs[0].outcome;
  EXPECT_EQ(runs[1].outcome, "OK");
  ASSERT_EQ(client_->commits.size(), 1u);
  EXPECT_TRUE(client_->commits[0].committed);
  EXPECT_EQ(client_->commits[0].send_seq, client_->outputs.back().mci.send_seq);
}

// Dequeue-last-output is one journal step. A crash right after it (the Tpipe flags' set_tpipe, the
// last record, never written) must leave the output gone AND the send number advanced; with two steps
// (purge, then set_tpipe) the number stayed behind and the next resync dequeued the NEXT output.
TEST_F(engine_review_test, dequeue_last_output_dequeues_and_advances_in_one_record) {
  open_engine();
  connect();
  client_->auto_ack = false;
  send(make_input("MQTP1", "ECHO    FIRST", cm0_sync(1)));
  send(make_input("MQTP1", "ECHO    SECOND", cm0_sync(2)));
  ASSERT_EQ(client_->outputs.size(), 1u);  // one in flight, the second queued
  ASSERT_EQ(queued("MQTP1"), 2u);
  client_->records["MQTP1"].receive = 1;  // committed FIRST, its ACK lost
  close_engine();
  open_engine();
  connect();
  ASSERT_FALSE(client_->decisions.empty());
  EXPECT_EQ(client_->decisions.back().action, otma::represynch_action::dequeue_last_output);
  EXPECT_EQ(queued("MQTP1"), 1u);
  close_engine();

  // Cut the log's last record: the state a crash just before it leaves.
  const fs::path log = dir_ / "journal.log";
  std::ifstream in(log, std::ios::binary);
  bytes file((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  in.close();
  std::size_t off = 8, last = 0;
  while (off + 4 <= file.size()) {
    last = off;
    off += 9 + load_u32(file.data() + off, byte_order::big);
  }
  ASSERT_EQ(off, file.size()) << "journal records do not end at the end of the file";
  fs::resize_file(log, last);
  auto j = journal::open(dir_, false);
  ASSERT_TRUE(j.ok()) << j.error().to_string();
  const auto& st = j.value().state();
  ASSERT_EQ(st.outputs.at({client_name, "MQTP1"}).size(), 1u);
  auto decoded = otma::decode_message(st.outputs.at({client_name, "MQTP1"}).front().data);
  ASSERT_TRUE(decoded.ok());
  EXPECT_NE(all_text(decoded.value()).find("SECOND"), std::string::npos);
  EXPECT_EQ(st.tpipes.at({client_name, "MQTP1"}).send_rsn, 1u);
}

// /DEQUEUE of the output in flight on a synchronized Tpipe is refused: the client may have
// committed it, and the next output would reuse its recoverable number.
TEST_F(engine_review_test, dequeue_of_the_synchronized_output_in_flight_is_refused) {
  open_engine();
  connect();
  client_->auto_ack = false;
  send(make_input("MQTP1", "ECHO    A1", cm0_sync(1)));
  send(make_input("MQTP1", "ECHO    A2", cm0_sync(2)));
  ASSERT_EQ(client_->outputs.size(), 1u);
  const auto lines =
      engine_->operator_command("/DEQUEUE TMEMBER " + std::string(client_name) + " TPIPE MQTP1 PURGE1");
  bool refused = false, counted = false;
  for (const auto& l : lines) {
    refused = refused || l.find("IS IN USE") != std::string::npos;
    counted = counted || l.rfind(std::string(imsb::msg::IMB5065I) + " 0 OUTPUT MESSAGE(S) DEQUEUED", 0) == 0;
  }
  EXPECT_TRUE(refused);
  EXPECT_TRUE(counted);
  pump();
  EXPECT_EQ(queued("MQTP1"), 2u);
  ASSERT_EQ(client_->outputs.size(), 1u);  // A2 not sent in its place
  client_->auto_ack = true;
  client_->session->ack_output(client_->outputs[0]);
  pump();
  ASSERT_EQ(client_->outputs.size(), 2u);
  EXPECT_EQ(client_->outputs[0].mci.recoverable_seq, 1u);
  EXPECT_EQ(client_->outputs[1].mci.recoverable_seq, 2u);
  EXPECT_NE(all_text(client_->outputs[1]).find("A2"), std::string::npos);
}

// PURGE (all) still dequeues what is not in flight.
TEST_F(engine_review_test, dequeue_purge_keeps_only_the_output_in_flight) {
  open_engine();
  connect();
  client_->auto_ack = false;
  send(make_input("MQTP1", "ECHO    B1", cm0_sync(1)));
  send(make_input("MQTP1", "ECHO    B2", cm0_sync(2)));
  send(make_input("MQTP1", "ECHO    B3", cm0_sync(3)));
  ASSERT_EQ(queued("MQTP1"), 3u);
  const auto lines =
      engine_->operator_command("/DEQUEUE TMEMBER " + std::string(client_name) + " TPIPE MQTP1 PURGE");
  EXPECT_EQ(queued("MQTP1"), 1u);
  bool counted = false;
  for (const auto& l : lines)
    counted = counted || l.rfind(std::string(imsb::msg::IMB5065I) + " 2 OUTPUT MESSAGE(S) DEQUEUED", 0) == 0;
  EXPECT_TRUE(counted);
}

// CM0 input with a nonzero recoverable number makes its Tpipe synchronized [C: IMS-RS-SUMMARY], so
// the Tpipe is listed in SRVresynch.
TEST_F(engine_review_test, recoverable_number_without_the_flag_makes_the_tpipe_synchronized) {
  open_engine();
  connect();
  input_options o;
  o.rsn = 1;  // CM0, synchronized flag not set
  send(make_input("MQTP9", "ECHO    NS", o));
  EXPECT_TRUE(last_response().ack);
  const auto& t = engine_->log().state().tpipes.at({client_name, "MQTP9"});
  EXPECT_TRUE(t.synchronized);
  EXPECT_EQ(t.recv_rsn, 1u);
  ASSERT_EQ(client_->outputs.size(), 1u);
  EXPECT_EQ(client_->outputs.back().mci.recoverable_seq, 1u);
  const auto synced = engine_->synchronized_tpipes(client_name);
  ASSERT_EQ(synced.size(), 1u);
  EXPECT_EQ(synced[0].name, "MQTP9");
}

// A CM1 CONFIRM transaction that abends gets its DFS555I reply and a commit confirmation "aborted".
TEST_F(engine_review_test, cm1_confirm_abend_gets_an_aborted_commit_confirmation) {
  ims::program_def pg;
  pg.name = "EXTPGM";
  pg.external = "/bin/false";
  defs_.programs["EXTPGM"] = pg;
  ims::transaction_def t;
  t.code = "EXTTRAN";
  t.program = "EXTPGM";
  defs_.transactions["EXTTRAN"] = t;
  open_engine();
  connect();
  send(make_input("CM1TP", "EXTTRAN DATA", cm1_plain()));
  EXPECT_TRUE(last_response().ack);
  ASSERT_EQ(client_->outputs.size(), 1u);
  EXPECT_NE(last_output_text().find("DFS555I"), std::string::npos);
  ASSERT_EQ(client_->commits.size(), 1u);
  EXPECT_FALSE(client_->commits[0].committed);
  EXPECT_EQ(client_->commits[0].send_seq, client_->outputs.back().mci.send_seq);
  EXPECT_EQ(engine_->active_inputs(client_name), 0u);
}

// Output for recoverable-number-0 input carries no recoverable number and does not advance the send
// number ([C: IMS-RS-SUMMARY]; docs/design/commit-modes.md, CM0 step 6).
TEST_F(engine_review_test, rsn0_input_output_uses_no_recoverable_send_number) {
  open_engine();
  connect();
  send(make_input("MQTP1", "ECHO    R1", cm0_sync(1)));
  ASSERT_EQ(client_->outputs.size(), 1u);
  EXPECT_EQ(client_->outputs.back().mci.recoverable_seq, 1u);
  send(make_input("MQTP1", "ECHO    NP", cm0_sync(0)));
  ASSERT_EQ(client_->outputs.size(), 2u);
  EXPECT_EQ(client_->outputs.back().mci.recoverable_seq, 0u);
  EXPECT_EQ(engine_->log().state().tpipes.at({client_name, "MQTP1"}).send_rsn, 1u);
  // The DFS064 path too.
  send(make_input("MQTP1", "BADTRAN X", cm0_sync(0)));
  ASSERT_EQ(client_->outputs.size(), 3u);
  EXPECT_NE(last_output_text().find("DFS064"), std::string::npos);
  EXPECT_EQ(client_->outputs.back().mci.recoverable_seq, 0u);
  EXPECT_EQ(engine_->log().state().tpipes.at({client_name, "MQTP1"}).send_rsn, 1u);
  EXPECT_EQ(queued("MQTP1"), 0u);
}

// REPresynch after TBresynch while an output is in flight: still one output in flight, not resent.
TEST_F(engine_review_test, tbresynch_keeps_the_output_in_flight) {
  open_engine();
  connect();
  client_->auto_ack = false;
  send(make_input("MQTP1", "ECHO    X", cm0_sync(1)));
  ASSERT_EQ(client_->outputs.size(), 1u);
  client_->session->send_tbresynch("MQTP1");
  pump();
  engine_->tick(now_);
  pump();
  EXPECT_EQ(client_->outputs.size(), 1u);
  client_->session->ack_output(client_->outputs[0]);
  pump();
  EXPECT_EQ(queued("MQTP1"), 0u);
  EXPECT_EQ(engine_->log().state().tpipes.at({client_name, "MQTP1"}).send_rsn, 1u);
}

// [C: IMS-RS-SUMMARY]: a command with recoverable number 0 on a synchronized Tpipe is run (ACKed); a
// nonzero number is NAKed X'23'; a CM0 command is run too [C: IMS-CMDS].
TEST_F(engine_review_test, commands_with_number_0_or_cm0_are_run) {
  open_engine();
  connect();
  send(make_input("MQTP1", "ECHO    X", cm0_sync(1)));
  ASSERT_TRUE(last_response().ack);
  const std::size_t before = client_->outputs.size();
  send(make_input("MQTP1", "/DIS OTMA", cm0_sync(0)));
  EXPECT_TRUE(last_response().ack);
  EXPECT_GT(client_->outputs.size(), before);
  send(make_input("MQTP1", "/DIS OTMA", cm0_sync(2)));
  EXPECT_FALSE(last_response().ack);
  EXPECT_EQ(last_response().sense, otma::sense::seq_not_recoverable);
  send(make_input("PLAINTP", "/DIS OTMA", input_options{}));
  EXPECT_TRUE(last_response().ack);
}

// CM1 on a synchronized Tpipe is NAKed X'1C' before the destination is looked at [C: IMS-RS-SUMMARY].
TEST_F(engine_review_test, cm1_on_a_synchronized_tpipe_is_1c_before_dfs064) {
  open_engine();
  connect();
  send(make_input("MQTP1", "ECHO    X", cm0_sync(1)));
  const std::size_t before = client_->outputs.size();
  send(make_input("MQTP1", "BADTRAN X", cm1_plain()));
  EXPECT_FALSE(last_response().ack);
  EXPECT_EQ(last_response().sense, otma::sense::cm1_on_synchronized_tpipe);
  EXPECT_EQ(client_->outputs.size(), before);
}

}  // namespace
}  // namespace imsb::imsemu
