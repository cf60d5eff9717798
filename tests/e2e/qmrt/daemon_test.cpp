// The queue-manager daemon as real programs: crtmqm, strmqm, dspmq, runmqsc against the
// running queue manager, mqput/mqget round trips, endmqm, kill -9 and recovery, mqpasswd and runmqlsr.
// Each test has its own prefix and IMSBRIDGE_RUNTIME_DIR under a temporary folder; a daemon left
// running by a failed test is killed (by the pid in its pid file) when the test ends.

#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include "imsb/core/bytes.hpp"
#include "imsb/core/messages.hpp"
#include "imsb/mq/constants.hpp"
#include "imsb/mq/mqdlh.hpp"
#include "imsb/mq/mqiih.hpp"
#include "process.hpp"
#include "qmrt_e2e.hpp"

namespace imsb::test {
namespace {

TEST_F(qmrt, start_display_refuse_second_start_runmqsc_put_get_end) {
  EXPECT_TRUE(contains(dspmq(), "STATUS(Ended normally)"));
  strmqm_ok();
  const std::string shown = dspmq();
  EXPECT_TRUE(contains(shown, "QMNAME(QM1)")) << shown;
  EXPECT_TRUE(contains(shown, "STATUS(Running)")) << shown;
  EXPECT_GT(daemon_pid(), 0);

  const ran second = run(IMSB_STRMQM, {"QM1"});
  EXPECT_EQ(second.code, 5) << second.both();
  EXPECT_TRUE(contains(second.err, imsb::msg::IMB1221E)) << second.both();

  // runmqsc goes through the running queue manager, which keeps the catalog.
  const ran def = run(IMSB_RUNMQSC, {"QM1"}, "DEFINE QLOCAL(APP.Q) DEFPSIST(YES)\n");
  ASSERT_EQ(def.code, 0) << def.both();
  EXPECT_TRUE(contains(def.out, imsb::msg::IMB1001I)) << def.both();

  const std::string id = put({"APP.Q", "hello world"});
  const ran got = run(IMSB_MQGET, {"--json", "APP.Q"});
  ASSERT_EQ(got.code, 0) << got.both();
  EXPECT_EQ(json_text(got.out, "msgid"), id);
  EXPECT_EQ(json_text(got.out, "data_text"), "hello world");
  EXPECT_EQ(json_text(got.out, "format"), "MQSTR");

  const ran none = run(IMSB_MQGET, {"APP.Q"});
  EXPECT_EQ(none.code, 2) << none.both();
  EXPECT_TRUE(contains(none.err, "MQRC_NO_MSG_AVAILABLE (2033)")) << none.both();

  const ran end = run(IMSB_ENDMQM, {"QM1"});
  ASSERT_EQ(end.code, 0) << end.both();
  EXPECT_TRUE(contains(end.out, imsb::msg::IMB1223I)) << end.both();
  EXPECT_TRUE(contains(dspmq(), "STATUS(Ended normally)"));
  EXPECT_EQ(daemon_pid(), 0);
  const ran again = run(IMSB_ENDMQM, {"QM1"});
  EXPECT_EQ(again.code, 40) << again.both();

  // The queue runmqsc defined through the daemon is in the catalog on disk.
  const ran shown_q = run(IMSB_RUNMQSC, {"QM1"}, "DISPLAY QLOCAL(APP.Q)\n");
  EXPECT_EQ(shown_q.code, 0) << shown_q.both();
  EXPECT_TRUE(contains(shown_q.out, "APP.Q")) << shown_q.both();
}

// DELETE QLOCAL on a stopped queue manager (runmqsc edits the catalog itself) is refused with IMB1049E:
// its messages are in the recovery log, not loaded. Before, the queue went with its persistent message
// still in the log, and a DEFINE of the same name brought that message back at the next start.
TEST_F(qmrt, delete_qlocal_needs_the_running_queue_manager) {
  strmqm_ok();
  define_queue("DEFINE QLOCAL(APP.KEEP) DEFPSIST(YES)\n");
  const std::string id = put({"APP.KEEP", "keep me"});
  ASSERT_EQ(run(IMSB_ENDMQM, {"QM1"}).code, 0);

  ran r = run(IMSB_RUNMQSC, {"QM1"}, "DELETE QLOCAL(APP.KEEP)\n");
  EXPECT_EQ(r.code, 10) << r.both();
  EXPECT_TRUE(contains(r.out, imsb::msg::IMB1049E)) << r.both();
  r = run(IMSB_RUNMQSC, {"QM1"}, "DELETE QLOCAL(APP.KEEP) PURGE\n");
  EXPECT_EQ(r.code, 10) << r.both();
  EXPECT_TRUE(contains(r.out, imsb::msg::IMB1049E)) << r.both();
  // A queue that does not exist is still "not found"; other objects are still deleted while stopped.
  r = run(IMSB_RUNMQSC, {"QM1"}, "DELETE QLOCAL(NO.SUCH.Q)\n");
  EXPECT_TRUE(contains(r.out, imsb::msg::IMB1044E)) << r.both();
  r = run(IMSB_RUNMQSC, {"QM1"}, "DEFINE QALIAS(APP.ALIAS) TARGET(APP.KEEP)\nDELETE QALIAS(APP.ALIAS)\n");
  EXPECT_EQ(r.code, 0) << r.both();

  // Running: the queue and its message are there (CURDEPTH as IBM's DISPLAY QLOCAL shows it); without
  // PURGE the queue is kept (MQRC 2055).
  strmqm_ok();
  r = run(IMSB_RUNMQSC, {"QM1"}, "DISPLAY QLOCAL(APP.*) WHERE(CURDEPTH GT 0) IPPROCS\n");
  EXPECT_EQ(r.code, 0) << r.both();
  EXPECT_TRUE(contains(r.out, "QUEUE(APP.KEEP)")) << r.both();
  EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(CURDEPTH\(1\) +IPPROCS\(0\))"))) << r.both();
  r = run(IMSB_RUNMQSC, {"QM1"}, "DELETE QLOCAL(APP.KEEP)\n");
  EXPECT_EQ(r.code, 10) << r.both();
  EXPECT_TRUE(contains(r.out, imsb::msg::IMB1183E)) << r.both();
  r = run(IMSB_MQGET, {"--json", "APP.KEEP"});
  ASSERT_EQ(r.code, 0) << r.both();
  EXPECT_EQ(json_text(r.out, "msgid"), id);
  r = run(IMSB_RUNMQSC, {"QM1"}, "DELETE QLOCAL(APP.KEEP)\n");
  EXPECT_EQ(r.code, 0) << r.both();
  ASSERT_EQ(run(IMSB_ENDMQM, {"QM1"}).code, 0);
}

TEST_F(qmrt, mqput_mqget_round_trips) {
  strmqm_ok();
  define_queue("DEFINE QLOCAL(APP.Q)\n");

  put({"--hex", "00FF41", "APP.Q"});
  ran r = run(IMSB_MQGET, {"--json", "APP.Q"});
  ASSERT_EQ(r.code, 0) << r.both();
  EXPECT_EQ(json_text(r.out, "data_hex"), "00FF41");

  const std::string file = dir_.file("data.bin");
  {
    std::ofstream f(file, std::ios::binary);
    f << std::string("\x01\x02zz", 4);
  }
  put({"--file", file, "--format", "MYFMT", "APP.Q"});
  r = run(IMSB_MQGET, {"--json", "APP.Q"});
  ASSERT_EQ(r.code, 0) << r.both();
  EXPECT_EQ(json_text(r.out, "data_hex"), "01027A7A");
  EXPECT_EQ(json_text(r.out, "format"), "MYFMT");

  // CorrelId matching and browse.
  put({"--correl-id", "AA", "--reply-to", "R.Q", "APP.Q", "first"});
  put({"--correl-id", "BB", "--msgtype", "request", "--reply-to", "R.Q", "APP.Q", "second"});
  r = run(IMSB_MQGET, {"--browse", "--all", "--json", "APP.Q"});
  ASSERT_EQ(r.code, 0) << r.both();
  ASSERT_EQ(lines_of(r.out).size(), 2u) << r.both();
  r = run(IMSB_MQGET, {"--correl-id", "BB", "--json", "APP.Q"});
  ASSERT_EQ(r.code, 0) << r.both();
  EXPECT_EQ(json_text(r.out, "data_text"), "second");
  EXPECT_TRUE(contains(r.out, "\"msgtype\":1")) << r.out;
  r = run(IMSB_MQGET, {"APP.Q"});  // the listing, as mqdump shows it
  ASSERT_EQ(r.code, 0) << r.both();
  EXPECT_TRUE(contains(r.out, "MQMD")) << r.out;
  EXPECT_TRUE(contains(r.out, "'R.Q")) << r.out;
  EXPECT_TRUE(contains(r.out, "first")) << r.out;

  // --wait: an empty queue answers 2 after the wait; a put during the wait is got.
  const auto t0 = std::chrono::steady_clock::now();
  r = run(IMSB_MQGET, {"--wait", "300", "APP.Q"});
  EXPECT_EQ(r.code, 2) << r.both();
  EXPECT_GE(std::chrono::steady_clock::now() - t0, milliseconds(300));
  const std::string waited = dir_.file("waited.out");
  child_process getter = start(IMSB_MQGET, {"--wait", "20000", "--json", "APP.Q"}, waited);
  put({"APP.Q", "late"});
  const auto st = getter.wait_exit(milliseconds(20000));
  ASSERT_TRUE(st.has_value());
  EXPECT_TRUE(WIFEXITED(*st) && WEXITSTATUS(*st) == 0) << read_file(waited + ".err");
  EXPECT_EQ(json_text(read_file(waited), "data_text"), "late");

  // An error names the MQRC.
  r = run(IMSB_MQPUT, {"NO.SUCH.Q", "x"});
  EXPECT_EQ(r.code, 20) << r.both();
  EXPECT_TRUE(contains(r.err, "MQRC_UNKNOWN_OBJECT_NAME (2085)")) << r.both();
}

TEST_F(qmrt, kill_9_leaves_ended_unexpectedly_and_the_persistent_message) {
  strmqm_ok();
  define_queue("DEFINE QLOCAL(APP.P) DEFPSIST(YES)\n");
  const std::string id = put({"--persistent", "APP.P", "kept"});
  const pid_t pid = daemon_pid();
  ASSERT_GT(pid, 0);
  ASSERT_EQ(::kill(pid, SIGKILL), 0);
  // The daemon is not our child (strmqm forked it): wait until its lock is free, as dspmq sees it.
  std::string shown;
  for (int i = 0; i < 500; ++i) {
    shown = dspmq();
    if (!contains(shown, "Running")) break;
    ::usleep(10 * 1000);
  }
  EXPECT_TRUE(contains(shown, "STATUS(Ended unexpectedly)")) << shown;
  strmqm_ok();
  EXPECT_TRUE(contains(dspmq(), "STATUS(Running)"));
  const ran r = run(IMSB_MQGET, {"--json", "APP.P"});
  ASSERT_EQ(r.code, 0) << r.both();
  EXPECT_EQ(json_text(r.out, "msgid"), id);
  EXPECT_EQ(json_text(r.out, "data_text"), "kept");
  const ran end = run(IMSB_ENDMQM, {"-i", "QM1"});
  EXPECT_EQ(end.code, 0) << end.both();
  EXPECT_TRUE(contains(dspmq(), "STATUS(Ended normally)"));
}

TEST_F(qmrt, foreground_daemon_quiesces_a_waiting_get_on_endmqm) {
  // strmqm -f: the daemon itself, its lines on our pipe.
  std::string cmd = "exec env " + env() + " " + sh_quote(IMSB_STRMQM) + " -f --prefix " + sh_quote(prefix()) +
                    " QM1 </dev/null 2>" + sh_quote(dir_.file("fg.err"));
  child_process daemon("/bin/sh", {"-c", cmd}, output_to::capture());
  ASSERT_TRUE(daemon.wait_for_line(imsb::msg::IMB1220I, milliseconds(20000)).has_value())
      << read_file(dir_.file("fg.err"));
  EXPECT_TRUE(contains(dspmq(), "STATUS(Running)"));
  define_queue("DEFINE QLOCAL(W.Q)\n");
  const std::string waited = dir_.file("quiesced.out");
  child_process getter = start(IMSB_MQGET, {"--wait", "60000", "W.Q"}, waited);
  // The get is waiting once the queue shows an open input handle.
  std::string status;
  for (int i = 0; i < 2000; ++i) {
    status = run(IMSB_RUNMQSC, {"QM1"}, "DISPLAY QSTATUS(W.Q)\n").out;
    if (contains(status, "IPPROCS(1)")) break;
    ::usleep(10 * 1000);
  }
  EXPECT_TRUE(contains(status, "IPPROCS(1)")) << status;
  const auto t0 = std::chrono::steady_clock::now();
  const ran end = run(IMSB_ENDMQM, {"QM1"});
  EXPECT_EQ(end.code, 0) << end.both();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(20));  // not the 30 s limit
  const auto got = getter.wait_exit(milliseconds(20000));
  ASSERT_TRUE(got.has_value());
  EXPECT_TRUE(WIFEXITED(*got) && WEXITSTATUS(*got) == 20);
  EXPECT_TRUE(contains(read_file(waited + ".err"), "MQRC_Q_MGR_QUIESCING (2161)"))
      << read_file(waited + ".err");
  const auto st = daemon.wait_exit(milliseconds(20000));
  ASSERT_TRUE(st.has_value());
  EXPECT_TRUE(WIFEXITED(*st) && WEXITSTATUS(*st) == 0);
  EXPECT_TRUE(contains(dspmq(), "STATUS(Ended normally)"));
}

TEST_F(qmrt, mqpasswd_and_runmqlsr_let_a_client_put_over_tcp) {
  ran r = run(IMSB_MQPASSWD, {"-m", "QM1", "app"}, "pa55word\n");
  ASSERT_EQ(r.code, 0) << r.both();
  EXPECT_TRUE(contains(r.out, imsb::msg::IMB1231I)) << r.both();
  r = run(IMSB_MQPASSWD, {"-m", "QM1", "--list"});
  EXPECT_EQ(r.code, 0) << r.both();
  EXPECT_EQ(r.out, "app\n");
  r = run(IMSB_MQPASSWD, {"-m", "QM1", "nobody"}, "");
  EXPECT_EQ(r.code, 20) << r.both();
  EXPECT_TRUE(contains(r.err, imsb::msg::IMB1232E)) << r.both();

  strmqm_ok();
  // A password user is no administrator: it needs CONNECT and the queue's PUT and GET (SET AUTHREC).
  define_queue(
      "DEFINE QLOCAL(TCP.Q)\n"
      "SET AUTHREC PROFILE(QM1) OBJTYPE(QMGR) PRINCIPAL('app') AUTHADD(CONNECT)\n"
      "SET AUTHREC PROFILE(TCP.Q) OBJTYPE(QUEUE) PRINCIPAL('app') AUTHADD(PUT,GET)\n");
  const std::uint16_t port = free_port();
  ASSERT_NE(port, 0);
  std::string said;
  child_process lsr = start_runmqlsr(port, &said);
  ASSERT_TRUE(contains(said, imsb::msg::IMB1229I)) << said;

  const std::string client =
      "MQSERVER=" + sh_quote("SYSTEM.DEF.SVRCONN/TCP/127.0.0.1(" + std::to_string(port) + ")");
  r = run(IMSB_MQPUT, {"--user", "app", "--password-stdin", "TCP.Q"}, "pa55word\nover tcp", client);
  EXPECT_EQ(r.code, 0) << r.both();
  r = run(IMSB_MQPUT, {"--user", "app", "--password-stdin", "TCP.Q"}, "wrong\nx", client);
  EXPECT_EQ(r.code, 20) << r.both();
  EXPECT_TRUE(contains(r.err, "MQRC_NOT_AUTHORIZED (2035)")) << r.both();
  r = run(IMSB_MQGET, {"--json", "TCP.Q"});
  EXPECT_EQ(r.code, 0) << r.both();
  EXPECT_EQ(json_text(r.out, "data_text"), "over tcp");

  ASSERT_TRUE(lsr.signal(SIGTERM));
  const auto st = lsr.wait_exit(milliseconds(20000));
  ASSERT_TRUE(st.has_value());
  EXPECT_TRUE(WIFEXITED(*st) && WEXITSTATUS(*st) == 0) << read_file(dir_.file("runmqlsr.out.err"));
  const ran end = run(IMSB_ENDMQM, {"QM1"});
  EXPECT_EQ(end.code, 0) << end.both();
}

// The daemon records its socket; a client with another runtime environment (another
// IMSBRIDGE_RUNTIME_DIR, or none and another XDG_RUNTIME_DIR, as cron gives) still connects.
TEST_F(qmrt, a_client_with_another_runtime_environment_connects) {
  strmqm_ok();
  define_queue("DEFINE QLOCAL(APP.Q)\n");
  const std::string recorded = read_file(qmgr_dir() + "/qmanager/bindings");
  EXPECT_EQ(recorded.rfind(dir_.file("run") + "/", 0), 0u) << recorded;
  ASSERT_EQ(::mkdir(dir_.file("other").c_str(), 0700), 0);
  ran r = run(IMSB_MQPUT, {"APP.Q", "from elsewhere"}, {},
              "IMSBRIDGE_RUNTIME_DIR=" + sh_quote(dir_.file("other")));
  EXPECT_EQ(r.code, 0) << r.both();
  r = run(IMSB_MQPUT, {"APP.Q", "from cron"}, {}, "IMSBRIDGE_RUNTIME_DIR= XDG_RUNTIME_DIR=/nonexistent");
  EXPECT_EQ(r.code, 0) << r.both();
  r = run(IMSB_MQGET, {"--all", "--json", "APP.Q"}, {}, "IMSBRIDGE_RUNTIME_DIR= XDG_RUNTIME_DIR=");
  ASSERT_EQ(r.code, 0) << r.both();
  EXPECT_EQ(lines_of(r.out).size(), 2u) << r.both();
  const ran end = run(IMSB_ENDMQM, {"QM1"});
  EXPECT_EQ(end.code, 0) << end.both();
}

// A pid file that names a live process other than the lock holder (a pid reused,
// even by a process that calls itself strmqm) is no daemon: endmqm does not signal it.
TEST_F(qmrt, endmqm_never_signals_a_process_that_does_not_hold_the_lock) {
  strmqm_ok();
  const pid_t daemon = daemon_pid();
  ASSERT_GT(daemon, 0);
  child_process impostor("/bin/bash", {"-c", "exec -a strmqm sleep 60"}, output_to::capture());
  ASSERT_TRUE(impostor.running());
  // Once bash has exec'd, the impostor's command line says strmqm.
  const std::string cmdline = "/proc/" + std::to_string(impostor.pid()) + "/cmdline";
  for (int i = 0; i < 2000 && read_file(cmdline).rfind("strmqm", 0) != 0; ++i) ::usleep(5 * 1000);
  ASSERT_EQ(read_file(cmdline).rfind("strmqm", 0), 0u);
  {
    std::ofstream f(qmgr_dir() + "/qmgr.pid", std::ios::trunc);
    f << impostor.pid() << '\n';
  }
  const ran refused = run(IMSB_ENDMQM, {"QM1"});
  EXPECT_EQ(refused.code, 20) << refused.both();
  EXPECT_TRUE(contains(refused.err, imsb::msg::IMB1225E)) << refused.both();
  EXPECT_TRUE(impostor.running());
  EXPECT_FALSE(contains(dspmq(), "STATUS(Running)"));
  {
    std::ofstream f(qmgr_dir() + "/qmgr.pid", std::ios::trunc);
    f << daemon << '\n';
  }
  EXPECT_TRUE(contains(dspmq(), "STATUS(Running)"));
  const ran end = run(IMSB_ENDMQM, {"QM1"});
  EXPECT_EQ(end.code, 0) << end.both();
  EXPECT_EQ(daemon_pid(), 0);
}

// The forked daemon keeps none of its caller's descriptors, however high.
TEST_F(qmrt, the_daemon_closes_inherited_descriptors_above_1024) {
  const std::string held = dir_.file("held");
  const std::string cmd = "ulimit -n 4096 && exec 1500>" + sh_quote(held) + " && exec env " + env() + " " +
                          sh_quote(IMSB_STRMQM) + " --prefix " + sh_quote(prefix()) + " QM1 >" +
                          sh_quote(dir_.file("s.out")) + " 2>&1 </dev/null";
  ASSERT_EQ(run_program("/bin/bash", {"-c", cmd}, milliseconds(60000)), 0) << read_file(dir_.file("s.out"));
  const pid_t pid = daemon_pid();
  ASSERT_GT(pid, 0);
  struct stat st {};
  EXPECT_NE(::stat(("/proc/" + std::to_string(pid) + "/fd/1500").c_str(), &st), 0);
  EXPECT_EQ(::stat(("/proc/" + std::to_string(pid) + "/fd/1").c_str(), &st), 0);
  const ran end = run(IMSB_ENDMQM, {"QM1"});
  EXPECT_EQ(end.code, 0) << end.both();
}

std::string hex_of(const bytes& b) {
  static constexpr char digits[] = "0123456789ABCDEF";
  std::string s;
  for (auto c : b) {
    s += digits[c >> 4];
    s += digits[c & 0x0F];
  }
  return s;
}
std::string padded(std::string s, std::size_t n) { return s + std::string(n - s.size(), ' '); }

// mqget --json is JSON (python3's json module reads every line) with the MQDLH,
// MQXQH and MQIIH fields under dlh, xqh and iih.
TEST_F(qmrt, mqget_json_of_dead_letter_transmission_and_ims_messages_is_json) {
  if (std::system("python3 -c 'import json' >/dev/null 2>&1") != 0) GTEST_SKIP() << "no python3";
  strmqm_ok();
  define_queue(
      "DEFINE QLOCAL(DEAD.Q)\nDEFINE QLOCAL(XQ) USAGE(XMITQ)\n"
      "DEFINE QREMOTE(TO.QM2) RNAME(TARGET.Q) RQMNAME(QM2) XMITQ(XQ)\nDEFINE QLOCAL(IMS.Q)\n");
  mq::mqdlh dlh;
  dlh.reason = 2053;
  dlh.dest_q_name = padded("ORIG.Q", mq::MQ_Q_NAME_LENGTH);
  dlh.dest_q_mgr_name = padded("QM1", mq::MQ_Q_MGR_NAME_LENGTH);
  dlh.encoding = 546;
  dlh.coded_char_set_id = 819;
  dlh.format = "MQSTR   ";
  dlh.put_appl_name = padded("tester", mq::MQ_PUT_APPL_NAME_LENGTH);
  bytes dead;
  mq::encode_mqdlh(dlh, 546, 819, dead);
  const std::string body = "dead \"quoted\" \\ data";
  dead.insert(dead.end(), body.begin(), body.end());
  put({"--format", "MQDEAD", "--encoding", "546", "--ccsid", "819", "--hex", hex_of(dead), "DEAD.Q"});
  put({"TO.QM2", "for qm2"});
  mq::mqiih iih;
  iih.format = "MQIMSVS ";
  iih.lterm_override = padded("LTERM1", mq::MQ_LTERM_OVERRIDE_LENGTH);
  iih.mfs_map_name = padded("MAP1", mq::MQ_MFS_MAP_NAME_LENGTH);
  bytes ims;
  mq::encode_mqiih(iih, 546, 819, ims);
  for (char c : std::string("\x00\x0c\x00\x00TRAN1 ")) ims.push_back(static_cast<std::uint8_t>(c));
  put({"--format", "MQIMS", "--encoding", "546", "--ccsid", "819", "--hex", hex_of(ims), "IMS.Q"});

  const std::string script = dir_.file("fields.py");
  std::ofstream(script) << "import json, sys\n"
                           "for line in open(sys.argv[1]):\n"
                           "    d = json.loads(line)\n"
                           "    for path in sys.argv[2:]:\n"
                           "        v = d\n"
                           "        for k in path.split('.'):\n"
                           "            v = v[k]\n"
                           "        print(path + '=' + str(v))\n";
  const auto fields = [&](const std::string& queue, const std::vector<std::string>& paths) {
    const ran got = run(IMSB_MQGET, {"--json", queue});
    EXPECT_EQ(got.code, 0) << got.both();
    const std::string file = dir_.file(queue + ".json");
    std::ofstream(file) << got.out;
    std::string cmd = "python3 " + sh_quote(script) + " " + sh_quote(file);
    for (const auto& p : paths) cmd += " " + sh_quote(p);
    const std::string out = dir_.file(queue + ".fields");
    const int rc = run_program("/bin/sh", {"-c", cmd + " >" + sh_quote(out) + " 2>&1"}, milliseconds(30000));
    EXPECT_EQ(rc, 0) << got.out << read_file(out);
    return read_file(out);
  };
  // data_text is the whole message data, the MQDLH's bytes first: it ends with the body, escapes and all.
  const std::string dead_fields =
      fields("DEAD.Q", {"format", "dlh.Reason", "dlh.DestQName", "dlh.DestQMgrName", "dlh.Format",
                        "dlh.PutApplName", "data_text"});
  const std::string dead_expected =
      "format=MQDEAD\ndlh.Reason=2053\ndlh.DestQName=ORIG.Q\ndlh.DestQMgrName=QM1\ndlh.Format=MQSTR\n"
      "dlh.PutApplName=tester\ndata_text=";
  EXPECT_EQ(dead_fields.substr(0, dead_expected.size()), dead_expected) << dead_fields;
  EXPECT_GT(dead_fields.size(), body.size() + 1);
  EXPECT_EQ(dead_fields.substr(dead_fields.size() - body.size() - 1), body + "\n") << dead_fields;
  EXPECT_EQ(fields("XQ", {"format", "xqh.RemoteQName", "xqh.RemoteQMgrName"}),
            "format=MQXMIT\nxqh.RemoteQName=TARGET.Q\nxqh.RemoteQMgrName=QM2\n");
  EXPECT_EQ(fields("IMS.Q", {"format", "iih.Format", "iih.LTermOverride", "iih.MFSMapName"}),
            "format=MQIMS\niih.Format=MQIMSVS\niih.LTermOverride=LTERM1\niih.MFSMapName=MAP1\n");
  const ran end = run(IMSB_ENDMQM, {"QM1"});
  EXPECT_EQ(end.code, 0) << end.both();
}

// strmqm --ini TLS.* gives the daemon's listeners TLS: mqput --tls over MQSERVER
// works, a plain client is refused.
TEST_F(qmrt, strmqm_ini_tls_serves_tls_clients_and_refuses_plain_ones) {
  if (std::system("openssl version >/dev/null 2>&1") != 0) GTEST_SKIP() << "no openssl command";
  const std::string d = dir_.path();
  std::ofstream(d + "/san.ext") << "subjectAltName=IP:127.0.0.1\n";
  const std::string ec = " -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes ";
  const std::string certs =
      "cd " + sh_quote(d) + " && openssl req -x509" + ec +
      "-keyout ca.key -out ca.crt -subj /CN=test-ca -days 2" + " && openssl req" + ec +
      "-keyout srv.key -out srv.csr -subj /CN=server" +
      " && openssl x509 -req -in srv.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out srv.crt -days 2"
      " -extfile san.ext";
  ASSERT_EQ(std::system(("(" + certs + ") >/dev/null 2>&1").c_str()), 0);
  std::ofstream(d + "/qm.ini") << "# TLS for every listener\nTLS.CertFile=srv.crt\nTLS.KeyFile=" << d
                               << "/srv.key\nTLS.CAFile=ca.crt\n";
  ran r = run(IMSB_MQPASSWD, {"-m", "QM1", "app"}, "pa55word\n");
  ASSERT_EQ(r.code, 0) << r.both();
  r = run(IMSB_STRMQM, {"--ini", d + "/qm.ini", "QM1"});
  ASSERT_EQ(r.code, 0) << r.both();
  const std::uint16_t port = free_port();
  ASSERT_NE(port, 0);
  define_queue(
      "DEFINE QLOCAL(TLS.Q)\n"
      "SET AUTHREC PROFILE(QM1) OBJTYPE(QMGR) PRINCIPAL('app') AUTHADD(CONNECT)\n"
      "SET AUTHREC PROFILE(TLS.Q) OBJTYPE(QUEUE) PRINCIPAL('app') AUTHADD(PUT)\n"
      "DEFINE LISTENER(L.TLS) TRPTYPE(TCP) PORT(" +
      std::to_string(port) + ") CONTROL(MANUAL)\nSTART LISTENER(L.TLS)\n");
  const std::string client =
      "MQSERVER=" + sh_quote("SYSTEM.DEF.SVRCONN/TCP/127.0.0.1(" + std::to_string(port) + ")");
  r = run(IMSB_MQPUT, {"--tls", "--ca", d + "/ca.crt", "--user", "app", "--password-stdin", "TLS.Q"},
          "pa55word\nover tls", client);
  EXPECT_EQ(r.code, 0) << r.both();
  r = run(IMSB_MQPUT, {"--user", "app", "--password-stdin", "TLS.Q"}, "pa55word\nin clear", client);
  EXPECT_EQ(r.code, 20) << r.both();
  r = run(IMSB_MQGET, {"--all", "--json", "TLS.Q"});
  EXPECT_EQ(r.code, 0) << r.both();
  ASSERT_EQ(lines_of(r.out).size(), 1u) << r.both();
  EXPECT_EQ(json_text(r.out, "data_text"), "over tls");
  ran end = run(IMSB_ENDMQM, {"QM1"});
  EXPECT_EQ(end.code, 0) << end.both();

  // TLS.RequireClientCert=yes is enforced (a password without a certificate is refused) or the daemon
  // does not start: never ignored.
  std::ofstream(d + "/qm.ini", std::ios::app) << "TLS.RequireClientCert=yes\n";
  r = run(IMSB_STRMQM, {"--ini", d + "/qm.ini", "QM1"});
  if (r.code != 0) {
    EXPECT_TRUE(contains(r.err, "RequireClientCert")) << r.both();
    return;
  }
  define_queue("START LISTENER(L.TLS)\n");
  r = run(IMSB_MQPUT, {"--tls", "--ca", d + "/ca.crt", "--user", "app", "--password-stdin", "TLS.Q"},
          "pa55word\nno certificate", client);
  EXPECT_EQ(r.code, 20) << r.both();
  end = run(IMSB_ENDMQM, {"QM1"});
  EXPECT_EQ(end.code, 0) << end.both();
}

// On a terminal, mqpasswd does not echo the password it reads.
TEST_F(qmrt, mqpasswd_does_not_echo_the_password_on_a_terminal) {
  const int master = ::posix_openpt(O_RDWR | O_NOCTTY);
  ASSERT_GE(master, 0);
  ASSERT_EQ(::grantpt(master), 0);
  ASSERT_EQ(::unlockpt(master), 0);
  const std::string slave = ::ptsname(master);
  // The program's standard streams are the terminal; its exit code goes to a file.
  const std::string code_file = dir_.file("mqpasswd.code");
  const std::string cmd = "exec <>" + sh_quote(slave) + " >&0 2>&0; env " + env() + " " +
                          sh_quote(IMSB_MQPASSWD) + " --prefix " + sh_quote(prefix()) +
                          " -m QM1 app; echo $? >" + sh_quote(code_file);
  child_process p("/bin/sh", {"-c", cmd}, output_to::capture());
  std::string seen;
  bool sent = false;
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (std::chrono::steady_clock::now() < until) {
    pollfd pf{master, POLLIN, 0};
    if (::poll(&pf, 1, 100) > 0) {
      char buf[512];
      const auto n = ::read(master, buf, sizeof buf);
      if (n <= 0) break;  // the last holder of the terminal closed it
      seen.append(buf, static_cast<std::size_t>(n));
    }
    if (!sent && contains(seen, "Password for app: ")) {  // the prompt: echo is off by now
      ASSERT_EQ(::write(master, "Top5ecret\n", 10), 10);
      sent = true;
    }
    if (sent && !p.running()) break;
  }
  ::close(master);
  (void)p.wait_exit(milliseconds(10000));
  EXPECT_TRUE(sent) << seen;
  EXPECT_FALSE(contains(seen, "Top5ecret")) << seen;
  EXPECT_TRUE(contains(seen, imsb::msg::IMB1231I)) << seen;
  EXPECT_EQ(read_file(code_file), "0\n") << seen;
  const ran list = run(IMSB_MQPASSWD, {"-m", "QM1", "--list"});
  EXPECT_EQ(list.out, "app\n") << list.both();
}

}  // namespace
}  // namespace imsb::test
