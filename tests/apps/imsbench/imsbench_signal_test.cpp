// imsbench and SIGINT/SIGTERM, in-process: a signal ends the run early with its report marked interrupted,
// a second one stops the wait for the replies still out, one while the requesters connect stops imsbench
// before the run; run() gives the caller's signal mask back. The signals are sent to this process by a
// connection wrapper at a chosen call, while every thread blocks them (SetUp blocks them before any thread
// starts: otherwise the kernel could deliver one to a thread that does not, and the test would end).
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <functional>
#include <optional>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "fake_bridge.hpp"
#include "hooked_connection.hpp"
#include "imsb/core/messages.hpp"
#include "imsb/imsbench/imsbench.hpp"
#include "imsb/mq/constants.hpp"
#include "process.hpp"
#include "temp_qmgr.hpp"

namespace imsb::imsbench {
namespace {

sigset_t stop_set() {
  sigset_t s;
  sigemptyset(&s);
  sigaddset(&s, SIGINT);
  sigaddset(&s, SIGTERM);
  return s;
}

bool blocked(int sig) {
  sigset_t now;
  pthread_sigmask(SIG_BLOCK, nullptr, &now);
  return sigismember(&now, sig) == 1;
}

bool pending(int sig) {
  sigset_t p;
  sigpending(&p);
  return sigismember(&p, sig) == 1;
}

std::uint64_t json_int(const std::string& json, const std::string& key) {
  std::smatch m;
  if (!std::regex_search(json, m, std::regex("\"" + key + "\":([0-9]+)"))) return 999999;
  return std::stoull(m[1].str());
}

class imsbench_signals : public ::testing::Test {
 protected:
  void SetUp() override {
    const sigset_t s = stop_set();
    pthread_sigmask(SIG_BLOCK, &s, &old_mask_);
    qm_.emplace();
    const std::string failed = qm_->create("QM1");
    ASSERT_EQ(failed, "") << failed;
    auto r = connect()->mqsc("DEFINE QLOCAL(IMS.BRIDGE.Q)\nDEFINE QLOCAL(APP.REPLY)\n");
    ASSERT_TRUE(r.ok() && r->exit_code == 0);
  }
  void TearDown() override {
    bridge_.reset();
    qm_.reset();
    // A signal the test sent that no run read (a failed test) must not end the test program.
    const sigset_t s = stop_set();
    const timespec zero{0, 0};
    while (sigtimedwait(&s, nullptr, &zero) > 0) {
    }
    pthread_sigmask(SIG_SETMASK, &old_mask_, nullptr);
  }
  std::unique_ptr<mqi::connection> connect() {
    auto c = qm_->connect("QM1");
    if (!c.ok()) throw std::runtime_error("connect local:QM1: " + c.error().to_string());
    return std::move(c).value();
  }
  connector hooked() {
    return [this](const options&, int) -> result<std::unique_ptr<mqi::connection>> {
      return std::unique_ptr<mqi::connection>(
          std::make_unique<test_support::hooked_connection>(connect(), hooks_));
    };
  }
  // A reply to every request on IMS.BRIDGE.Q.
  void start_responder() {
    bridge_.emplace([this] { return connect(); }, "IMS.BRIDGE.Q");
  }
  std::vector<std::string> args(std::vector<std::string> extra) const {
    std::vector<std::string> a{"-m", "local:QM1", "-q", "IMS.BRIDGE.Q", "-r", "APP.REPLY", "--no-progress"};
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  }
  static double seconds_since(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
  }

