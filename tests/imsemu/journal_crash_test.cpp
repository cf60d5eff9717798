// kill -9 of a process in the middle of durable steps: a forked child runs the engine's cycle —
// log an input, run it, ACK its output — reporting each step on a pipe only after the call returned; the
// parent kills it at a random moment, reopens the journal and checks that every reported step is there,
// nothing ran twice, and the Tpipe's numbers match the messages [C: IMS-RS-CS].
#include "imsb/imsemu/journal.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <system_error>

namespace imsb::imsemu {
namespace {

namespace fs = std::filesystem;

const tpipe_key sync_tpipe{"CLIENT1", "TPIPE1"};

void report(int fd, const std::string& line) {
  // One write of less than PIPE_BUF bytes: the parent sees whole lines only.
  const std::string text = line + "\n";
  if (::write(fd, text.data(), text.size()) != static_cast<ssize_t>(text.size())) ::_exit(3);
}

// The child: recovers what it finds queued, then cycles until killed. Never returns.
[[noreturn]] void child_loop(const fs::path& dir, int out) {
  auto opened = journal::open(dir, false);
  if (!opened.ok()) ::_exit(2);
  journal j = std::move(opened).value();
  j.set_checkpoint_threshold(2048);  // checkpoints happen under the kill too
  const bytes body(300, 0xC1);
  for (;;) {
    const journal_state& s = j.state();
    if (!s.inputs.empty()) {
      const queued_input in = s.inputs.front();
      const std::string name = "N" + std::to_string(in.id);
      auto run = j.commit_run(in.id, "IVTNO", "OK",
                              {{phonebook_change::kind::put, ims::phone_entry{name, "F", "E", "Z"}}},
                              {{in.client, in.tpipe, true, body}});
      if (!run.ok()) ::_exit(4);
      report(out, "R " + std::to_string(run->run) + " " + std::to_string(in.id) + " " +
                      std::to_string(run->output_ids[0]));
    } else if (auto q = s.outputs.find(sync_tpipe); q != s.outputs.end() && !q->second.empty()) {
      const std::uint64_t id = q->second.front().id;
      const std::uint32_t next = s.tpipes.at(sync_tpipe).send_rsn + 1;
      if (!j.log_output_acked(id, next).ok()) ::_exit(5);
      report(out, "A " + std::to_string(id));
    } else {
      const auto t = s.tpipes.find(sync_tpipe);
      const std::uint32_t next = (t == s.tpipes.end() ? 0 : t->second.recv_rsn) + 1;
      auto id = j.log_input(sync_tpipe.first, sync_tpipe.second, true, next, body);
      if (!id.ok()) ::_exit(6);
      report(out, "I " + std::to_string(*id));
    }
  }
}

struct reported {
  std::set<std::uint64_t> inputs;
  std::map<std::uint64_t, std::pair<std::uint64_t, std::uint64_t>> runs;  // run → (input, output)
  std::set<std::uint64_t> acks;
};

void parse(const std::string& text, reported& r) {
  std::istringstream lines(text);
  std::string kind;
  while (lines >> kind) {
    if (kind == "I") {
      std::uint64_t id = 0;
      lines >> id;
      r.inputs.insert(id);
    } else if (kind == "R") {
      std::uint64_t run = 0, input = 0, output = 0;
      lines >> run >> input >> output;
      r.runs[run] = {input, output};
    } else if (kind == "A") {
      std::uint64_t id = 0;
      lines >> id;
      r.acks.insert(id);
    }
  }
}

// Runs one child for `delay`, kills it with SIGKILL and returns what it reported.
std::string run_and_kill(const fs::path& dir, std::chrono::milliseconds delay, bool& died_by_kill) {
  int p[2];
  if (::pipe(p) != 0) return {};
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(p[0]);
    child_loop(dir, p[1]);
  }
  ::close(p[1]);
  std::string text;
  char buf[4096];
  const auto until = std::chrono::steady_clock::now() + delay;
  bool killed = false;
  for (;;) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now());
    if (!killed && left.count() <= 0) {
      ::kill(pid, SIGKILL);
      killed = true;
    }
    pollfd pfd{p[0], POLLIN, 0};
    ::poll(&pfd, 1, killed ? 1000 : static_cast<int>(std::max<long long>(left.count(), 0)));
    if ((pfd.revents & (POLLIN | POLLHUP)) == 0) continue;
    const ssize_t n = ::read(p[0], buf, sizeof buf);
    if (n <= 0) break;  // EOF: the child is gone, everything it wrote has been read
    text.append(buf, static_cast<std::size_t>(n));
  }
  ::close(p[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  died_by_kill = WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
  return text;
}

class journal_crash_test : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "imsb-journal-kill-XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  fs::path dir_;
};

