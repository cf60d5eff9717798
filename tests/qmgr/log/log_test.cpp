// The recovery log against a temporary folder: recovery, group commit, checkpoints, the per-queue
// replay rule, vanished queues, damaged files and a full file system.

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <fstream>
#include <future>
#include <mutex>
#include <optional>
#include <thread>

#include "held_log.hpp"
#include "imsb/mq/codes.hpp"
#include "imsb/mq/constants.hpp"
#include "log_fixture.hpp"

namespace imsb::qmgr::test {
namespace {

bytes read_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}
void write_bytes(const std::filesystem::path& path, const bytes& b) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
}

using LogTest = log_dir_test;

TEST_F(LogTest, FreshLogThenRecoveryKeepsCommittedPutsAndGets) {
  {
    recovered_state state;
    auto log = open_log(state);
    ASSERT_TRUE(log);
    EXPECT_EQ(state.incarnation, 1u);
    EXPECT_EQ(state.next_token, 1u);
    EXPECT_TRUE(state.queues.empty());
    for (std::uint64_t id = 1; id <= 5; ++id) {
      const auto seq = log->append({put_op("A", make_message(id))});
      ASSERT_TRUE(log->wait_durable(seq).ok());
    }
    const auto seq = log->append({get_op("A", make_message(2).token), put_op("B", make_message(6))});
    ASSERT_TRUE(log->wait_durable(seq).ok());
    log_op backout;
    backout.what = log_op::kind::backout_count;
    backout.queue = "A";
    backout.message.token = make_message(3).token;
    backout.message.backout_count = 2;
    ASSERT_TRUE(log->wait_durable(log->append({backout})).ok());
    EXPECT_EQ(log->statistics().batches, 7u);
  }
  recovered_state state;
  auto log = open_log(state);
  ASSERT_TRUE(log);
  EXPECT_EQ(state.incarnation, 2u);
  EXPECT_EQ(ids(state, "A"), (std::vector<std::uint64_t>{1, 3, 4, 5}));
  EXPECT_EQ(ids(state, "B"), (std::vector<std::uint64_t>{6}));
  EXPECT_EQ(state.queues["A"][1].backout_count, 2);
  EXPECT_EQ(state.queues["A"][1].md, make_message(3).md);
  EXPECT_EQ(state.batches_replayed, 7u);
  EXPECT_EQ(state.torn_bytes_ignored, 0u);
}

// An extent grows by zeros written ahead of its batches (recovery_log.cpp, preallocation), so that a
// batch's fdatasync need not write the inode too. A clean close trims them; those a crash (a child that
// exits without closing) leaves are read as the extent's end, not as a torn tail, and a torn batch before
// them still is one.
TEST_F(LogTest, AnExtentGrowsByZerosAheadThatACleanCloseTrimsAndACrashLeavesHarmless) {
  const auto extent = dir_ / "log" / "S0000000.LOG";
  {
    recovered_state state;
    auto log = open_log(state);
    ASSERT_TRUE(log);
    ASSERT_TRUE(log->wait_durable(log->append({put_op("A", make_message(1))})).ok());
    const auto ahead = std::filesystem::file_size(extent);
    EXPECT_GE(ahead, std::uintmax_t{1} << 20) << "no zeros written ahead of the batch";
    const bytes raw = read_bytes(extent);
    std::size_t end = raw.size();
    while (end > 0 && raw[end - 1] == 0) --end;
    EXPECT_LT(end, std::size_t{4096});
    ASSERT_TRUE(log->wait_durable(log->append({put_op("A", make_message(2))})).ok());
    EXPECT_EQ(std::filesystem::file_size(extent), ahead) << "the second batch grew the file again";
  }
  const auto trimmed = std::filesystem::file_size(extent);
  EXPECT_LT(trimmed, std::uintmax_t{4096}) << "a clean close left the zeros";
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    recovered_state state;
    auto opened = recovery_log::open(dir_, queue_files(), {}, state);
    if (!opened.ok()) ::_exit(8);
    if (!opened.value()->wait_durable(opened.value()->append({put_op("A", make_message(3))})).ok())
      ::_exit(1);
    ::_exit(0);  // no close: the zeros stay
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  ASSERT_EQ(WEXITSTATUS(status), 0);
  const auto crashed = dir_ / "log" / "S0000001.LOG";
  ASSERT_GE(std::filesystem::file_size(crashed), std::uintmax_t{1} << 20);
  {
    recovered_state state;
    auto log = open_log(state);
    ASSERT_TRUE(log);
    EXPECT_EQ(ids(state, "A"), (std::vector<std::uint64_t>{1, 2, 3}));
    EXPECT_EQ(state.torn_bytes_ignored, 0u) << "the zeros ahead were counted as a torn tail";
  }
  // A batch torn in front of the zeros: counted, and only its bytes.
  bytes raw = read_bytes(crashed);
  std::size_t end = raw.size();
  while (end > 0 && raw[end - 1] == 0) --end;
  ASSERT_GT(end, 20u);
  raw[end - 1] = 0;
  raw[end - 2] ^= 0x55;  // the batch's last bytes damaged
  write_bytes(crashed, raw);
  std::filesystem::remove(dir_ / "log" / "S0000002.LOG");  // the clean run's empty extent, if any
  recovered_state state;
  auto log = open_log(state);
  ASSERT_TRUE(log);
  EXPECT_EQ(ids(state, "A"), (std::vector<std::uint64_t>{1, 2}));
  EXPECT_GT(state.torn_bytes_ignored, 0u);
  EXPECT_LT(state.torn_bytes_ignored, std::uint64_t{4096});
}