  sigset_t old_mask_{};
  std::optional<test::temp_qmgr> qm_;
  test::temp_dir files_;
  test_support::hooked_connection::hooks hooks_;
  std::optional<test_support::fake_bridge> bridge_;
};

TEST_F(imsbench_signals, sigint_ends_the_run_and_the_report_and_files_still_come) {
  start_responder();
  hooks_.on_put = [](int n) {
    if (n == 20) ::kill(::getpid(), SIGINT);
  };
  const std::string h = files_.file("h.csv");
  std::ostringstream out, err;
  const auto t0 = std::chrono::steady_clock::now();
  const int rc = run(args({"-n", "2", "-d", "30", "--json", "--histogram", h}), out, err, hooked());
  const std::string j = out.str();
  EXPECT_EQ(rc, 0) << j << err.str();
  EXPECT_LT(seconds_since(t0), 10) << "the run went on after SIGINT";
  EXPECT_NE(j.find("\"interrupted\":true,\"signal\":\"SIGINT\",\"interrupted_at_s\":"), std::string::npos)
      << j;
  const std::uint64_t requests = json_int(j, "requests"), replies = json_int(j, "replies");
  EXPECT_GE(requests, 20u) << j;
  EXPECT_EQ(replies, requests) << j;
  EXPECT_EQ(json_int(j, "errors"), 0u) << j;
  std::uint64_t hist = 0;
  std::ifstream in(h);
  std::string line;
  std::getline(in, line);
  while (std::getline(in, line)) hist += std::stoull(line.substr(line.find(',') + 1));
  EXPECT_EQ(hist, replies);
  EXPECT_NE(
      err.str().find(std::string(msg::IMB4944I) + " imsbench: SIGINT: ending the run early: no new requests"),
      std::string::npos)
      << err.str();
  EXPECT_NE(err.str().find("wrote the histogram"), std::string::npos) << err.str();
  // The caller's mask is as it was (blocked here, by SetUp); the signal was read, not left pending.
  EXPECT_TRUE(blocked(SIGINT));
  EXPECT_FALSE(pending(SIGINT));
}

TEST_F(imsbench_signals, the_text_report_says_interrupted_in_its_last_line) {
  start_responder();
  hooks_.on_put = [](int n) {
    if (n == 5) ::kill(::getpid(), SIGTERM);
  };
  std::ostringstream out, err;
  EXPECT_EQ(run(args({"--count", "1000000"}), out, err, hooked()), 0) << out.str() << err.str();
  const std::string text = out.str();
  const std::size_t last = text.rfind('\n', text.size() - 2);
  ASSERT_NE(last, std::string::npos) << text;
  const std::string l = text.substr(last + 1);
  std::smatch m;
  ASSERT_TRUE(
      std::regex_match(l, m,
                       std::regex(std::string(msg::IMB4943I) +
                                  " imsbench: interrupted by SIGTERM at [0-9]+\\.[0-9]{2} s, ([0-9]+) of "
                                  "--count 1000000 requests sent; no request was sent after it, the "
                                  "replies still out were waited for\n")))
      << text;
  // The requests sent before the signal was seen (put 5, perhaps one more): as many as the summary's.
  EXPECT_GE(std::stoul(m[1].str()), 5u) << text;
  EXPECT_NE(text.find(": " + m[1].str() + " requests, " + m[1].str() + " replies, 0 errors"),
            std::string::npos)
      << text;
}

TEST_F(imsbench_signals, a_second_signal_stops_the_wait_for_the_replies_still_out) {
  // No responder: the request is never answered. Its one MQGET, which waits 20 s, sends a signal that
  // ends the run (no new requests); a second one 300 ms later stops the connection, which ends the wait
  // (connection::stop: the get is woken by the stop, not sliced).
  std::thread second;
  hooks_.on_get = [&second](int n) {
    if (n != 1) return;
    ::kill(::getpid(), SIGTERM);
    second = std::thread([] {
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
      ::kill(::getpid(), SIGTERM);
    });
  };
  std::ostringstream out, err;
  const auto t0 = std::chrono::steady_clock::now();
  const int rc = run(args({"-d", "30", "--reply-wait", "20000", "--json"}), out, err, hooked());
  if (second.joinable()) second.join();
  const std::string j = out.str();
  EXPECT_EQ(rc, 1) << j << err.str();  // an unanswered request is an error
  EXPECT_LT(seconds_since(t0), 10) << "the wait was not cut short";
  EXPECT_NE(j.find("\"requests\":1,\"replies\":0,\"errors\":1"), std::string::npos) << j;
  EXPECT_NE(j.find("\"MQRC_NO_MSG_AVAILABLE (2033) wait cut short\":1"), std::string::npos) << j;
  EXPECT_NE(j.find("\"interrupted\":true,\"signal\":\"SIGTERM\""), std::string::npos) << j;
  EXPECT_NE(err.str().find("SIGTERM again: no more waiting for the 1 reply still out"), std::string::npos)
      << err.str();
  EXPECT_NE(
      err.str().find(std::string(msg::IMB4942W) +
                     " imsbench: 1 request(s) had no reply or report when a second signal stopped the wait"),
      std::string::npos)
      << err.str();
}

TEST_F(imsbench_signals, a_signal_ends_a_think_time_at_once) {
  start_responder();
  // The first reply is got, then a 60 s think time: the signal comes 200 ms into it (from a thread of
  // the run, whose mask blocks the signals). Sooner, the run would end as well, before the think time.
  std::thread signaller;
  hooks_.after_get = [&signaller](int n) {
    if (n != 1) return;
    signaller = std::thread([] {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      ::kill(::getpid(), SIGINT);
    });
  };
  std::ostringstream out, err;
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(run(args({"-d", "120", "--think-ms", "60000", "--json"}), out, err, hooked()), 0) << err.str();
  EXPECT_LT(seconds_since(t0), 10);
  if (signaller.joinable()) signaller.join();
  EXPECT_NE(out.str().find("\"requests\":1,\"replies\":1,\"errors\":0"), std::string::npos) << out.str();
}

TEST_F(imsbench_signals, a_signal_while_connecting_stops_before_the_run) {
  const connector second_signals = [this](const options&, int i) -> result<std::unique_ptr<mqi::connection>> {
    if (i == 1) ::kill(::getpid(), SIGINT);
    return std::unique_ptr<mqi::connection>(
        std::make_unique<test_support::hooked_connection>(connect(), hooks_));
  };
  std::ostringstream out, err;
  EXPECT_EQ(run(args({"-n", "3", "-d", "30"}), out, err, second_signals), 1);
  EXPECT_EQ(out.str(), "") << "no report";
  EXPECT_EQ(err.str(),
            std::string(msg::IMB4944I) +
                " imsbench: SIGINT while the requesters connected: stopped before the run, nothing "
                "was sent\n");
  EXPECT_EQ(hooks_.puts.load(), 0);
  EXPECT_EQ(hooks_.discs.load(), 2) << "the two connected requesters disconnect";
}

TEST_F(imsbench_signals, an_unblocked_mask_is_unblocked_again_after_the_run) {
  start_responder();
  // Only this thread unblocks: the responder and the queue manager's threads keep them blocked.
  const sigset_t s = stop_set();
  pthread_sigmask(SIG_UNBLOCK, &s, nullptr);
  std::ostringstream out, err;
  const int rc = run(args({"--count", "3"}), out, err, hooked());
  const bool int_blocked = blocked(SIGINT), term_blocked = blocked(SIGTERM);
  pthread_sigmask(SIG_BLOCK, &s, nullptr);
  EXPECT_EQ(rc, 0) << out.str() << err.str();
  EXPECT_FALSE(int_blocked);
  EXPECT_FALSE(term_blocked);
  // And a run that is not interrupted says so in its JSON.
  std::ostringstream jout, jerr;
  EXPECT_EQ(run(args({"--count", "2", "--json"}), jout, jerr, hooked()), 0);
  EXPECT_NE(jout.str().find("\"interrupted\":false,\"signal\":null,\"interrupted_at_s\":null,"),
            std::string::npos)
      << jout.str();
}

}  // namespace
}  // namespace imsb::imsbench
