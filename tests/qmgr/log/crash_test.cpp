// kill -9 at random moments: a forked child commits batches from 4 threads (with checkpoints, small
// checkpoint_bytes) and reports each batch's intent before appending it and its durability after
// wait_durable; the parent kills it, recovers, and checks that every batch reported durable is there,
// that nothing appears twice or out of nowhere, and that put order holds. Some rounds kill the child
// inside write_checkpoint, after its k-th queue file (detail::after_checkpoint_queue_file).

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <deque>
#include <fstream>
#include <map>
#include <mutex>
#include <random>
#include <thread>

#include "log_fixture.hpp"

namespace imsb::qmgr::test {
namespace {

constexpr int queue_count = 3;
constexpr std::uint64_t no_get = ~std::uint64_t{0};

// One pipe record, written whole (< PIPE_BUF, so atomic).
struct report {
  std::uint8_t durable = 0;  // 0 intent (before append), 1 durable
  std::uint8_t put_queue = 0;
  std::uint8_t get_queue = 0;
  std::uint8_t pad = 0;
  std::uint64_t id = 0;      // the message this batch puts
  std::uint64_t got_id = 0;  // the message it gets, or no_get
};

std::string queue_name(int q) { return "Q" + std::to_string(q); }

std::size_t kill_after_files = 0;
void checkpoint_hook(std::size_t files) {
  if (kill_after_files != 0 && files >= kill_after_files) ::raise(SIGKILL);
}

// The child: never returns.
[[noreturn]] void run_child(const std::filesystem::path& dir, recovery_log::queue_file_fn files, int out,
                            std::uint64_t first_id, std::size_t kill_in_checkpoint) {
  kill_after_files = kill_in_checkpoint;
  detail::after_checkpoint_queue_file = &checkpoint_hook;
  log_options options;
  options.fsync = false;  // kill -9 keeps the page cache: what was written survives [D]
  options.checkpoint_bytes = 2048;
  recovered_state state;
  auto opened = recovery_log::open(dir, std::move(files), options, state);
  if (!opened.ok()) ::_exit(2);
  recovery_log& log = *opened.value();
  std::mutex mu;
  std::map<std::string, std::deque<stored_message>> queues;
  for (auto& [name, messages] : state.queues) queues[name].assign(messages.begin(), messages.end());
  std::uint64_t next_id = first_id;
  const auto worker = [&](unsigned seed) {
    std::minstd_rand rng(seed);
    for (;;) {
      std::unique_lock<std::mutex> lock(mu);
      report r;
      r.id = next_id++;
      r.put_queue = static_cast<std::uint8_t>(r.id % queue_count);
      r.got_id = no_get;
      std::vector<log_op> batch;
      stored_message m = make_message(r.id);
      m.token = make_token(state.incarnation, r.id);
      batch.push_back(put_op(queue_name(r.put_queue), m));
      queues[queue_name(r.put_queue)].push_back(m);
      const int gq = static_cast<int>(rng() % queue_count);
      auto& from = queues[queue_name(gq)];
      if (rng() % 2 == 0 && !from.empty()) {
        r.get_queue = static_cast<std::uint8_t>(gq);
        r.got_id = message_id(from.front());
        batch.push_back(get_op(queue_name(gq), from.front().token));
        from.pop_front();
      }
      if (::write(out, &r, sizeof r) != static_cast<ssize_t>(sizeof r)) ::_exit(3);
      const auto seq = log.append(batch);
      if (log.needs_checkpoint()) {
        const auto cp = log.begin_checkpoint(next_id);
        std::map<std::string, std::vector<stored_message>> snapshot;
        for (const auto& [name, messages] : queues) snapshot[name].assign(messages.begin(), messages.end());
        lock.unlock();
        if (!log.write_checkpoint(cp, snapshot).ok()) ::_exit(4);
      } else {
        lock.unlock();
      }
      if (!log.wait_durable(seq).ok()) ::_exit(5);
      r.durable = 1;
      if (::write(out, &r, sizeof r) != static_cast<ssize_t>(sizeof r)) ::_exit(3);
    }
  };
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < 4; ++t) threads.emplace_back(worker, t + 1);
  for (auto& t : threads) t.join();
  ::_exit(6);
}

using CrashTest = log_dir_test;

TEST_F(CrashTest, KillNineNeverLosesADurableBatchNorInventsOne) {
  std::mt19937 rng(20261130);
  std::map<std::string, std::vector<std::uint64_t>> truth;  // what the last recovery found
  std::uint64_t next_id = 1;
  int checkpoint_rounds_killed_inside = 0;
  std::uint64_t total_durable = 0;
  for (int round = 0; round < 10; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    const std::size_t kill_in_checkpoint = round % 2 == 1 ? 1 + rng() % queue_count : 0;
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      ::close(fds[0]);
      run_child(dir_, queue_files(), fds[1], next_id, kill_in_checkpoint);
    }
    ::close(fds[1]);
    // Read until the child dies by itself (in a checkpoint) or until a random number of durable
    // reports, then kill it.
    const std::uint64_t kill_at = 20 + rng() % 400;
    std::map<std::uint64_t, report> intents;
    std::set<std::uint64_t> durable;
    bool killed = false;
    report r;
    for (;;) {
      const ssize_t n = ::read(fds[0], &r, sizeof r);
      if (n == 0) break;
      ASSERT_EQ(n, static_cast<ssize_t>(sizeof r));
      if (r.durable != 0) {
        durable.insert(r.id);
      } else {
        intents[r.id] = r;
      }
      if (!killed && durable.size() >= kill_at) {
        ::kill(pid, SIGKILL);
        killed = true;
      }
    }
    ::close(fds[0]);
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFSIGNALED(status)) << "child exited with " << WEXITSTATUS(status);
    if (!killed) ++checkpoint_rounds_killed_inside;
    total_durable += durable.size();

