// imsemu's run-time operation: each fault set at run time through the local command socket
// (--command-socket) and proven through xcfhub with the scripted OTMA client; FAULT RESTART WARM|COLD;
// the command socket's own behaviour, its client mode (imsemu --command) and the stdin console.

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "imsb/core/messages.hpp"
#include "imsb/imsemu/command_client.hpp"
#include "imsb/imsemu/journal.hpp"
#include "imsb/otma/message.hpp"
#include "imsb/otma/sense.hpp"
#include "imsemu_e2e.hpp"
#include "otma_client.hpp"
#include "process.hpp"

namespace imsb::test {
namespace {

using lines = std::vector<std::string>;
using steady = std::chrono::steady_clock;

std::string joined(const lines& ls) {
  std::string s;
  for (const auto& l : ls) s += l + "\n";
  return s;
}

std::size_t count_of(const std::string& text, std::string_view what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

class console_e2e : public imsemu_e2e {
 protected:
  void start_with_socket(std::vector<std::string> extra = {}) {
    extra.insert(extra.begin(), {"--command-socket", socket_});
    start_ims(extra);
  }
  // One command through the socket, on a connection of its own.
  lines command(const std::string& text) {
    auto c = imsemu::command_client::connect(socket_);
    EXPECT_TRUE(c.ok()) << "no command socket at " << socket_;
    if (!c.ok() || !c->send(text + "\n").ok()) return {};
    auto a = c->answer(wait_long);
    EXPECT_TRUE(a.ok()) << "no answer to " << text << ": " << a.error().to_string();
    return a.ok() ? *a : lines{};
  }
  // The client leaves and joins again with the same Tpipe records (its state queue), so it resyncs.
  void reconnect_client() {
    auto records = client_->locked([&] { return client_->records; });
    client_.reset();
    client_ = std::make_unique<otma_client>(endpoint_);
    client_->records = records;
    const auto rc = client_->join();
    ASSERT_TRUE(rc.ok()) << rc.rc << "/" << rc.rsn;
    ASSERT_TRUE(client_->wait([&] { return client_->ready_count >= 1; })) << client_->lost_reason;
  }
  // Waits until the current start's log shows `what` `times` times.
  bool wait_log(std::string_view what, std::size_t times = 1, milliseconds timeout = wait_long) {
    const auto until = steady::now() + timeout;
    while (count_of(read_file(log_of(starts_)), what) < times) {
      if (steady::now() >= until) return false;
      std::this_thread::sleep_for(milliseconds(10));
    }
    return true;
  }
  std::size_t responses() {
    return client_->locked([&] { return client_->responses.size(); });
  }
  std::size_t outputs() {
    return client_->locked([&] { return client_->outputs.size(); });
  }
  // The journal's runs of `transaction` for input from `tpipe` (imsemu must be stopped: it locks it).
  std::size_t runs_of(const std::string& tpipe) {
    auto j = imsemu::journal::open(state_, false);
    EXPECT_TRUE(j.ok()) << (j.ok() ? std::string() : j.error().to_string());
    if (!j.ok()) return 0;
    return static_cast<std::size_t>(
        std::count_if(j->state().runs.begin(), j->state().runs.end(),
                      [&](const imsemu::run_record& r) { return r.tpipe == tpipe; }));
  }
  // The Tpipe's line of /DIS TMEMBER MQCLIENT TPIPE t, or the whole answer when there is none.
  std::string tpipe_line(const std::string& tpipe) {
    const auto ls = command(std::string("/DIS TMEMBER ") + client_member + " TPIPE " + tpipe);
    for (const auto& l : ls)
      if (l.find(" " + tpipe + " ") != std::string::npos) return l;
    return joined(ls);
  }
  std::uint64_t qct(const std::string& tpipe) {
    // DFS000I     name      ENQCT    DEQCT      QCT [status]
    std::istringstream in(tpipe_line(tpipe));
    std::string id, name;
    std::uint64_t enq = 0, deq = 0, q = 0;
    in >> id >> name >> enq >> deq >> q;
    return q;
  }

  std::string socket_ = dir_.file("cmd.sock");
};

const std::string echo_text = "ECHO    FAULTY";

// ---- each run-time fault -------------------------------------------------------------------------------

TEST_F(console_e2e, stop_answering_leaves_input_unanswered_until_resume) {
  start_with_socket();
  connect_client();
  EXPECT_EQ(command("FAULT STOP"), (lines{std::string(imsb::msg::IMB5060I) + " FAULT SET stop_answering=1"}));
  ASSERT_TRUE(client_->send(make_input("STOPTP", echo_text, 0)).ok());
  std::this_thread::sleep_for(milliseconds(1500));
  EXPECT_EQ(responses(), 0u);
  EXPECT_EQ(outputs(), 0u);
  EXPECT_EQ(command("FAULT RESUME"),
            (lines{std::string(imsb::msg::IMB5060I) + " FAULT SET stop_answering=0"}));
  const auto r = exchange(make_input("RESUMETP", echo_text, 0));
  EXPECT_TRUE(r.ack);
  EXPECT_EQ(r.tpipe, "RESUMETP");
  EXPECT_EQ(last_output(), echo_text + "\n");
}

TEST_F(console_e2e, withhold_ack_sends_no_ack_for_the_next_input_only) {
  start_with_socket();
  connect_client();
  EXPECT_EQ(command("FAULT WITHHOLD ACK 1"),
            (lines{std::string(imsb::msg::IMB5060I) + " FAULT SET withhold_next_acks=1"}));
  ASSERT_TRUE(client_->send(make_input("WHTP", echo_text, 1)).ok());
  // CM0 runs and sends its output after logging; only the ACK is missing.
  EXPECT_TRUE(client_->wait([&] { return client_->outputs.size() == 1; }));
  std::this_thread::sleep_for(milliseconds(500));
  EXPECT_EQ(responses(), 0u);
  EXPECT_TRUE(wait_log(std::string(imsb::msg::IMB5030W) + " fault: ACK of input on tpipe WHTP"));
  const auto r = exchange(make_input("WHTP2", echo_text, 1));
  EXPECT_TRUE(r.ack);
  EXPECT_EQ(r.tpipe, "WHTP2");
}

TEST_F(console_e2e, ignore_client_ack_keeps_the_output_until_resync_settles_it) {
  start_with_socket();
  connect_client();
  EXPECT_EQ(command("FAULT IGNORE ACK 1"),
            (lines{std::string(imsb::msg::IMB5060I) + " FAULT SET ignore_next_client_acks=1"}));
  const auto r = exchange(make_input("IGTP", echo_text, 1));
  EXPECT_TRUE(r.ack);
  EXPECT_TRUE(wait_log(std::string(imsb::msg::IMB5030W) + " fault: client ACK of send number"));
  // The output is still queued: IMS never saw the client's ACK. Meanwhile nothing more goes out on the
  // Tpipe (one output in flight per Tpipe).
  EXPECT_EQ(qct("IGTP"), 1u) << tpipe_line("IGTP");
  // The client comes back with its numbers (send 1, receive 1: it committed the output) and resyncs:
  // IMS's send number is one below its receive, so the client answers "dequeue last output"
  // [C: IMS-SD-REP] and IMS drops it instead of sending it again.
  reconnect_client();
  const auto until = steady::now() + wait_long;
  while (qct("IGTP") != 0 && steady::now() < until) std::this_thread::sleep_for(milliseconds(50));
  EXPECT_EQ(qct("IGTP"), 0u) << tpipe_line("IGTP");
  EXPECT_TRUE(wait_log(std::string(imsb::msg::IMB5024I) + " client MQCLIENT ready", 2));
  EXPECT_TRUE(
      wait_log(std::string(imsb::msg::IMB5026I) + " REPresynch for tpipe IGTP of MQCLIENT: action X'0004'"));
  std::this_thread::sleep_for(milliseconds(300));
  EXPECT_EQ(outputs(), 0u);  // the new client was not sent it again
}

TEST_F(console_e2e, duplicate_output_sends_it_twice_with_the_same_recoverable_number) {
  start_with_socket();
  connect_client();
  EXPECT_EQ(command("FAULT DUPLICATE OUTPUT 1"),
            (lines{std::string(imsb::msg::IMB5060I) + " FAULT SET duplicate_next_outputs=1"}));
  const auto r = exchange(make_input("DUPTP", echo_text, 1), 2);
  EXPECT_TRUE(r.ack);
  client_->locked([&] {
    ASSERT_EQ(client_->outputs.size(), 2u);
    EXPECT_EQ(all_text(client_->outputs[0]), all_text(client_->outputs[1]));
    EXPECT_EQ(client_->outputs[0].mci.recoverable_seq, 1u);
    EXPECT_EQ(client_->outputs[1].mci.recoverable_seq, 1u);
  });
  // Only the next output: the one after comes once, with the next number.
  exchange(make_input("DUPTP", echo_text, 2), 1);
  std::this_thread::sleep_for(milliseconds(300));
  client_->locked([&] {
    ASSERT_EQ(client_->outputs.size(), 3u);
    EXPECT_EQ(client_->outputs[2].mci.recoverable_seq, 2u);
  });
}

TEST_F(console_e2e, nak_next_answers_the_next_input_with_that_sense) {
  start_with_socket();
  connect_client();
  EXPECT_EQ(command("FAULT NAK 001A"),
            (lines{std::string(imsb::msg::IMB5060I) + " FAULT SET nak_next_sense=X'001A'"}));
  auto r = exchange(make_input("NAKTP", echo_text, 0), 0);
  EXPECT_FALSE(r.ack);
  EXPECT_EQ(r.sense, 0x001A);
  r = exchange(make_input("NAKTP", echo_text, 0));
  EXPECT_TRUE(r.ack);
  EXPECT_EQ(last_output(), echo_text + "\n");
}

TEST_F(console_e2e, delay_output_holds_the_output_after_the_ack) {
  start_with_socket();
  connect_client();
  // The delay is long enough that an ACK held back with the output (it would come after `delay` at the
  // earliest) and an ACK that is merely slow on a loaded machine (ASan, 2 cores) are 1 s apart at least.
  constexpr milliseconds delay{3000};
  EXPECT_EQ(command("FAULT DELAY OUTPUT " + std::to_string(delay.count())),
            (lines{std::string(imsb::msg::IMB5060I) +
                   " FAULT SET delay_output_ms=" + std::to_string(delay.count())}));
  const auto sent = steady::now();
  ASSERT_TRUE(client_->send(make_input("DLYTP", echo_text, 1)).ok());
  ASSERT_TRUE(client_->wait([&] { return !client_->responses.empty(); }));
  const auto acked = steady::now();
  EXPECT_LT(acked - sent, delay - milliseconds(1000));
  EXPECT_EQ(outputs(), 0u);
  ASSERT_TRUE(client_->wait([&] { return client_->outputs.size() == 1; }));
  // The engine times the delay from the input's arrival (engine::set_clock), not from its last tick, so
  // the output cannot come earlier than `delay` after the send; 2 ms for the clock's millisecond steps.
  EXPECT_GE(steady::now() - sent, delay - milliseconds(2));
  EXPECT_EQ(last_output(), echo_text + "\n");
}

TEST_F(console_e2e, crash_after_log_then_a_warm_start_runs_the_input_exactly_once) {
  start_with_socket();
  connect_client();
  EXPECT_EQ(command("FAULT CRASH AFTER LOG"),
            (lines{std::string(imsb::msg::IMB5060I) + " FAULT SET crash_after_log=1"}));
  // CM0 step 4: the client records the input as in flight before it sends it.
  client_->locked([&] { client_->records["CLOGTP"].in_flight = 1; });
  ASSERT_TRUE(client_->send(make_input("CLOGTP", echo_text, 1)).ok());
  const auto status = ims_.wait_exit(wait_long);
  ASSERT_TRUE(status.has_value());
  EXPECT_TRUE(WIFSIGNALED(*status) && WTERMSIG(*status) == SIGABRT) << *status;
  EXPECT_NE(read_file(log_of(1)).find(std::string(imsb::msg::IMB5031S) + " crash fault: after logging input"),
            std::string::npos);
  EXPECT_EQ(responses(), 0u);  // it died before the ACK

  start_with_socket();  // warm: the logged input is run at open, its output waits for the client
  EXPECT_TRUE(client_->wait([&] { return client_->outputs.size() == 1; })) << read_file(log_of(2));
  EXPECT_EQ(last_output(), echo_text + "\n");
  std::this_thread::sleep_for(milliseconds(500));
  EXPECT_EQ(outputs(), 1u);
  stop_ims();
  EXPECT_EQ(runs_of("CLOGTP"), 1u);
}

TEST_F(console_e2e, crash_after_run_then_after_resync_the_output_is_delivered_once) {
  start_with_socket();
  connect_client();
  EXPECT_EQ(command("FAULT CRASH AFTER RUN"),
            (lines{std::string(imsb::msg::IMB5060I) + " FAULT SET crash_after_run=1"}));
  // CM0 step 4 (the ACK may or may not get out before the crash).
  client_->locked([&] { client_->records["CRUNTP"].in_flight = 1; });
  ASSERT_TRUE(client_->send(make_input("CRUNTP", echo_text, 1)).ok());
  const auto status = ims_.wait_exit(wait_long);
  ASSERT_TRUE(status.has_value());
  EXPECT_TRUE(WIFSIGNALED(*status) && WTERMSIG(*status) == SIGABRT) << *status;
  EXPECT_EQ(outputs(), 0u);  // committed, never sent

  start_with_socket();
  EXPECT_TRUE(client_->wait([&] { return client_->outputs.size() == 1; })) << read_file(log_of(2));
  EXPECT_EQ(last_output(), echo_text + "\n");
  EXPECT_EQ(client_->locked([&] { return client_->committed.size(); }), 1u);
  const auto until = steady::now() + wait_long;
  while (qct("CRUNTP") != 0 && steady::now() < until) std::this_thread::sleep_for(milliseconds(50));
  EXPECT_EQ(qct("CRUNTP"), 0u);
  std::this_thread::sleep_for(milliseconds(300));
  EXPECT_EQ(outputs(), 1u);
  stop_ims();
  EXPECT_EQ(runs_of("CRUNTP"), 1u);
}

TEST_F(console_e2e, restart_warm_keeps_tpipes_and_numbers) {
  start_with_socket();
  connect_client();
  auto r = exchange(make_input("RSTTP", echo_text, 1));
  ASSERT_TRUE(r.ack);
  EXPECT_NE(tpipe_line("RSTTP").find("SYN"), std::string::npos);
  EXPECT_EQ(command("FAULT RESTART WARM"),
            (lines{std::string(imsb::msg::IMB5066I) + " FAULT RESTART WARM SCHEDULED"}));
  ASSERT_TRUE(wait_log(imsb::msg::IMB5080I, 2)) << read_file(log_of(1));
  const std::string log = read_file(log_of(1));
  EXPECT_NE(log.find(std::string(imsb::msg::IMB5088I) + " IMS RESTART WARM"), std::string::npos);
  EXPECT_NE(log.find("DFS2361I"), std::string::npos);
  EXPECT_EQ(count_of(log, "DFS2360I"), 2u);
  EXPECT_NE(log.find("START=WARM"), std::string::npos);
  EXPECT_TRUE(ims_.running());
  // The client was told (suspend), lost the server, and bid again when it came back.
  EXPECT_TRUE(client_->wait([&] { return client_->ready_count >= 2; })) << log;
  EXPECT_GE(client_->locked([&] { return client_->lost_count; }), 1);
  EXPECT_NE(tpipe_line("RSTTP").find("SYN"), std::string::npos);
  // Numbers kept: the next recoverable number is 2, and IMS's output carries send number 2.
  r = exchange(make_input("RSTTP", echo_text, 2));
  EXPECT_TRUE(r.ack) << r.sense;
  EXPECT_EQ(client_->locked([&] { return client_->outputs.back().mci.recoverable_seq; }), 2u);
}

TEST_F(console_e2e, restart_cold_resets_tpipes_and_numbers) {
  start_with_socket();
  connect_client();
  ASSERT_TRUE(exchange(make_input("RSTTP", echo_text, 1)).ack);
  ASSERT_TRUE(exchange(make_input("RSTTP", echo_text, 2)).ack);
  EXPECT_EQ(command("FAULT RESTART COLD"),
            (lines{std::string(imsb::msg::IMB5066I) + " FAULT RESTART COLD SCHEDULED"}));
  ASSERT_TRUE(wait_log(imsb::msg::IMB5080I, 2)) << read_file(log_of(1));
  EXPECT_NE(read_file(log_of(1)).find("START=COLD"), std::string::npos);
  EXPECT_TRUE(client_->wait([&] { return client_->ready_count >= 2; }));
  EXPECT_EQ(tpipe_line("RSTTP").find("SYN"), std::string::npos) << tpipe_line("RSTTP");
  // A cold-started Tpipe starts again from 1 [C: MQ-RESYNC].
  client_->locked([&] { client_->records.clear(); });
  const auto r = exchange(make_input("RSTTP", echo_text, 1));
  EXPECT_TRUE(r.ack) << r.sense;
  EXPECT_EQ(client_->locked([&] { return client_->outputs.back().mci.recoverable_seq; }), 1u);
}

TEST_F(console_e2e, hold_runs_keeps_input_queued_until_release) {
  start_with_socket();
  connect_client();
  EXPECT_EQ(command("FAULT HOLD RUNS"), (lines{std::string(imsb::msg::IMB5060I) + " FAULT SET hold_runs=1"}));
  const auto r = exchange(make_input("HOLDTP", echo_text, 1), 0);
  EXPECT_TRUE(r.ack);
  std::this_thread::sleep_for(milliseconds(500));
  EXPECT_EQ(outputs(), 0u);
  const auto tran = command("/DIS TRAN ECHO");
  ASSERT_EQ(tran.size(), 2u);
  std::istringstream in(tran[1]);
  std::string id, code;
  int cls = 0, queued = 0;
  in >> id >> code >> cls >> queued;
  EXPECT_EQ(queued, 1) << tran[1];
  EXPECT_TRUE(joined(command("FAULT SHOW")).find("hold_runs=1") != std::string::npos);
  EXPECT_EQ(command("FAULT RELEASE RUNS"),
            (lines{std::string(imsb::msg::IMB5060I) + " FAULT SET hold_runs=0"}));
  EXPECT_TRUE(client_->wait([&] { return client_->outputs.size() == 1; }));
  EXPECT_EQ(last_output(), echo_text + "\n");
}

// ---- the command socket and the console ---------------------------------------------------------------

TEST_F(console_e2e, command_socket_answers_lines_in_order_and_is_private) {
  start_with_socket();
  struct stat st {};
  ASSERT_EQ(::lstat(socket_.c_str(), &st), 0);
  EXPECT_TRUE(S_ISSOCK(st.st_mode));
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  {
    auto c = imsemu::command_client::connect(socket_);
    ASSERT_TRUE(c.ok()) << c.error().to_string();
    ASSERT_TRUE(c->send("/STO TRAN ECHO\n/FOO BAR\n/DIS TRAN ECHO\n").ok());
    EXPECT_EQ(c->answer(wait_long).value(), (lines{"DFS058I STOP COMMAND COMPLETED"}));
    EXPECT_EQ(c->answer(wait_long).value(), (lines{"DFS105I COMMAND VERB /FOO IS INCORRECT"}));
    const auto tran = c->answer(wait_long);
    ASSERT_TRUE(tran.ok()) << tran.error().to_string();
    ASSERT_EQ(tran->size(), 2u);
    EXPECT_NE((*tran)[1].find("STOP"), std::string::npos) << (*tran)[1];
  }
  // Client mode of the same program.
  const std::string out = dir_.file("client.out");
  EXPECT_EQ(run_program(IMSB_IMSEMU, {"--command", socket_, "/DIS", "TRAN", "ECHO"}, milliseconds(10000),
                        output_to::file(out)),
            0);
  EXPECT_NE(read_file(out).find("DFS000I ECHO"), std::string::npos) << read_file(out);
  stop_ims();
  EXPECT_NE(::lstat(socket_.c_str(), &st), 0);  // removed at stop
  const std::string failed = dir_.file("client-failed.out");
  EXPECT_EQ(run_program(IMSB_IMSEMU, {"--command", socket_, "/DIS OTMA"}, milliseconds(10000),
                        output_to::file(failed)),
            8);
  EXPECT_NE(read_file(failed).find(imsb::msg::IMB5086E), std::string::npos) << read_file(failed);
}

TEST_F(console_e2e, stdin_console_and_socket_give_the_same_display_otma) {
  // imsemu with a file as its operator console: it runs /DIS OTMA once it is ready, then reads EOF.
  const std::string input = dir_.file("console.in");
  { std::ofstream(input) << "/DIS OTMA\n"; }
  ++starts_;
  const std::string cmd = std::string("exec '") + IMSB_IMSEMU + "' --group " + group_name + " --member " +
                          ims_member + " --hub " + endpoint_ + " --state '" + state_ +
                          "' --command-socket '" + socket_ + "' < '" + input + "'";
  ims_ = child_process("/bin/sh", {"-c", cmd}, output_to::file(log_of(starts_)));
  ASSERT_TRUE(wait_log(imsb::msg::IMB5085I)) << read_file(log_of(starts_));
  const lines from_socket = command("/DIS OTMA");
  ASSERT_FALSE(from_socket.empty());
  EXPECT_EQ(from_socket.back(), std::string(imsb::msg::IMB5064I) + " SERVER STATE NORMAL TIB 0/10000");
  const std::string log = read_file(log_of(starts_));
  EXPECT_NE(log.find(joined(from_socket)), std::string::npos) << "console:\n"
                                                              << log << "socket:\n"
                                                              << joined(from_socket);
}

}  // namespace
}  // namespace imsb::test
