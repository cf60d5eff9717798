// External programs through the real emulator (an executable that receives the input segments and writes
// output segments in a documented format): a definitions file naming /bin/sh programs written
// into the test's folder, xcfhub and imsemu as processes, and the scripted OTMA client. The format is
// imsemu/README.md "External programs" [D]; the abend path is the engine's (DFS555I to the client, the run
// backed out; CM1 CONFIRM also hears "aborted" [C: IMS-COMMIT]).

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>

#include <cerrno>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "imsb/codepage/codepage.hpp"
#include "imsb/core/messages.hpp"
#include "imsb/otma/message.hpp"
#include "imsemu_e2e.hpp"
#include "otma_client.hpp"
#include "process.hpp"

namespace imsb::test {
namespace {

// Replies with one EBCDIC segment naming the transaction and the client member from its environment:
// logic of the user's own, in the documented format (LL big-endian including LLZZ, ZZ 0).
constexpr const char* greeter = R"(cat >/dev/null
text="HELLO FROM $IMS_TRANCODE FOR $IMS_MEMBER VIA $IMS_TPIPE"
len=$(( ${#text} + 4 ))
printf "\\$(printf %03o $((len / 256)))\\$(printf %03o $((len % 256)))\\000\\000"
printf '%s' "$text" | iconv -f ISO-8859-1 -t IBM037)";

constexpr const char* failing = R"(cat >/dev/null
echo "no customer record" >&2
exit 3)";

constexpr const char* sleeper = R"(cat >/dev/null
sleep 30)";

class external_e2e : public imsemu_e2e {
 protected:
  // The hub's default liveness (3 × 1000 ms): the long-run tests prove a 5 s program does not make the
  // emulator look failed, which a longer interval would hide.
  external_e2e() { hub_heartbeat_ms_ = 1000; }
  void write_script(const std::string& name, const std::string& body) {
    const std::string path = dir_.file(name);
    {
      std::ofstream f(path, std::ios::binary);
      f << "#!/bin/sh\n" << body << "\n";
    }
    ::chmod(path.c_str(), 0755);
  }
  // The definitions: XGREET (CM0 and CM1), XFAIL (exits 3), XMISS (no such file), XSLOW (sleeps past its
  // PROCLIM of 1 second), XWAIT (greets after 5 s, PROCLIM 10 s), XLONG (writes its pid and that of a
  // background sleep, then waits 20 s).
  void start_with_programs(const std::vector<std::string>& extra = {}) {
    write_script("greet.sh", greeter);
    write_script("fail.sh", failing);
    write_script("sleep.sh", sleeper);
    write_script("wait.sh", std::string("sleep 5\n") + greeter);
    write_script("long.sh", "cat >/dev/null\nsleep 20 &\necho \"$$ $!\" > " + dir_.file("long.tmp") +
                                "\nmv " + dir_.file("long.tmp") + " " + dir_.file("long.pids") + "\nwait");
    const std::string defs = dir_.file("ext.def");
    std::ofstream f(defs);
    f << "IMS GRNAME=" << group_name << ",OTMANM=" << ims_member << ",IMSID=IMSA\n"
      << "APPLCTN PSB=XGREET,PGMTYPE=TP,\n      PGM=external:" << dir_.file("greet.sh") << "\n"
      << "TRANSACT CODE=XGREET,MSGTYPE=(SNGLSEG,RESPONSE,1)\n"
      << "APPLCTN PSB=XFAIL,PGMTYPE=TP,\n      PGM=external:" << dir_.file("fail.sh") << "\n"
      << "TRANSACT CODE=XFAIL,MSGTYPE=(SNGLSEG,RESPONSE,1)\n"
      << "APPLCTN PSB=XMISS,PGMTYPE=TP,\n      PGM=external:" << dir_.file("missing.sh") << "\n"
      << "TRANSACT CODE=XMISS,MSGTYPE=(SNGLSEG,RESPONSE,1)\n"
      << "APPLCTN PSB=XSLOW,PGMTYPE=TP,\n      PGM=external:" << dir_.file("sleep.sh") << "\n"
      << "TRANSACT CODE=XSLOW,MSGTYPE=(SNGLSEG,RESPONSE,1),PROCLIM=(1,1)\n"
      << "APPLCTN PSB=XWAIT,PGMTYPE=TP,\n      PGM=external:" << dir_.file("wait.sh") << "\n"
      << "TRANSACT CODE=XWAIT,MSGTYPE=(SNGLSEG,RESPONSE,1),PROCLIM=(1,10)\n"
      << "APPLCTN PSB=XLONG,PGMTYPE=TP,\n      PGM=external:" << dir_.file("long.sh") << "\n"
      << "TRANSACT CODE=XLONG,MSGTYPE=(SNGLSEG,RESPONSE,1),PROCLIM=(1,60)\n";
    f.close();
    std::vector<std::string> options{"--config", defs};
    options.insert(options.end(), extra.begin(), extra.end());
    start_ims(options);
  }
  bool log_has(std::string_view what) { return read_file(log_of(starts_)).find(what) != std::string::npos; }
  // Console lines are written after the run; wait for them rather than race the emulator's stdout.
  bool wait_log(std::string_view what) {
    const auto until = std::chrono::steady_clock::now() + wait_long;
    while (!log_has(what)) {
      if (std::chrono::steady_clock::now() > until) return false;
      std::this_thread::sleep_for(milliseconds(10));
    }
    return true;
  }
};

TEST_F(external_e2e, cm1_reply_is_what_the_external_program_wrote) {
  start_with_programs();
  connect_client();
  const auto r = exchange(make_input("XTP1", "XGREET SOMETHING", 0));
  EXPECT_TRUE(r.ack);
  EXPECT_EQ(last_output(), "HELLO FROM XGREET FOR MQCLIENT VIA XTP1\n");
  // Our ACK commits the run: commit confirmation "committed".
  ASSERT_TRUE(client_->wait([&] { return !client_->commits.empty(); }));
  EXPECT_TRUE(client_->locked([&] { return client_->commits[0]; }));
}

TEST_F(external_e2e, cm0_reply_is_what_the_external_program_wrote_with_its_recoverable_number) {
  start_with_programs();
  connect_client();
  const auto r = exchange(make_input("XTP2", "XGREET", 1));
  EXPECT_TRUE(r.ack);
  EXPECT_EQ(r.recoverable_seq, 1u);
  EXPECT_EQ(last_output(), "HELLO FROM XGREET FOR MQCLIENT VIA XTP2\n");
  EXPECT_EQ(client_->locked([&] { return client_->outputs.back().mci.recoverable_seq; }), 1u);
}

TEST_F(external_e2e, cm1_program_exiting_3_abends_u0456_dfs555i_and_commit_aborted) {
  start_with_programs();
  connect_client();
  const auto r = exchange(make_input("XTP3", "XFAIL DATA", 0));
  EXPECT_TRUE(r.ack);
  const std::string reply = last_output();
  EXPECT_NE(reply.find("DFS555I TRANSACTION XFAIL ABEND U0456"), std::string::npos) << reply;
  ASSERT_TRUE(client_->wait([&] { return !client_->commits.empty(); }));
  EXPECT_FALSE(client_->locked([&] { return client_->commits[0]; }));  // backed out: "aborted"
  EXPECT_TRUE(
      wait_log(std::string(imsb::msg::IMB5045I) + " PGM(XFAIL) TRAN(XFAIL) STDERR: no customer record"));
  EXPECT_TRUE(
      wait_log(std::string(imsb::msg::IMB5047E) + " PGM(XFAIL) TRAN(XFAIL) ENDED WITH EXIT STATUS 3"));
  EXPECT_TRUE(wait_log("DFS554A IMSA XFAIL XFAIL ABEND U0456"));
}

TEST_F(external_e2e, cm0_program_exiting_3_gets_dfs555i_as_committed_output) {
  start_with_programs();
  connect_client();
  const auto r = exchange(make_input("XTP4", "XFAIL DATA", 1));
  EXPECT_TRUE(r.ack);  // CM0: the input was logged and ACKed before the run
  const std::string reply = last_output();
  EXPECT_NE(reply.find("DFS555I TRANSACTION XFAIL ABEND U0456"), std::string::npos) << reply;
  EXPECT_EQ(client_->locked([&] { return client_->committed.size(); }), 1u);
  EXPECT_TRUE(wait_log(std::string(imsb::msg::IMB5033W) + " program abended: transaction XFAIL U0456"));
}

TEST_F(external_e2e, program_that_does_not_exist_abends_with_the_errno_text) {
  start_with_programs();
  connect_client();
  const auto r = exchange(make_input("XTP5", "XMISS", 0));
  EXPECT_TRUE(r.ack);
  EXPECT_NE(last_output().find("DFS555I TRANSACTION XMISS ABEND U0456"), std::string::npos) << last_output();
  EXPECT_TRUE(wait_log(std::string(imsb::msg::IMB5046E) + " PGM(XMISS) TRAN(XMISS) NOT STARTED"));
  EXPECT_TRUE(wait_log("No such file or directory"));
}

TEST_F(external_e2e, program_running_past_its_proclim_time_abends_u0240) {
  start_with_programs();
  connect_client();
  const auto started = std::chrono::steady_clock::now();
  const auto r = exchange(make_input("XTP6", "XSLOW", 0));
  EXPECT_TRUE(r.ack);
  EXPECT_NE(last_output().find("DFS555I TRANSACTION XSLOW ABEND U0240"), std::string::npos) << last_output();
  // PROCLIM=(1,1): stopped after about a second, not the default 30 s nor the script's own 30 s.
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(10));
  EXPECT_TRUE(wait_log("DFS554A IMSA XSLOW XSLOW ABEND U0240"));
}

// A 5 s program used to run on the XCF I/O thread, so xcfhub's heartbeat (3 s) declared
// imsemu failed and the client lost its session. Now the run is on the worker: the client keeps its
// session, gets its ACK at once, and a command it sends meanwhile is answered before the run ends
// (commands do not wait for the region, engine.hpp "External programs").
void expect_slow_run_does_not_block(std::unique_ptr<otma_client>& client, std::uint32_t rsn) {
  const auto started = std::chrono::steady_clock::now();
  ASSERT_TRUE(client->send(make_input(rsn != 0 ? "XTPW0" : "XTPW1", "XWAIT", rsn)).ok());
  ASSERT_TRUE(client->wait([&] { return client->responses.size() == 1; }, std::chrono::milliseconds(2000)))
      << "the input's ACK waited for the run";
  EXPECT_TRUE(client->locked([&] { return client->responses[0].ack; }));
  // A command from the client (CM1, its answer as output) while the program runs.
  ASSERT_TRUE(client->send(make_input("XTPCMD", "/DIS OTMA", 0)).ok());
  ASSERT_TRUE(client->wait([&] { return client->outputs.size() == 1; }, std::chrono::milliseconds(3000)))
      << "the command waited for the run";
  const auto command_answered = std::chrono::steady_clock::now() - started;
  EXPECT_NE(client->locked([&] { return all_text(client->outputs[0]); }).find(imsb::msg::IMB5064I),
            std::string::npos)
      << client->locked([&] { return all_text(client->outputs[0]); });
  EXPECT_LT(command_answered, std::chrono::seconds(4));
  // The reply, after about 5 s.
  ASSERT_TRUE(client->wait([&] { return client->outputs.size() == 2; }, std::chrono::milliseconds(15000)));
  EXPECT_GE(std::chrono::steady_clock::now() - started, std::chrono::milliseconds(4500));
  EXPECT_EQ(client->locked([&] { return all_text(client->outputs[1]); }),
            std::string("HELLO FROM XWAIT FOR MQCLIENT VIA ") + (rsn != 0 ? "XTPW0" : "XTPW1") + "\n");
  EXPECT_EQ(client->locked([&] { return client->lost_count; }), 0)
      << client->locked([&] { return client->lost_reason; });
}

TEST_F(external_e2e, cm1_five_second_run_keeps_the_session_and_a_command_is_answered_meanwhile) {
  start_with_programs();
  connect_client();
  expect_slow_run_does_not_block(client_, 0);
  ASSERT_TRUE(client_->wait([&] { return !client_->commits.empty(); }));
  EXPECT_TRUE(client_->locked([&] { return client_->commits[0]; }));  // committed: ran once
}

TEST_F(external_e2e, cm0_five_second_run_keeps_the_session_and_its_ack_comes_at_once) {
  start_with_programs();
  connect_client();
  expect_slow_run_does_not_block(client_, 1);
  EXPECT_EQ(client_->locked([&] { return client_->committed.size(); }), 1u);
  EXPECT_EQ(client_->locked([&] { return client_->outputs.back().mci.recoverable_seq; }), 1u);
}

TEST_F(external_e2e, sigterm_during_a_long_run_stops_at_once_and_leaves_no_program_behind) {
  start_with_programs();
  connect_client();
  ASSERT_TRUE(client_->send(make_input("XTPL", "XLONG", 1)).ok());
  ASSERT_TRUE(client_->wait([&] { return client_->responses.size() == 1; }));
  const auto pids = wait_for_file(dir_.file("long.pids"), wait_long);
  ASSERT_TRUE(pids.has_value());
  std::istringstream in(*pids);
  long script_pid = 0, sleep_pid = 0;
  in >> script_pid >> sleep_pid;
  ASSERT_GT(script_pid, 0);
  ASSERT_GT(sleep_pid, 0);
  const auto started = std::chrono::steady_clock::now();
  ASSERT_TRUE(ims_.signal(SIGTERM));
  const auto status = ims_.wait_exit(std::chrono::milliseconds(5000));
  ASSERT_TRUE(status.has_value()) << "imsemu did not stop within 5 s of SIGTERM";
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(4));
  EXPECT_TRUE(WIFEXITED(*status) && WEXITSTATUS(*status) == 0) << *status;
  // Orphaned zombies are reaped by init: give it a moment.
  for (const long pid : {script_pid, sleep_pid}) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    bool gone = false;
    while (!gone && std::chrono::steady_clock::now() < until) {
      gone = ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH;
      if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    EXPECT_TRUE(gone) << "process " << pid << " outlived imsemu";
  }
  EXPECT_TRUE(log_has(imsb::msg::IMB5091W));
}

