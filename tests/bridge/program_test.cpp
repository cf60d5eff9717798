// The imsbridge program (bridge/include/imsb/bridge/program.hpp) in-process: --version, --help, a bad
// configuration, the --command client, a start-up failure, and a whole run on an in-process queue
// manager (no bridge queues) stopped by the console's STOP and by SIGTERM. The run with IMS partners is
// tests/e2e's.

#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "imsb/bridge/control.hpp"
#include "imsb/bridge/program.hpp"
#include "imsb/core/messages.hpp"
#include "imsb/mq/codes.hpp"
#include "imsb/objects/mqsc_exec.hpp"
#include "imsb/qmgr/connect.hpp"
#include "imsb/qmgr/store.hpp"
#include "imsb/transport/memory_xcf.hpp"
#include "process.hpp"
#include "temp_qmgr.hpp"

namespace imsb::bridge {
namespace {

using namespace std::chrono_literals;

struct run_result {
  int code;
  std::string out;
};

run_result run(std::vector<std::string> args, const program_platform& platform = {},
               const std::string& input = "") {
  args.insert(args.begin(), "imsbridge");
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());
  std::istringstream in(input);
  std::ostringstream out, err;
  const int code = run_imsbridge(static_cast<int>(argv.size()), argv.data(), in, out, err, platform);
  return {code, out.str()};
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> v;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) v.push_back(l);
  return v;
}

bool has_line_with(const std::string& text, const std::string& what) {
  for (const auto& l : lines_of(text))
    if (l.find(what) != std::string::npos) return true;
  return false;
}

TEST(program_test, VersionAndHelp) {
  auto v = run({"--version"});
  EXPECT_EQ(v.code, 0);
  EXPECT_EQ(v.out.rfind("imsbridge ", 0), 0u) << v.out;
  auto h = run({"--help"});
  EXPECT_EQ(h.code, 0);
  for (const char* s :
       {"--command PATH", "qmgr.connect", "partner.GROUP.MEMBER", "RESET TPIPE", "Exit codes"})
    EXPECT_NE(h.out.find(s), std::string::npos) << s;
}

TEST(program_test, BadConfigurationIsOneLineAndExit8) {
  auto r = run({"--otmacon.tpipe-prefix=TOOLONG"});
  EXPECT_EQ(r.code, 8);
  const auto lines = lines_of(r.out);
  ASSERT_EQ(lines.size(), 1u) << r.out;
  EXPECT_EQ(lines[0].rfind(std::string(msg::IMB2050E) + " configuration: otmacon.tpipe-prefix: ", 0), 0u)
      << r.out;
}

TEST(program_test, CommandClient) {
  test::temp_dir dir;
  const std::string path = dir.file("ctl.sock");
  std::mutex mu;
  std::vector<std::string> seen;
  auto s = control_socket::open(path, [&](std::string_view l) {
    std::lock_guard<std::mutex> lock(mu);
    seen.emplace_back(l);
    return std::vector<std::string>{"FIRST " + std::string(l), "SECOND"};
  });
  ASSERT_TRUE(s.ok()) << s.error().to_string();
  // The words after the path are one command.
  auto r = run({"--command", path, "DISPLAY", "QUEUE(*)"});
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.out, "FIRST DISPLAY QUEUE(*)\nSECOND\n");
  auto r2 = run({"--command=" + path, "DISPLAY TPIPE"});
  EXPECT_EQ(r2.code, 0);
  std::lock_guard<std::mutex> lock(mu);
  EXPECT_EQ(seen, (std::vector<std::string>{"DISPLAY QUEUE(*)", "DISPLAY TPIPE"}));
}

TEST(program_test, CommandClientExit1WhenTheBridgeRefuses) {
  test::temp_dir dir;
  const std::string path = dir.file("ctl.sock");
  auto s = control_socket::open(path, [&](std::string_view l) {
    if (l.rfind("RESET", 0) == 0)
      return std::vector<std::string>{std::string(msg::IMB2034E) + " RESET TPIPE(CSQ0001S) refused: busy"};
    return std::vector<std::string>{"TPIPE(CSQ0001S) STATE(ACTIVE)"};
  });
  ASSERT_TRUE(s.ok()) << s.error().to_string();
  auto refused = run({"--command", path, "RESET TPIPE(CSQ0001S) XCFMNAME(IMSA)"});
  EXPECT_EQ(refused.code, 1);
  EXPECT_EQ(refused.out.rfind(std::string(msg::IMB2034E), 0), 0u) << refused.out;
  auto fine = run({"--command", path, "DISPLAY TPIPE"});
  EXPECT_EQ(fine.code, 0) << fine.out;
}

