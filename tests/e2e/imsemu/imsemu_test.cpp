// imsemu as a real program: xcfhub and imsemu started as child processes on loopback, and a
// scripted OTMA client in this test — tpipe::client_link over the xcfhub TCP backend — that records what
// IMS sends and ACKs output only after it has "committed" it (docs/design/commit-modes.md, CM0 step 6;
// [C: IMS-RS-CS]).

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "imsb/codepage/codepage.hpp"
#include "imsb/core/messages.hpp"
#include "imsb/imsemu/journal.hpp"
#include "imsb/otma/message.hpp"
#include "imsb/otma/sense.hpp"
#include "imsb/tpipe/protocol.hpp"
#include "imsb/tpipe/xcf_link.hpp"
#include "imsb/transport/tcp_xcf.hpp"
#include "imsemu_e2e.hpp"
#include "otma_client.hpp"
#include "process.hpp"

namespace imsb::test {
namespace {

TEST_F(imsemu_e2e, ivtno_showotma_display_tmember_and_an_entry_that_survives_a_restart) {
  start_ims();
  EXPECT_NE(read_file(log_of(1)).find("DFS2360I"), std::string::npos);
  connect_client();

  // (1) CM0, recoverable, on a synchronized Tpipe with recoverable numbers.
  auto r = exchange(make_input("MQTP1", phone_line("ADD", "SMITH", "JOHN", "1234", "95000"), 1));
  EXPECT_TRUE(r.ack);
  EXPECT_EQ(r.recoverable_seq, 1u);
  EXPECT_NE(last_output().find("ENTRY WAS ADDED"), std::string::npos) << last_output();
  r = exchange(make_input("MQTP1", phone_line("DISPLAY", "SMITH"), 2));
  EXPECT_TRUE(r.ack);
  std::string reply = last_output();
  EXPECT_NE(reply.find("ENTRY WAS DISPLAYED"), std::string::npos) << reply;
  EXPECT_NE(reply.find("JOHN"), std::string::npos) << reply;
  EXPECT_NE(reply.find("1234"), std::string::npos) << reply;
  EXPECT_EQ(client_->locked([&] { return client_->outputs.back().mci.recoverable_seq; }), 2u);

  // (3) SHOWOTMA shows what the client sent: Tpipe, commit mode, user ID.
  r = exchange(make_input("SHOWTP", "SHOWOTMA", 0, "CLERK1"));
  EXPECT_TRUE(r.ack);
  const std::string shown = last_output();
  for (const char* want : {"TPIPE=SHOWTP", "COMMITMODE=1", "USERID=CLERK1", "SYNCHRONIZED=N"}) {
    EXPECT_NE(shown.find(want), std::string::npos) << want << " not in\n" << shown;
  }
  EXPECT_TRUE(client_->wait([&] { return !client_->commits.empty(); }));  // CM1: committed on our ACK

  // (4) An IMS command through OTMA: the synchronized Tpipe shows SYN, the CM1 one does not.
  r = exchange(make_input("CMDTP", std::string("/DIS TMEMBER ") + client_member + " TPIPE ALL", 0));
  EXPECT_TRUE(r.ack);
  const std::string dis = last_output();
  bool mqtp1_syn = false;
  bool showtp_syn = true;
  std::size_t pos = 0;
  for (std::size_t nl; (nl = dis.find('\n', pos)) != std::string::npos; pos = nl + 1) {
    const std::string line = dis.substr(pos, nl - pos);
    if (line.find("MQTP1") != std::string::npos) mqtp1_syn = line.find("SYN") != std::string::npos;
    if (line.find("SHOWTP") != std::string::npos) showtp_syn = line.find("SYN") != std::string::npos;
  }
  EXPECT_TRUE(mqtp1_syn) << dis;
  EXPECT_FALSE(showtp_syn) << dis;

  // (2) A planned stop (SIGTERM: suspend, leave, exit 0) and a warm start on the same state folder.
  stop_ims();
  EXPECT_NE(read_file(log_of(1)).find("DFS2361I"), std::string::npos) << read_file(log_of(1));
  EXPECT_TRUE(client_->wait([&] { return client_->lost_count >= 1; }));
  EXPECT_GE(client_->locked([&] { return client_->suspends; }), 1);
  start_ims();
  EXPECT_NE(read_file(log_of(2)).find("START=WARM"), std::string::npos);
  // The client re-bids (CBresynch) by itself when IMS's member comes back.
  ASSERT_TRUE(client_->wait([&] { return client_->ready_count >= 2; })) << client_->lost_reason;
  r = exchange(make_input("MQTP1", phone_line("DISPLAY", "SMITH"), 3));
  EXPECT_TRUE(r.ack);
  reply = last_output();
  EXPECT_NE(reply.find("ENTRY WAS DISPLAYED"), std::string::npos) << reply;
  EXPECT_NE(reply.find("JOHN"), std::string::npos) << reply;
}

TEST_F(imsemu_e2e, kill_between_input_ack_and_output_ack_delivers_the_output_once) {
  start_ims();
  connect_client();
  client_->locked([&] { client_->auto_ack = false; });
  // (5) IMS ACKs the input and runs it; the client gets the output and has not committed it yet.
  const auto r = exchange(make_input("MQTP1", phone_line("ADD", "JONES", "MARY", "555", "10001"), 1));
  EXPECT_TRUE(r.ack);
  EXPECT_NE(last_output().find("ENTRY WAS ADDED"), std::string::npos) << last_output();

  ASSERT_TRUE(ims_.signal(SIGKILL));
  const auto status = ims_.wait_exit(milliseconds(10000));
  ASSERT_TRUE(status.has_value());
  EXPECT_TRUE(WIFSIGNALED(*status));
  ASSERT_TRUE(client_->wait([&] { return client_->lost_count >= 1; })) << "the client did not see IMS fail";

  client_->locked([&] { client_->auto_ack = true; });
  start_ims();
  ASSERT_TRUE(client_->wait([&] { return client_->ready_count >= 2; })) << client_->lost_reason;
  ASSERT_TRUE(client_->wait([&] { return client_->committed.size() >= 1; }));
  // Nothing more comes: give a duplicate time to show up (the timer ticks every 100 ms).
  std::this_thread::sleep_for(milliseconds(700));
  client_->locked([&] {
    ASSERT_EQ(client_->committed.size(), 1u);
    EXPECT_NE(client_->committed[0].find("ENTRY WAS ADDED"), std::string::npos) << client_->committed[0];
    EXPECT_EQ(client_->outputs.size(), 2u);  // the uncommitted first delivery, and the one after resync
    ASSERT_EQ(client_->decisions.size(), 1u);
    EXPECT_EQ(client_->decisions[0].action, otma::represynch_action::continue_tpipe);
  });

  client_.reset();
  stop_ims();
  auto j = imsemu::journal::open(state_, false);
  ASSERT_TRUE(j.ok()) << j.error().to_string();
  const auto& js = j->state();
  EXPECT_EQ(js.runs.size(), 1u);
  EXPECT_TRUE(js.phonebook.find("JONES").has_value());
  const auto tp = js.tpipes.find({client_member, "MQTP1"});
  ASSERT_NE(tp, js.tpipes.end());
  EXPECT_EQ(tp->second.send_rsn, 1u);
  EXPECT_EQ(tp->second.recv_rsn, 1u);
  const auto q = js.outputs.find({client_member, "MQTP1"});
  EXPECT_TRUE(q == js.outputs.end() || q->second.empty());
}

TEST_F(imsemu_e2e, crash_between_output_and_its_ack_resyncs_to_dequeue_last_output_with_no_duplicate) {
  // The client commits the output and ACKs it; IMS dies before it has logged that ACK (the fault drops the
  // ACK, then kill -9): after the warm start IMS still holds the output as unacknowledged. Resync
  // (docs/design/commit-modes.md, CM0 step 7; [C: IMS-SD-REP]) must end in "dequeue last output", not a
  // second delivery.
  start_ims({"--fault", "IGNORE ACK 1"});
  connect_client();
  const auto r = exchange(make_input("MQTP1", phone_line("ADD", "BROWN", "ANN", "777", "20002"), 1));
  EXPECT_TRUE(r.ack);
  ASSERT_TRUE(client_->wait([&] { return client_->committed.size() >= 1; }));
  ASSERT_TRUE(ims_.signal(SIGKILL));
  ASSERT_TRUE(ims_.wait_exit(milliseconds(10000)).has_value());
  ASSERT_TRUE(client_->wait([&] { return client_->lost_count >= 1; })) << "the client did not see IMS fail";

  start_ims();
  ASSERT_TRUE(client_->wait([&] { return client_->ready_count >= 2 && !client_->decisions.empty(); }))
      << client_->lost_reason;
  // Nothing more comes: give a duplicate time to show up (the timer ticks every 100 ms).
  std::this_thread::sleep_for(milliseconds(700));
  client_->locked([&] {
    ASSERT_EQ(client_->decisions.size(), 1u);
    EXPECT_EQ(client_->decisions[0].output, tpipe::output_outcome::dequeue_last_output);
    EXPECT_EQ(client_->decisions[0].action, otma::represynch_action::dequeue_last_output);
    EXPECT_EQ(client_->committed.size(), 1u);
    EXPECT_EQ(client_->outputs.size(), 1u);
  });

  client_.reset();
  stop_ims();
  auto j = imsemu::journal::open(state_, false);
  ASSERT_TRUE(j.ok()) << j.error().to_string();
  EXPECT_EQ(j->state().runs.size(), 1u);
  const auto q = j->state().outputs.find({client_member, "MQTP1"});
  EXPECT_TRUE(q == j->state().outputs.end() || q->second.empty()) << "IMS still holds the output";
  const auto tp = j->state().tpipes.find({client_member, "MQTP1"});
  ASSERT_NE(tp, j->state().tpipes.end());
  EXPECT_EQ(tp->second.send_rsn, 1u);
}

TEST_F(imsemu_e2e, fault_from_the_command_line_naks_the_next_input) {
  start_ims({"--fault", "NAK 0030"});
  EXPECT_NE(read_file(log_of(1)).find(imsb::msg::IMB5060I), std::string::npos) << read_file(log_of(1));
  connect_client();
  auto r = exchange(make_input("CM1TP", "ECHO    FIRST", 0), 0);
  EXPECT_FALSE(r.ack);
  EXPECT_EQ(r.sense, otma::sense::flood);
  r = exchange(make_input("CM1TP", "ECHO    SECOND", 0));
  EXPECT_TRUE(r.ack);
  EXPECT_EQ(last_output(), "ECHO    SECOND\n");
}

TEST_F(imsemu_e2e, bad_options_and_help) {
  EXPECT_EQ(run_program(IMSB_IMSEMU,
                        {"--group", group_name, "--member", ims_member, "--hub", endpoint_, "--state", state_,
                         "--fault", "NONSENSE"},
                        milliseconds(10000), output_to::file(dir_.file("bad-fault.log"))),
            8);
  EXPECT_NE(read_file(dir_.file("bad-fault.log")).find(imsb::msg::IMB5081E), std::string::npos);
  EXPECT_EQ(
      run_program(IMSB_IMSEMU, {"--bogus"}, milliseconds(10000), output_to::file(dir_.file("bogus.log"))), 2);
  EXPECT_NE(read_file(dir_.file("bogus.log")).find(imsb::msg::IMB5083E), std::string::npos);
  EXPECT_EQ(run_program(IMSB_IMSEMU, {"--help"}, milliseconds(10000), output_to::file(dir_.file("help.log"))),
            0);
  const std::string help = read_file(dir_.file("help.log"));
  for (const char* want : {"--config", "--hub", "--state", "--cold", "--heartbeat-ms", "--fault", "--tls-ca",
                           "TRANSACT", "examples/imsemu/ivp.def"}) {
    EXPECT_NE(help.find(want), std::string::npos) << want;
  }
}

}  // namespace
}  // namespace imsb::test