    recovered_state state;
    {
      auto log = open_log(state);
      ASSERT_TRUE(log);
    }
    // Where each message may be: in the last recovery's state, or put by an intent of this round.
    std::map<std::uint64_t, std::string> known;
    for (const auto& [name, list] : truth)
      for (auto id : list) known[id] = name;
    std::map<std::uint64_t, bool> got;  // id → the get's batch is durable
    for (const auto& [id, in] : intents) {
      known[id] = queue_name(in.put_queue);
      if (in.got_id != no_get) got[in.got_id] = durable.count(id) != 0;
    }
    std::set<std::uint64_t> seen;
    for (const auto& [name, messages] : state.queues) {
      std::uint64_t last = 0;
      for (const auto& m : messages) {
        const auto id = message_id(m);
        ASSERT_TRUE(seen.insert(id).second) << "message " << id << " twice";
        ASSERT_TRUE(known.count(id) != 0) << "message " << id << " out of nowhere";
        EXPECT_EQ(known[id], name) << "message " << id << " on the wrong queue";
        EXPECT_GT(id, last) << "put order broken on " << name;
        last = id;
        const auto g = got.find(id);
        EXPECT_FALSE(g != got.end() && g->second) << "message " << id << " was got durably";
      }
    }
    // Every message that was there before this round or whose put is durable must still be there,
    // unless some batch of this round got it (durable or not: either outcome is allowed then).
    for (const auto& [id, name] : known) {
      const bool was_in_truth = intents.count(id) == 0;
      if ((was_in_truth || durable.count(id) != 0) && got.count(id) == 0) {
        EXPECT_TRUE(seen.count(id) != 0) << "durable message " << id << " lost";
      }
    }
    truth.clear();
    for (const auto& [name, messages] : state.queues)
      for (const auto& m : messages) truth[name].push_back(message_id(m));
    next_id = intents.empty() ? next_id : intents.rbegin()->first + 1;
  }
  EXPECT_GT(total_durable, 100u);
  EXPECT_GT(checkpoint_rounds_killed_inside, 0) << "no round died inside write_checkpoint";
  // Checkpoints did happen: some queue file has a checkpoint number.
  bool any_checkpoint = false;
  for (int q = 0; q < queue_count; ++q) {
    std::ifstream in(dir_ / "queues" / queue_name(q) / "q", std::ios::binary);
    bytes raw((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    auto decoded = log_codec::decode_queue_file(raw);
    ASSERT_TRUE(decoded.ok());
    any_checkpoint = any_checkpoint || decoded->first > 0;
  }
  EXPECT_TRUE(any_checkpoint);
}

}  // namespace
}  // namespace imsb::qmgr::test