TEST_F(LogTest, TornTailOfTheLastExtentIsIgnoredAndNeverAppendedTo) {
  {
    recovered_state state;
    auto log = open_log(state);
    ASSERT_TRUE(log);
    ASSERT_TRUE(log->wait_durable(log->append({put_op("A", make_message(1))})).ok());
    ASSERT_TRUE(log->wait_durable(log->append({put_op("A", make_message(2))})).ok());
  }
  const auto extent = dir_ / "log" / "S0000000.LOG";
  bytes raw = read_bytes(extent);
  ASSERT_GT(raw.size(), 20u);
  raw.resize(raw.size() - 5);  // the second batch's commit mark torn
  write_bytes(extent, raw);
  {
    recovered_state state;
    auto log = open_log(state);
    ASSERT_TRUE(log);
    EXPECT_EQ(ids(state, "A"), (std::vector<std::uint64_t>{1}));
    EXPECT_GT(state.torn_bytes_ignored, 0u);
    ASSERT_TRUE(log->wait_durable(log->append({put_op("A", make_message(3))})).ok());
  }
  EXPECT_TRUE(std::filesystem::exists(dir_ / "log" / "S0000001.LOG"));
  recovered_state state;
  auto log = open_log(state);
  ASSERT_TRUE(log);
  EXPECT_EQ(ids(state, "A"), (std::vector<std::uint64_t>{1, 3}));
  EXPECT_EQ(state.incarnation, 3u);
}

TEST_F(LogTest, GroupCommitServesManyBatchesPerFsync) {
  recovered_state state;
  auto log = open_log(state);  // fsync on
  ASSERT_TRUE(log);
  constexpr int threads = 16;
  constexpr int per_thread = 20;
  std::vector<std::thread> workers;
  std::atomic<int> failures{0};
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      for (int i = 0; i < per_thread; ++i) {
        const auto id = static_cast<std::uint64_t>(t * 1000 + i + 1);
        if (!log->wait_durable(log->append({put_op("Q" + std::to_string(t % 4), make_message(id))})).ok())
          ++failures;
      }
    });
  }
  for (auto& w : workers) w.join();
  EXPECT_EQ(failures.load(), 0);
  const auto st = log->statistics();
  EXPECT_EQ(st.batches, static_cast<std::uint64_t>(threads * per_thread));
  EXPECT_GT(st.fsyncs, 0u);
  EXPECT_LT(st.fsyncs, st.batches);
  log.reset();
  recovered_state again;
  auto reopened = open_log(again);
  std::size_t total = 0;
  for (const auto& [name, messages] : again.queues) total += messages.size();
  EXPECT_EQ(total, static_cast<std::size_t>(threads * per_thread));
}