TEST(program_test, CommandClientFailures) {
  test::temp_dir dir;
  auto none = run({"--command", dir.file("none.sock"), "DISPLAY"});
  EXPECT_EQ(none.code, 8);
  EXPECT_EQ(none.out.rfind(std::string(msg::IMB2057E), 0), 0u) << none.out;
  auto no_text = run({"--command", dir.file("none.sock")});
  EXPECT_EQ(no_text.code, 2);
  EXPECT_EQ(no_text.out.rfind(std::string(msg::IMB2060E), 0), 0u) << no_text.out;
}

TEST(program_test, QueueManagerUnavailableIsOneLineAndExit8) {
  program_platform p;
  int calls = 0;
  p.connect = [&](const bridge_config& c) -> result<std::unique_ptr<mqi::connection>> {
    ++calls;
    EXPECT_EQ(c.qmgr_connect, "local:QMX");
    return decode_error{mq::make_mqrc(2059), "MQCONN", 0, "nothing answers"};
  };
  p.make_xcf = [](const bridge_config&,
                  const std::function<void(const std::string&)>&) -> std::unique_ptr<xcf::service> {
    ADD_FAILURE() << "no XCF backend is made before the queue manager answers";
    return nullptr;
  };
  auto r = run({"--qmgr.connect=local:QMX", "--bridge.console=no"}, p);
  EXPECT_EQ(r.code, 8);
  EXPECT_EQ(calls, 1);
  const auto lines = lines_of(r.out);
  ASSERT_EQ(lines.size(), 1u) << r.out;
  EXPECT_NE(lines[0].find(std::string(msg::IMB2054E) + " QUEUE MANAGER local:QMX: "), std::string::npos)
      << r.out;
  EXPECT_NE(lines[0].find("2059"), std::string::npos) << r.out;
}

// A whole run against an in-process queue manager QM1 (no bridge queues) and an in-memory XCF.
class program_run_test : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string failed = qm_.create("QM1");
    ASSERT_EQ(failed, "") << failed;
    platform_.connect = [this](const bridge_config& c) {
      EXPECT_EQ(c.qmgr_connect, "local:QM1");
      qmgr::connect_options o;
      o.target = c.qmgr_connect;
      o.prefix = qm_.prefix();
      o.appl_name = "imsbridge";
      return qmgr::connect(o);
    };
    platform_.make_xcf = [](const bridge_config&, const std::function<void(const std::string&)>&) {
      return std::unique_ptr<xcf::service>(std::make_unique<transport::memory_sysplex>());
    };
  }
  std::vector<std::string> args() const {
    return {"--qmgr.connect=local:QM1", "--bridge.control-socket=" + qm_.dir.file("ctl.sock")};
  }
  test::temp_qmgr qm_;
  program_platform platform_;
};

TEST_F(program_run_test, ConsoleStopEndsTheRun) {
  auto r = run(args(), platform_, "\n   \nSTOP\n");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_TRUE(has_line_with(r.out, std::string(msg::IMB2055I))) << r.out;
  EXPECT_TRUE(has_line_with(r.out, std::string(msg::IMB2051I) + " IMSBRIDGE")) << r.out;
  EXPECT_TRUE(has_line_with(r.out, "QMGR=QM1")) << r.out;
  EXPECT_TRUE(has_line_with(r.out, std::string(msg::IMB2052I) + " IMSBRIDGE STOPPING: STOP COMMAND"))
      << r.out;
  EXPECT_TRUE(has_line_with(r.out, std::string(msg::IMB2053I))) << r.out;
  // Every console line is timestamped: 2026-11-30T04:21:02.123Z IMBnnnnS ...
  for (const auto& l : lines_of(r.out)) {
    ASSERT_GT(l.size(), 25u) << l;
    EXPECT_EQ(l[10], 'T') << l;
    EXPECT_EQ(l.substr(23, 2), "Z ") << l;
  }
  EXPECT_FALSE(std::filesystem::exists(qm_.dir.file("ctl.sock")));
}