TEST_F(journal_crash_test, kill_9_at_random_moments_loses_no_reported_step_and_runs_nothing_twice) {
  const unsigned seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> delay_ms(5, 200);
  reported all;
  for (int round = 0; round < 20; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    bool died_by_kill = false;
    const std::string text = run_and_kill(dir_, std::chrono::milliseconds(delay_ms(rng)), died_by_kill);
    ASSERT_TRUE(died_by_kill) << "the child stopped by itself: a step failed";
    parse(text, all);

    auto opened = journal::open(dir_, false);
    ASSERT_TRUE(opened.ok()) << opened.error().to_string();
    const journal_state& s = opened->state();

    // Runs: numbered 1..n once each, each input run at most once, never both run and queued.
    std::set<std::uint64_t> run_inputs;
    std::set<std::uint64_t> produced;
    for (std::size_t i = 0; i < s.runs.size(); ++i) {
      const auto& r = s.runs[i];
      ASSERT_EQ(r.run, i + 1);
      ASSERT_TRUE(run_inputs.insert(r.input_id).second) << "input " << r.input_id << " ran twice";
      ASSERT_EQ(s.find_input(r.input_id), nullptr) << "input " << r.input_id << " is queued and run";
      ASSERT_EQ(r.output_ids.size(), 1U);
      produced.insert(r.output_ids[0]);
      // Its database change is part of the same step.
      ASSERT_TRUE(s.phonebook.find("N" + std::to_string(r.input_id)).has_value());
    }
    EXPECT_EQ(s.phonebook.entries().size(), s.runs.size());

    // Every step the child reported done is there.
    for (auto id : all.inputs)
      ASSERT_TRUE(run_inputs.count(id) == 1 || s.find_input(id) != nullptr) << "input " << id << " lost";
    for (const auto& [run, io] : all.runs) {
      ASSERT_LE(run, s.runs.size()) << "run " << run << " lost";
      EXPECT_EQ(s.runs[run - 1].input_id, io.first);
      EXPECT_EQ(s.runs[run - 1].output_ids[0], io.second);
    }
    for (auto id : all.acks) {
      ASSERT_TRUE(produced.count(id) == 1);
      ASSERT_EQ(s.find_output(id), nullptr) << "acked output " << id << " is queued again";
    }

    // The Tpipe's numbers count the messages: every input logged had the next receive number, every
    // ACK the next send number [C: IMS-RS-CS], and a queued output was produced but not yet ACKed.
    std::size_t queued_outputs = 0;
    for (const auto& [key, queue] : s.outputs) {
      for (const auto& o : queue) ASSERT_TRUE(produced.count(o.id) == 1);
      queued_outputs += queue.size();
    }
    ASSERT_LE(queued_outputs, 1U);
    ASSERT_LE(s.inputs.size(), 1U);
    if (!s.tpipes.empty()) {
      const auto& t = s.tpipes.at(sync_tpipe);
      EXPECT_EQ(t.recv_rsn, s.runs.size() + s.inputs.size());
      EXPECT_EQ(t.send_rsn, s.runs.size() - queued_outputs);
    }
  }
  EXPECT_GT(all.runs.size(), 20U) << "the child hardly ran: the test proves little";
  RecordProperty("runs", static_cast<int>(all.runs.size()));
}

}  // namespace
}  // namespace imsb::imsemu