TEST_F(LogTest, CheckpointWritesQueueFilesAndDropsOldExtents) {
  log_options options;
  options.checkpoint_bytes = 200;
  {
    recovered_state state;
    auto log = open_log(state, options);
    ASSERT_TRUE(log);
    EXPECT_FALSE(log->needs_checkpoint());
    ASSERT_TRUE(
        log->wait_durable(log->append({put_op("A", make_message(1)), put_op("B", make_message(2))})).ok());
    ASSERT_TRUE(log->wait_durable(log->append({put_op("A", make_message(3))})).ok());
    ASSERT_TRUE(log->wait_durable(log->append({get_op("B", make_message(2).token)})).ok());
    ASSERT_TRUE(log->needs_checkpoint());
    const auto cp = log->begin_checkpoint(77);
    EXPECT_EQ(cp, 1u);
    EXPECT_FALSE(log->needs_checkpoint());  // one at a time
    // A batch after begin goes to the next extent and is not in the snapshot.
    const auto later = log->append({put_op("A", make_message(4))});
    std::map<std::string, std::vector<stored_message>> snapshot;
    snapshot["A"] = {make_message(1), make_message(3)};  // B left out: it is empty
    ASSERT_TRUE(log->write_checkpoint(cp, snapshot).ok());
    ASSERT_TRUE(log->wait_durable(later).ok());
    EXPECT_EQ(log->statistics().checkpoints, 1u);
  }
  EXPECT_FALSE(std::filesystem::exists(dir_ / "log" / "S0000000.LOG"));
  EXPECT_TRUE(std::filesystem::exists(dir_ / "log" / "S0000001.LOG"));
  auto a = log_codec::decode_queue_file(read_bytes(dir_ / "queues" / "A" / "q"));
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->first, 1u);
  EXPECT_EQ(a->second.size(), 2u);
  auto b = log_codec::decode_queue_file(read_bytes(dir_ / "queues" / "B" / "q"));
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->first, 1u);  // rewritten empty although the snapshot left it out
  EXPECT_TRUE(b->second.empty());

  recovered_state state;
  auto log = open_log(state, options);
  ASSERT_TRUE(log);
  EXPECT_EQ(ids(state, "A"), (std::vector<std::uint64_t>{1, 3, 4}));
  EXPECT_TRUE(ids(state, "B").empty());
  EXPECT_EQ(state.batches_replayed, 1u);
}

TEST_F(LogTest, ReplayAppliesOnlyExtentsAtOrAfterTheQueueFilesCheckpoint) {
  // A checkpoint that wrote A's file and then crashed (no control file update): extent 0 is still
  // there, A's file says checkpoint 1, B's file is still the empty one (checkpoint 0).
  {
    recovered_state state;
    auto log = open_log(state);
    ASSERT_TRUE(log);
    ASSERT_TRUE(
        log->wait_durable(log->append({put_op("A", make_message(1)), put_op("B", make_message(3))})).ok());
    const auto cp = log->begin_checkpoint(1);
    ASSERT_EQ(cp, 1u);
    ASSERT_TRUE(
        log->wait_durable(log->append({put_op("A", make_message(2)), put_op("B", make_message(4))})).ok());
    bytes file;
    log_codec::encode_queue_file(cp, {make_message(1)}, file);
    std::filesystem::create_directories(dir_ / "queues" / "A");
    write_bytes(dir_ / "queues" / "A" / "q", file);
  }
  recovered_state state;
  auto log = open_log(state);
  ASSERT_TRUE(log);
  EXPECT_EQ(ids(state, "A"), (std::vector<std::uint64_t>{1, 2}));  // not 1 twice
  EXPECT_EQ(ids(state, "B"), (std::vector<std::uint64_t>{3, 4}));
}

