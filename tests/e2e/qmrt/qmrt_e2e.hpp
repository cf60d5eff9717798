#pragma once
// The queue-manager daemon's end-to-end fixture: each test with its own prefix and IMSBRIDGE_RUNTIME_DIR
// under a temporary folder, the programs run through /bin/sh with their output in files; a daemon left
// running by a failed test is killed (by the pid in its pid file) when the test ends.

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "imsb/core/messages.hpp"
#include "process.hpp"
#include "shell_text.hpp"

namespace imsb::test {
namespace {

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

  // runmqlsr for QM1 on `port`, waited for until it says IMB1229I (listening) or ends; what it said so far
  // goes to *said, for the caller to check and show.
  child_process start_runmqlsr(std::uint16_t port, std::string* said) {
    const std::string out = dir_.file("runmqlsr.out");
    child_process lsr = start(IMSB_RUNMQLSR, {"-m", "QM1", "-t", "TCP", "-p", std::to_string(port)}, out);
    said->clear();
    for (int i = 0; i < 2000 && !contains(*said, imsb::msg::IMB1229I) && lsr.running(); ++i) {
      ::usleep(10 * 1000);
      *said = read_file(out);
    }
    *said += read_file(out + ".err");
    return lsr;
  }
  void strmqm_ok() {
    const ran r = run(IMSB_STRMQM, {"QM1"});
    ASSERT_EQ(r.code, 0) << r.both();
    EXPECT_TRUE(contains(r.out, imsb::msg::IMB1220I)) << r.both();
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

}  // namespace
}  // namespace imsb::test
