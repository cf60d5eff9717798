// The queue-manager daemon as real programs (issue 5): crtmqm, strmqm, dspmq, runmqsc against the
// running queue manager, mqput/mqget round trips, endmqm, kill -9 and recovery, mqpasswd and runmqlsr.
// Each test has its own prefix and IMSBRIDGE_RUNTIME_DIR under a temporary folder; a daemon left
// running by a failed test is killed (by the pid in its pid file) when the test ends.

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "process.hpp"

namespace imsb::test {
namespace {

struct ran {
  int code = -1;
  std::string out;
  std::string err;
  std::string both() const { return "--- stdout\n" + out + "--- stderr\n" + err; }
};

std::string sh_quote(std::string_view s) {
  std::string r = "'";
  for (char c : s) r += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return r + "'";
}

bool contains(const std::string& text, std::string_view part) { return text.find(part) != std::string::npos; }

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t nl = text.find('\n', start);
    lines.push_back(text.substr(start, nl == std::string::npos ? std::string::npos : nl - start));
    if (nl == std::string::npos) break;
    start = nl + 1;
  }
  return lines;
}

// The value of "key":"..." in a JSON line (our own output: no escaped quotes in these fields).
std::string json_text(const std::string& json, const std::string& key) {
  const std::string k = "\"" + key + "\":\"";
  const auto at = json.find(k);
  if (at == std::string::npos) return "<no " + key + ">";
  const auto end = json.find('"', at + k.size());
  return json.substr(at + k.size(), end - at - k.size());
}

class qmrt : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(::mkdir(dir_.file("run").c_str(), 0700), 0);
    ran r = run(IMSB_CRTMQM, {"QM1"});
    ASSERT_EQ(r.code, 0) << r.both();
  }
  void TearDown() override {
    // A daemon a failed test left running: endmqm -i, else kill -9 (it is this test's own process).
    if (daemon_pid() > 0) {
      (void)run(IMSB_ENDMQM, {"-i", "QM1"});
      const pid_t pid = daemon_pid();
      if (pid > 0 && ::kill(pid, 0) == 0) ::kill(pid, SIGKILL);
    }
  }

  std::string prefix() const { return dir_.file("mqm"); }
  std::string qmgr_dir() const { return prefix() + "/qmgrs/QM1"; }
  std::string env() const { return "IMSBRIDGE_RUNTIME_DIR=" + sh_quote(dir_.file("run")); }
  pid_t daemon_pid() const {
    std::ifstream f(qmgr_dir() + "/qmgr.pid");
    long pid = 0;
    return (f >> pid) ? static_cast<pid_t>(pid) : 0;
  }

  // `program --prefix P args...` through /bin/sh with `input` on standard input.
  ran run(const std::string& program, const std::vector<std::string>& args, const std::string& input = {},
          const std::string& extra_env = {}) {
    const std::string n = std::to_string(++seq_);
    const std::string in = dir_.file("stdin." + n);
    const std::string out = dir_.file("stdout." + n);
    const std::string err = dir_.file("stderr." + n);
    {
      std::ofstream f(in, std::ios::binary);
      f << input;
    }
    std::string cmd =
        "exec env " + env() + " " + extra_env + " " + sh_quote(program) + " --prefix " + sh_quote(prefix());
    for (const auto& a : args) cmd += " " + sh_quote(a);
    cmd += " <" + sh_quote(in) + " >" + sh_quote(out) + " 2>" + sh_quote(err);
    ran r;
    r.code = run_program("/bin/sh", {"-c", cmd}, milliseconds(60000));
    r.out = read_file(out);
    r.err = read_file(err);
    return r;
  }
  // A program started in the background (its output to files), for --wait and runmqlsr.
  child_process start(const std::string& program, const std::vector<std::string>& args,
                      const std::string& out_file, const std::string& extra_env = {}) {
    std::string cmd =
        "exec env " + env() + " " + extra_env + " " + sh_quote(program) + " --prefix " + sh_quote(prefix());
    for (const auto& a : args) cmd += " " + sh_quote(a);
    cmd += " </dev/null 2>" + sh_quote(out_file + ".err");
    return child_process("/bin/sh", {"-c", cmd}, output_to::file(out_file));
  }

  void strmqm_ok() {
    const ran r = run(IMSB_STRMQM, {"QM1"});
    ASSERT_EQ(r.code, 0) << r.both();
    EXPECT_TRUE(contains(r.out, "IMB1220I")) << r.both();
  }
  std::string dspmq() {
    const ran r = run(IMSB_DSPMQ, {});
    EXPECT_EQ(r.code, 0) << r.both();
    return r.out;
  }
  void define_queue(const std::string& mqsc) {
    const ran r = run(IMSB_RUNMQSC, {"QM1"}, mqsc);
    ASSERT_EQ(r.code, 0) << r.both();
  }
  std::string put(const std::vector<std::string>& args, const std::string& input = {}) {
    const ran r = run(IMSB_MQPUT, args, input);
    EXPECT_EQ(r.code, 0) << r.both();
    const auto l = lines_of(r.out);
    EXPECT_EQ(l.size(), 1u) << r.both();
    if (l.empty()) return {};
    EXPECT_EQ(l[0].size(), 48u) << r.both();
    return l[0];
  }

  temp_dir dir_;
  int seq_ = 0;
};