TEST_F(LogTest, RecordsOfAQueueThatIsGoneAreDropped) {
  {
    recovered_state state;
    auto log = open_log(state);
    ASSERT_TRUE(log);
    ASSERT_TRUE(
        log->wait_durable(log->append({put_op("GONE", make_message(1)), put_op("KEPT", make_message(2))}))
            .ok());
    ASSERT_TRUE(log->wait_durable(log->append({put_op("NOFILE", make_message(3))})).ok());
  }
  gone_.insert("GONE");
  std::filesystem::remove_all(dir_ / "queues" / "NOFILE");  // defined, but its file vanished
  recovered_state state;
  auto log = open_log(state);
  ASSERT_TRUE(log);
  EXPECT_EQ(state.queues.count("GONE"), 0u);
  EXPECT_EQ(ids(state, "KEPT"), (std::vector<std::uint64_t>{2}));
  EXPECT_EQ(ids(state, "NOFILE"), (std::vector<std::uint64_t>{3}));  // missing file = empty, checkpoint 0
  // A checkpoint never writes a file for a queue that is gone.
  const auto cp = log->begin_checkpoint(1);
  ASSERT_TRUE(log->write_checkpoint(cp, state.queues).ok());
  EXPECT_FALSE(std::filesystem::exists(dir_ / "queues" / "GONE" / "q"));
}

TEST_F(LogTest, DamagedQueueFileFailsOpenNamingTheQueue) {
  {
    recovered_state state;
    auto log = open_log(state);
    ASSERT_TRUE(log);
    ASSERT_TRUE(log->wait_durable(log->append({put_op("BAD.Q", make_message(1))})).ok());
  }
  std::filesystem::create_directories(dir_ / "queues" / "BAD.Q");
  write_bytes(dir_ / "queues" / "BAD.Q" / "q", bytes{'I', 'M', 'S', 'B', 'Q', 'F', '0', '1', 1, 2, 3});
  recovered_state state;
  auto opened = recovery_log::open(dir_, queue_files(), {}, state);
  ASSERT_FALSE(opened.ok());
  EXPECT_EQ(opened.error().code, mq::make_mqrc(mq::MQRC_OBJECT_DAMAGED));
  EXPECT_NE(opened.error().detail.find("BAD.Q"), std::string::npos) << opened.error().to_string();
}

TEST_F(LogTest, DamagedControlFileFailsOpen) {
  {
    recovered_state state;
    ASSERT_TRUE(open_log(state));
  }
  auto raw = read_bytes(dir_ / "log" / "amqhlctl.lfh");
  ASSERT_FALSE(raw.empty());
  raw[raw.size() / 2] ^= 0xFF;
  write_bytes(dir_ / "log" / "amqhlctl.lfh", raw);
  recovered_state state;
  auto opened = recovery_log::open(dir_, queue_files(), {}, state);
  ASSERT_FALSE(opened.ok());
  EXPECT_EQ(opened.error().code, mq::make_mqrc(mq::MQRC_RESOURCE_PROBLEM));
}

TEST_F(LogTest, AFailedWriteEndsTheLogForEveryLaterCall) {
  recovered_state state;
  auto log = open_log(state);
  ASSERT_TRUE(log);
  // The writer makes its extent at the first batch: without log/ it cannot, and the log is finished.
  std::filesystem::remove_all(dir_ / "log");
  auto first = log->wait_durable(log->append({put_op("A", make_message(1))}));
  ASSERT_FALSE(first.ok());
  EXPECT_EQ(first.error().code, mq::make_mqrc(mq::MQRC_RESOURCE_PROBLEM));
  std::filesystem::create_directories(dir_ / "log");  // even with the folder back
  auto later = log->wait_durable(log->append({put_op("A", make_message(2))}));
  ASSERT_FALSE(later.ok());
  EXPECT_EQ(later.error().code, mq::make_mqrc(mq::MQRC_RESOURCE_PROBLEM));
  EXPECT_FALSE(log->needs_checkpoint());
}