// FAULT RESTART during a run: the run is cancelled (its group killed, IMB5091W) before the engine goes;
// nothing was committed, so the CM0 input runs again at the warm start and its reply comes once.
TEST_F(external_e2e, fault_restart_during_a_run_drops_it_and_the_input_runs_once_after_the_restart) {
  const std::string socket = dir_.file("cmd.sock");
  start_with_programs({"--command-socket", socket});
  connect_client();
  ASSERT_TRUE(client_->send(make_input("XTPR", "XWAIT", 1)).ok());
  ASSERT_TRUE(client_->wait([&] { return client_->responses.size() == 1; }));
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // the program is in its sleep
  EXPECT_EQ(run_program(IMSB_IMSEMU, {"--command", socket, "FAULT RESTART WARM"},
                        std::chrono::milliseconds(10000), output_to::file(dir_.file("command.out"))),
            0);
  EXPECT_TRUE(wait_log(imsb::msg::IMB5091W));
  ASSERT_TRUE(client_->wait([&] { return client_->outputs.size() == 1; }, std::chrono::milliseconds(30000)))
      << read_file(log_of(starts_));
  EXPECT_EQ(last_output(), "HELLO FROM XWAIT FOR MQCLIENT VIA XTPR\n");
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  EXPECT_EQ(client_->locked([&] { return client_->outputs.size(); }), 1u);
  EXPECT_EQ(client_->locked([&] { return client_->committed.size(); }), 1u);
}

