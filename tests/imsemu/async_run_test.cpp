// External programs off the I/O thread (engine.hpp "External programs", program_runner [D]): the engine
// with a runner that runs each job on a thread of its own and completes it from there through the session
// access, as program.cpp's worker does; and the process-group and stderr rules of external_program.hpp.

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <fstream>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "engine_rig.hpp"
#include "imsb/core/messages.hpp"
#include "imsb/imsemu/external_program.hpp"

namespace imsb::imsemu::test_rig {
namespace {

using namespace std::chrono_literals;

// Runs every job on a new thread: job.run there, then (unless told to drop it) job.complete from that
// same thread, which takes the session access's lock as program.cpp's worker does.
class thread_runner {
 public:
  void submit(external_job job) {
    std::lock_guard<std::mutex> lock(mutex_);
    ++submitted_;
    threads_.emplace_back([this, job = std::move(job)]() mutable {
      external_options o = job.options;
      o.on_started = [this](int pgid) { pgid_ = pgid; };
      external_result x = job.run(o);
      if (!drop_) job.complete(std::move(x));
      ++finished_;
    });
  }
  void join_all() {
    for (;;) {
      std::vector<std::thread> ts;
      {
        std::lock_guard<std::mutex> lock(mutex_);
        ts.swap(threads_);
      }
      if (ts.empty()) return;
      for (auto& t : ts) t.join();
    }
  }
  int submitted() {
    std::lock_guard<std::mutex> lock(mutex_);
    return submitted_;
  }
  std::atomic<bool> drop_{false};
  std::atomic<int> pgid_{0};
  std::atomic<int> finished_{0};

 private:
  std::mutex mutex_;
  std::vector<std::thread> threads_;
  int submitted_ = 0;
};

class async_run_test : public engine_test {
 protected:
  void SetUp() override {
    engine_test::SetUp();
    // ECHOPGM copies its input back after the gate file exists: the test decides when a run ends.
    ims::program_def pg;
    pg.name = "ECHOPGM";
    pg.external = script("echo.sh", "i=0; while [ ! -e '" + gate() +
                                        "' ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i+1)); done\n"
                                        "exec cat");
    defs_.programs["ECHOPGM"] = pg;
    ims::transaction_def t;
    t.code = "ECHO";
    t.program = "ECHOPGM";
    t.recoverable = true;
    defs_.transactions["ECHO"] = t;
  }
  void TearDown() override {
    touch(gate());  // no run waits for its full 20 s
    runner_.join_all();
    engine_test::TearDown();
  }
  std::string gate() const { return (dir_ / "gate").string(); }
  static void touch(const std::string& path) { std::ofstream(path).put('x'); }
  std::string script(const std::string& name, const std::string& body) {
    const std::string path = (dir_ / name).string();
    std::ofstream(path) << "#!/bin/sh\n" << body << "\n";
    ::chmod(path.c_str(), 0755);
    return path;
  }

  // The engine opened, its session access behind a lock that the test thread takes as well.
  void open_async() {
    open_engine();
    engine_->attach([this](const std::function<void(tpipe::server_session&)>& f) {
      std::lock_guard<std::recursive_mutex> lock(mutex_);
      f(*server_);
    });
    engine_->set_program_runner([this](external_job job) { runner_.submit(std::move(job)); });
    std::lock_guard<std::recursive_mutex> lock(mutex_);
    connect();
  }
  void send_locked(const otma_message& m) {
    std::lock_guard<std::recursive_mutex> lock(mutex_);
    send(m);
  }
  // Waits (at most 15 s) until nothing is in flight and the runner has finished every job it got.
  bool wait_idle() {
    const auto until = std::chrono::steady_clock::now() + 15s;
    while (std::chrono::steady_clock::now() < until) {
      {
        std::lock_guard<std::recursive_mutex> lock(mutex_);
        pump();
        if (engine_->external_run_in_flight() == 0 && runner_.finished_ == runner_.submitted()) return true;
      }
      std::this_thread::sleep_for(10ms);
    }
    return false;
  }