// when_durable: called by the writer once the batch is on disk and not before; at once for a batch that is
// durable already; for a batch after close(), which is never written, by close() or at once; and after a
// failed write for every batch, with wait_durable then answering without a wait.
TEST_F(LogTest, WhenDurableCallsBackOnceTheBatchIsOnDiskOrNeverWillBe) {
  recovered_state state;
  auto log = open_log(state);
  ASSERT_TRUE(log);
  std::optional<imsb::test::held_log> held(std::in_place);
  std::atomic<int> called{0};
  std::promise<void> first_call;
  auto durable = first_call.get_future();
  const auto seq = log->append({put_op("A", make_message(1))});
  log->when_durable(seq, [&] {
    if (++called == 1) first_call.set_value();
  });
  ASSERT_TRUE(held->writer_held());  // the writer holds the batch, not written yet
  EXPECT_EQ(called.load(), 0);
  held.reset();
  ASSERT_TRUE(log->wait_durable(seq).ok());
  ASSERT_EQ(durable.wait_for(std::chrono::seconds(10)), std::future_status::ready);
  EXPECT_EQ(called.load(), 1);
  // Durable already: at once, in this thread.
  const auto caller = std::this_thread::get_id();
  std::thread::id where;
  log->when_durable(seq, [&] { where = std::this_thread::get_id(); });
  EXPECT_EQ(where, caller);
  // After close(): never written, called all the same; wait_durable fails it.
  log->close();
  const auto late = log->append({put_op("A", make_message(2))});
  bool late_called = false;
  log->when_durable(late, [&] { late_called = true; });
  EXPECT_TRUE(late_called);
  auto r = log->wait_durable(late);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, mq::make_mqrc(mq::MQRC_RESOURCE_PROBLEM));
  EXPECT_EQ(called.load(), 1);  // each callback once
}

TEST_F(LogTest, WhenDurableCallsBackAfterAFailedWrite) {
  recovered_state state;
  auto log = open_log(state);
  ASSERT_TRUE(log);
  std::filesystem::remove_all(dir_ / "log");  // the first write cannot make its extent
  std::promise<void> called;
  auto done = called.get_future();
  const auto seq = log->append({put_op("A", make_message(1))});
  log->when_durable(seq, [&] { called.set_value(); });
  ASSERT_EQ(done.wait_for(std::chrono::seconds(10)), std::future_status::ready);
  auto r = log->wait_durable(seq);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, mq::make_mqrc(mq::MQRC_RESOURCE_PROBLEM));
}

// A full file system, simulated with RLIMIT_FSIZE in a child (SIGXFSZ ignored: write gets EFBIG). The
// child reports through its exit status: bit 0 small batch failed, bit 1 big batch did not get 2056,
// bit 2 the batch after it failed, bit 3 open failed.
TEST_F(LogTest, FullFileSystemFailsJustThatBatchWithQSpaceNotAvailable) {
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    int status = 0;
    recovered_state state;
    auto opened = recovery_log::open(dir_, queue_files(), {}, state);
    if (!opened.ok()) ::_exit(8);
    auto& log = *opened.value();
    ::signal(SIGXFSZ, SIG_IGN);
    rlimit limit{64 * 1024, 64 * 1024};
    ::setrlimit(RLIMIT_FSIZE, &limit);
    if (!log.wait_durable(log.append({put_op("A", make_message(1))})).ok()) status |= 1;
    auto big = log.wait_durable(log.append({put_op("A", make_message(2, 100 * 1024))}));
    if (big.ok() || big.error().code != mq::make_mqrc(mq::MQRC_Q_SPACE_NOT_AVAILABLE)) status |= 2;
    if (!log.wait_durable(log.append({put_op("A", make_message(3))})).ok()) status |= 4;
    opened.value().reset();
    ::_exit(status);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  recovered_state state;
  auto log = open_log(state);
  ASSERT_TRUE(log);
  EXPECT_EQ(ids(state, "A"), (std::vector<std::uint64_t>{1, 3}));
  EXPECT_EQ(state.torn_bytes_ignored, 0u);  // the failed write was cut back
}

}  // namespace
}  // namespace imsb::qmgr::test