TEST_F(program_run_test, SigtermQuiescesAndTheControlSocketAnswersMeanwhile) {
  run_result r{-1, {}};
  std::thread t([&] { r = run(args(), platform_); });
  // Ready once the socket answers a command (the engine has started).
  std::vector<std::string> answer;
  const auto until = std::chrono::steady_clock::now() + 20s;
  while (std::chrono::steady_clock::now() < until) {
    auto a = send_control_command(qm_.dir.file("ctl.sock"), "DISPLAY QUEUE", 5s);
    if (a.ok() && !a->empty() && a->front().rfind(std::string(msg::IMB2063W), 0) != 0) {
      answer = *a;
      break;
    }
    std::this_thread::sleep_for(20ms);
  }
  EXPECT_FALSE(answer.empty());
  // Directed at the program's thread, which blocks SIGTERM and reads it from its signalfd.
  ASSERT_EQ(::pthread_kill(t.native_handle(), SIGTERM), 0);
  t.join();
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_TRUE(has_line_with(r.out, std::string(msg::IMB2052I) + " IMSBRIDGE STOPPING: SIGTERM")) << r.out;
  EXPECT_TRUE(has_line_with(r.out, std::string(msg::IMB2053I))) << r.out;
  EXPECT_FALSE(std::filesystem::exists(qm_.dir.file("ctl.sock")));
}

TEST_F(program_run_test, PassTicketKeyFileOpenToOthersIsWarned) {
  const std::string keys = qm_.dir.file("passtickets");
  std::ofstream(keys) << "MVSQM1 " << std::string(64, 'a') << "\n";
  namespace fs = std::filesystem;
  fs::permissions(
      keys, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read | fs::perms::others_read);
  auto a = args();
  a.push_back("--bridge.passticket-keys=" + keys);
  auto r = run(a, platform_, "STOP\n");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_TRUE(has_line_with(r.out, std::string(msg::IMB2061W) + " bridge.passticket-keys " + keys)) << r.out;
  // 0600: no warning.
  fs::permissions(keys, fs::perms::owner_read | fs::perms::owner_write);
  r = run(a, platform_, "STOP\n");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_FALSE(has_line_with(r.out, std::string(msg::IMB2061W))) << r.out;
}

// A console line longer than the control socket's limit is dropped whole, with one IMB2064W; the lines
// after it are read as usual. (Leading blanks would be trimmed: unchecked, this line would be a STOP.)
TEST_F(program_run_test, OverLongConsoleLineIsDropped) {
  const std::string input = std::string(control_socket::max_line + 10, ' ') + "STOP\nDISPLAY QUEUES\nSTOP\n";
  auto r = run(args(), platform_, input);
  EXPECT_EQ(r.code, 0) << r.out.substr(0, 2000);
  int warned = 0;
  for (const auto& l : lines_of(r.out)) {
    if (l.find(std::string(msg::IMB2064W)) != std::string::npos) ++warned;
    EXPECT_LT(l.size(), 1000u);
  }
  EXPECT_EQ(warned, 1) << r.out.substr(0, 2000);
  // The DISPLAY after it ran: so the STOP inside the long line did not.
  const auto stop_at = r.out.find(std::string(msg::IMB2052I));
  const auto warn_at = r.out.find(std::string(msg::IMB2064W));
  ASSERT_NE(stop_at, std::string::npos) << r.out;
  EXPECT_LT(warn_at, stop_at);
  EXPECT_GT(lines_of(r.out.substr(warn_at, stop_at - warn_at)).size(), 1u) << r.out;
}

// The wait for a stop fails (poll): the bridge stops in order, but the exit code says it failed.
TEST_F(program_run_test, StopCausedByAnErrorIsExit8) {
  int calls = 0;
  platform_.poll_for_stop = [&calls](pollfd*, nfds_t, int) {
    ++calls;
    errno = EIO;
    return -1;
  };
  auto r = run(args(), platform_);
  EXPECT_EQ(r.code, 8) << r.out;
  EXPECT_EQ(calls, 1);
  EXPECT_TRUE(has_line_with(r.out, std::string(msg::IMB2052I) + " IMSBRIDGE STOPPING: poll: ")) << r.out;
  EXPECT_TRUE(has_line_with(r.out, std::string(msg::IMB2053I) + " IMSBRIDGE STOPPED AFTER AN ERROR"))
      << r.out;
  EXPECT_FALSE(std::filesystem::exists(qm_.dir.file("ctl.sock")));
}

}  // namespace
}  // namespace imsb::bridge