  std::recursive_mutex mutex_;
  thread_runner runner_;
};

TEST_F(async_run_test, cm0_input_is_acked_before_its_run_ends) {
  open_async();
  send_locked(make_input("TPA", "ECHO FIRST", {}));
  {
    std::lock_guard<std::recursive_mutex> lock(mutex_);
    ASSERT_EQ(client_->responses.size(), 1u);
    EXPECT_TRUE(last_response().ack);
    EXPECT_TRUE(client_->outputs.empty());  // the program waits for the gate
    EXPECT_NE(engine_->external_run_in_flight(), 0u);
    EXPECT_EQ(engine_->active_inputs(client_name), 1u);  // in flight = still active (flood control)
  }
  touch(gate());
  ASSERT_TRUE(wait_idle());
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  ASSERT_EQ(client_->outputs.size(), 1u);
  EXPECT_EQ(last_output_text(), "ECHO FIRST\n");
  EXPECT_EQ(engine_->active_inputs(client_name), 0u);
}

TEST_F(async_run_test, inputs_that_arrive_during_a_run_wait_and_run_after_it_in_order) {
  open_async();
  send_locked(make_input("TPA", "ECHO ONE", {}));
  send_locked(make_input("TPB", "ECHO TWO", cm1_plain()));
  send_locked(make_input("TPA", "ECHO THREE", {}));
  {
    std::lock_guard<std::recursive_mutex> lock(mutex_);
    ASSERT_EQ(client_->responses.size(), 3u);  // all ACKed at once
    for (const auto& r : client_->responses) EXPECT_TRUE(r.ack);
    EXPECT_EQ(runner_.submitted(), 1);  // one region: only the first is running
    EXPECT_EQ(engine_->active_inputs(client_name), 3u);
    // Commands are not held by the run.
    const auto dis = engine_->operator_command("/DIS TMEMBER ALL");
    EXPECT_FALSE(dis.empty());
  }
  touch(gate());
  ASSERT_TRUE(wait_idle());
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  EXPECT_EQ(runner_.submitted(), 3);
  ASSERT_EQ(client_->outputs.size(), 3u);
  EXPECT_EQ(all_text(client_->outputs[0]), "ECHO ONE\n");
  EXPECT_EQ(all_text(client_->outputs[1]), "ECHO TWO\n");
  EXPECT_EQ(all_text(client_->outputs[2]), "ECHO THREE\n");
  EXPECT_EQ(engine_->active_inputs(client_name), 0u);
}

TEST_F(async_run_test, a_dropped_completion_commits_nothing_and_the_input_runs_after_a_warm_restart) {
  runner_.drop_ = true;  // as program::stop_worker: the group killed, the completion never called
  open_async();
  send_locked(make_input("TPA", "ECHO KEPT", {}));
  const auto until = std::chrono::steady_clock::now() + 10s;
  while (runner_.pgid_ == 0 && std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(5ms);
  const int pgid = runner_.pgid_;
  ASSERT_GT(pgid, 0);
  ::kill(-pgid, SIGKILL);
  runner_.join_all();
  {
    std::lock_guard<std::recursive_mutex> lock(mutex_);
    pump();
    EXPECT_TRUE(client_->outputs.empty());
    EXPECT_EQ(engine_->active_inputs(client_name), 1u);  // still logged: nothing committed
    EXPECT_EQ(queued("TPA"), 0u);
    // A late completion for another input changes nothing.
    engine_->complete_external_run(engine_->external_run_in_flight() + 1, external_result{});
    EXPECT_NE(engine_->external_run_in_flight(), 0u);
  }
  close_engine();
  touch(gate());
  open_engine();  // warm start, no runner: the input runs now, synchronously
  EXPECT_EQ(engine_->active_inputs(client_name), 0u);
  ASSERT_EQ(queued("TPA"), 1u);
}

TEST_F(async_run_test, a_cm1_run_whose_client_is_lost_meanwhile_is_backed_out) {
  open_async();
  send_locked(make_input("TPB", "ECHO LOST", cm1_plain()));
  {
    std::lock_guard<std::recursive_mutex> lock(mutex_);
    ASSERT_NE(engine_->external_run_in_flight(), 0u);
    server_->client_gone(client_name, "test: member left");
  }
  touch(gate());
  ASSERT_TRUE(wait_idle());
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  EXPECT_TRUE(client_->outputs.empty());
  EXPECT_EQ(engine_->active_inputs(client_name), 0u);
  EXPECT_TRUE(console_has(imsb::msg::IMB5025W));
  EXPECT_TRUE(engine_->log().state().inputs.empty());  // backed out: gone, nothing committed for it
  EXPECT_EQ(queued("TPB"), 0u);
}

// ---- process groups and stderr (external_program.hpp) ---------------------------------------------

class external_group_test : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "imsb-group-XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  std::string script(const std::string& name, const std::string& body) {
    const std::string path = (dir_ / name).string();
    std::ofstream(path) << "#!/bin/sh\n" << body << "\n";
    ::chmod(path.c_str(), 0755);
    return path;
  }
  ims::input_message input() {
    ims::input_message in;
    in.transaction = "EXTTRAN";
    in.tpipe = "TPIPE1";
    in.segments.push_back(ebcdic("EXTTRAN"));
    return in;
  }
  // The pid the script wrote (its background `sleep 30`).
  pid_t left_pid() {
    std::ifstream f(dir_ / "pid");
    long pid = 0;
    f >> pid;
    return static_cast<pid_t>(pid);
  }
  static bool gone(pid_t pid) {
    // The group is SIGKILLed before the run returns; the sleep is reaped by init, which may take a moment.
    const auto until = std::chrono::steady_clock::now() + 5s;
    while (std::chrono::steady_clock::now() < until) {
      if (::kill(pid, 0) != 0 && errno == ESRCH) return true;
      std::this_thread::sleep_for(10ms);
    }
    return false;
  }
  fs::path dir_;
};

TEST_F(external_group_test, a_successful_run_leaves_no_process_of_its_group_behind) {
  external_options o;
  o.program_name = "EXTPGM";
  const auto x = run_external_program(
      script("bg.sh", "cat >/dev/null; sleep 30 & echo $! > '" + (dir_ / "pid").string() + "'; exit 0"),
      input(), o);
  ASSERT_FALSE(x.run.abend) << *x.run.abend;
  const pid_t pid = left_pid();
  ASSERT_GT(pid, 0);
  EXPECT_TRUE(gone(pid)) << "sleep " << pid << " outlived the run";
}

TEST_F(external_group_test, a_timed_out_run_leaves_no_process_of_its_group_behind) {
  external_options o;
  o.program_name = "EXTPGM";
  o.timeout = 500ms;
  const auto x = run_external_program(
      script("bgwait.sh", "cat >/dev/null; sleep 30 & echo $! > '" + (dir_ / "pid").string() + "'; wait"),
      input(), o);
  ASSERT_TRUE(x.run.abend);
  EXPECT_EQ(x.run.abend->rfind(abend_time_limit, 0), 0u) << *x.run.abend;
  const pid_t pid = left_pid();
  ASSERT_GT(pid, 0);
  EXPECT_TRUE(gone(pid)) << "sleep " << pid << " outlived the run";
}

TEST_F(external_group_test, on_started_gives_the_group_and_zero_before_it_is_reaped) {
  std::vector<int> seen;
  external_options o;
  o.on_started = [&](int pgid) { seen.push_back(pgid); };
  const auto x = run_external_program(script("ok.sh", "cat >/dev/null"), input(), o);
  ASSERT_FALSE(x.run.abend) << *x.run.abend;
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_GT(seen[0], 0);
  EXPECT_EQ(seen[1], 0);
}

TEST_F(external_group_test, control_bytes_on_stderr_are_escaped_in_console_lines) {
  external_options o;
  const auto x = run_external_program(
      script("ctl.sh", R"(cat >/dev/null; printf 'A\033[31mB\tC\177D\rE\n' >&2)"), input(), o);
  ASSERT_FALSE(x.run.abend) << *x.run.abend;
  ASSERT_EQ(x.log.size(), 1u);
  EXPECT_NE(x.log[0].find(R"(STDERR: A\x1B[31mB\x09C\x7FD\x0DE)"), std::string::npos) << x.log[0];
  for (const char c : x.log[0]) EXPECT_GE(static_cast<unsigned char>(c), 0x20u);
}

TEST_F(external_group_test, lines_beyond_the_kept_stderr_are_counted_as_not_logged) {
  external_options o;
  o.timeout = 20s;
  // 20000 lines of 9 bytes + newline = 200000 bytes: 100 logged; the rest dropped, most of them in bytes
  // beyond the 64 KiB kept.
  const auto x = run_external_program(
      script("many.sh",
             "cat >/dev/null; i=0; while [ $i -lt 20000 ]; do echo 'LINE67890'; i=$((i+1)); done >&2"),
      input(), o);
  ASSERT_FALSE(x.run.abend) << *x.run.abend;
  ASSERT_FALSE(x.log.empty());
  EXPECT_NE(x.log.back().find(imsb::msg::IMB5051W), std::string::npos) << x.log.back();
  EXPECT_NE(x.log.back().find(" 19900 MORE LINES"), std::string::npos) << x.log.back();
}

}  // namespace
}  // namespace imsb::imsemu::test_rig