TEST_F(qmrt, start_display_refuse_second_start_runmqsc_put_get_end) {
  EXPECT_TRUE(contains(dspmq(), "STATUS(Ended normally)"));
  strmqm_ok();
  const std::string shown = dspmq();
  EXPECT_TRUE(contains(shown, "QMNAME(QM1)")) << shown;
  EXPECT_TRUE(contains(shown, "STATUS(Running)")) << shown;
  EXPECT_GT(daemon_pid(), 0);

  const ran second = run(IMSB_STRMQM, {"QM1"});
  EXPECT_EQ(second.code, 5) << second.both();
  EXPECT_TRUE(contains(second.err, "IMB1221E")) << second.both();

  // runmqsc goes through the running queue manager, which keeps the catalog.
  const ran def = run(IMSB_RUNMQSC, {"QM1"}, "DEFINE QLOCAL(APP.Q) DEFPSIST(YES)\n");
  ASSERT_EQ(def.code, 0) << def.both();
  EXPECT_TRUE(contains(def.out, "IMB1001I")) << def.both();

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
  EXPECT_TRUE(contains(end.out, "IMB1223I")) << end.both();
  EXPECT_TRUE(contains(dspmq(), "STATUS(Ended normally)"));
  EXPECT_EQ(daemon_pid(), 0);
  const ran again = run(IMSB_ENDMQM, {"QM1"});
  EXPECT_EQ(again.code, 40) << again.both();

  // The queue runmqsc defined through the daemon is in the catalog on disk.
  const ran shown_q = run(IMSB_RUNMQSC, {"QM1"}, "DISPLAY QLOCAL(APP.Q)\n");
  EXPECT_EQ(shown_q.code, 0) << shown_q.both();
  EXPECT_TRUE(contains(shown_q.out, "APP.Q")) << shown_q.both();
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
  ASSERT_TRUE(daemon.wait_for_line("IMB1220I", milliseconds(20000)).has_value())
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

std::uint16_t free_port() {
  const int s = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = 0;
  socklen_t len = sizeof a;
  if (::bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
      ::getsockname(s, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
    ::close(s);
    return 0;
  }
  ::close(s);
  return ntohs(a.sin_port);
}

TEST_F(qmrt, mqpasswd_and_runmqlsr_let_a_client_put_over_tcp) {
  ran r = run(IMSB_MQPASSWD, {"-m", "QM1", "app"}, "pa55word\n");
  ASSERT_EQ(r.code, 0) << r.both();
  EXPECT_TRUE(contains(r.out, "IMB1231I")) << r.both();
  r = run(IMSB_MQPASSWD, {"-m", "QM1", "--list"});
  EXPECT_EQ(r.code, 0) << r.both();
  EXPECT_EQ(r.out, "app\n");
  r = run(IMSB_MQPASSWD, {"-m", "QM1", "nobody"}, "");
  EXPECT_EQ(r.code, 20) << r.both();
  EXPECT_TRUE(contains(r.err, "IMB1232E")) << r.both();

  strmqm_ok();
  // A password user is no administrator: it needs CONNECT and the queue's PUT and GET (SET AUTHREC).
  define_queue(
      "DEFINE QLOCAL(TCP.Q)\n"
      "SET AUTHREC PROFILE(QM1) OBJTYPE(QMGR) PRINCIPAL('app') AUTHADD(CONNECT)\n"
      "SET AUTHREC PROFILE(TCP.Q) OBJTYPE(QUEUE) PRINCIPAL('app') AUTHADD(PUT,GET)\n");
  const std::uint16_t port = free_port();
  ASSERT_NE(port, 0);
  const std::string lsr_out = dir_.file("runmqlsr.out");
  child_process lsr = start(IMSB_RUNMQLSR, {"-m", "QM1", "-t", "TCP", "-p", std::to_string(port)}, lsr_out);
  std::string said;
  for (int i = 0; i < 2000 && !contains(said, "IMB1229I") && lsr.running(); ++i) {
    ::usleep(10 * 1000);
    said = read_file(lsr_out);
  }
  ASSERT_TRUE(contains(said, "IMB1229I")) << said << read_file(lsr_out + ".err");

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
  EXPECT_TRUE(WIFEXITED(*st) && WEXITSTATUS(*st) == 0) << read_file(lsr_out + ".err");
  const ran end = run(IMSB_ENDMQM, {"QM1"});
  EXPECT_EQ(end.code, 0) << end.both();
}

}  // namespace
}  // namespace imsb::test