// PR_SET_PDEATHSIG: the program itself dies with a killed emulator. (What it started itself is not its
// group's leader's business any more: no one is left to kill that group; README "External programs".)
TEST_F(external_e2e, kill_9_of_imsemu_during_a_run_takes_the_program_with_it) {
  start_with_programs();
  connect_client();
  ASSERT_TRUE(client_->send(make_input("XTPK", "XLONG", 1)).ok());
  const auto pids = wait_for_file(dir_.file("long.pids"), wait_long);
  ASSERT_TRUE(pids.has_value());
  std::istringstream in(*pids);
  long script_pid = 0;
  in >> script_pid;
  ASSERT_GT(script_pid, 0);
  ASSERT_TRUE(ims_.signal(SIGKILL));
  ASSERT_TRUE(ims_.wait_exit(std::chrono::milliseconds(5000)).has_value());
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  bool gone = false;
  while (!gone && std::chrono::steady_clock::now() < until) {
    gone = ::kill(static_cast<pid_t>(script_pid), 0) != 0 && errno == ESRCH;
    if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_TRUE(gone) << "program " << script_pid << " outlived a killed imsemu";
  ::kill(-static_cast<pid_t>(script_pid), SIGKILL);  // its background sleep: not left for 20 s
}

}  // namespace
}  // namespace imsb::test
