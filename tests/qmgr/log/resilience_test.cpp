// The recovery log under pressure: the streaming checkpoint (bounded memory, same bytes as the copying
// form), a full file system (a write that fails for space asks for a checkpoint, which gives the space
// back; a checkpoint that itself fails for space changes nothing), the folders made durable, and batches
// appended after close() (never reported durable).

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <future>
#include <mutex>
#include <thread>

#include "imsb/mq/codes.hpp"
#include "imsb/mq/constants.hpp"
#include "log_fixture.hpp"

namespace imsb::qmgr::test {
namespace {

bytes read_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// A source over a vector, counting its calls.
recovery_log::message_source source_of(const std::vector<stored_message>& messages, int* calls = nullptr) {
  auto at = std::make_shared<std::size_t>(0);
  return [&messages, at, calls](stored_message& next) {
    if (calls != nullptr) ++*calls;
    if (*at == messages.size()) return false;
    next = messages[(*at)++];
    return true;
  };
}

using ResilienceTest = log_dir_test;

TEST_F(ResilienceTest, StreamingCheckpointWritesWhatTheCodecEncodes) {
  // Many small messages (several 64 KiB flushes), one whose data and one whose md exceed the buffer
  // (written straight from the message), and an empty queue.
  std::vector<stored_message> a;
  for (std::uint64_t id = 1; id <= 300; ++id) a.push_back(make_message(id, 100 + id * 7));
  a.push_back(make_message(301, 300 * 1024));
  a.back().backout_count = 3;
  stored_message big_md = make_message(302, 10);
  big_md.md.assign(70 * 1024, 0x5A);
  a.push_back(big_md);
  a.push_back(make_message(303, 65536 - 40));
  const std::vector<stored_message> none;
  const std::vector<stored_message> other{make_message(999)};
  int a_calls = 0;
  int twice_calls = 0;
  int gone_calls = 0;
  {
    recovered_state state;
    auto log = open_log(state);
    ASSERT_TRUE(log);
    ASSERT_TRUE(log->wait_durable(log->append({put_op("A", make_message(1)), put_op("E", make_message(2)),
                                               put_op("GONE", make_message(3))}))
                    .ok());
    gone_.insert("GONE");
    const auto cp = log->begin_checkpoint(5);
    std::vector<std::pair<std::string, recovery_log::message_source>> sources;
    // Streamed, not gathered: by the 250th message (~240 KiB so far) the file is being written.
    std::uintmax_t written_at_250 = 0;
    auto a_source = source_of(a, &a_calls);
    sources.emplace_back("A", [&, a_source](stored_message& next) {
      if (a_calls == 250) {
        std::error_code ec;
        const auto size = std::filesystem::file_size(dir_ / "queues" / "A" / "q.ckpt", ec);
        if (!ec) written_at_250 = size;
      }
      return a_source(next);
    });
    sources.emplace_back("A", source_of(other, &twice_calls));  // named twice: the first counts
    sources.emplace_back("GONE", source_of(other, &gone_calls));
    // E is named by the log but has no source: it gets an empty file.
    ASSERT_TRUE(log->write_checkpoint(cp, std::move(sources)).ok());
    EXPECT_EQ(log->statistics().checkpoints, 1u);
    EXPECT_GE(written_at_250, 128u * 1024);
  }
  EXPECT_EQ(a_calls, static_cast<int>(a.size()) + 1);  // every message, then false once
  EXPECT_EQ(twice_calls, 0);
  EXPECT_EQ(gone_calls, 0);
  bytes expected;
  log_codec::encode_queue_file(1, a, expected);
  EXPECT_EQ(read_bytes(dir_ / "queues" / "A" / "q"), expected);
  expected.clear();
  log_codec::encode_queue_file(1, none, expected);
  EXPECT_EQ(read_bytes(dir_ / "queues" / "E" / "q"), expected);
  EXPECT_FALSE(std::filesystem::exists(dir_ / "queues" / "GONE" / "q"));
  EXPECT_FALSE(std::filesystem::exists(dir_ / "queues" / "A" / "q.ckpt"));
  EXPECT_FALSE(std::filesystem::exists(dir_ / "log" / "S0000000.LOG"));

  recovered_state state;
  auto log = open_log(state);
  ASSERT_TRUE(log);
  ASSERT_EQ(state.queues["A"].size(), a.size());
  EXPECT_EQ(state.queues["A"][300].data, a[300].data);
  EXPECT_EQ(state.queues["A"][300].backout_count, 3);
  EXPECT_EQ(state.queues["A"][301].md, big_md.md);
  EXPECT_TRUE(ids(state, "E").empty());
  EXPECT_EQ(state.batches_replayed, 0u);
}

TEST_F(ResilienceTest, TheCopyingFormStillWritesTheSameFiles) {
  recovered_state state;
  auto log = open_log(state);
  ASSERT_TRUE(log);
  ASSERT_TRUE(
      log->wait_durable(log->append({put_op("A", make_message(1)), put_op("B", make_message(2))})).ok());
  const auto cp = log->begin_checkpoint(1);
  std::map<std::string, std::vector<stored_message>> snapshot;
  snapshot["A"] = {make_message(1), make_message(7, 100 * 1024)};
  ASSERT_TRUE(log->write_checkpoint(cp, snapshot).ok());
  bytes expected;
  log_codec::encode_queue_file(cp, snapshot["A"], expected);
  EXPECT_EQ(read_bytes(dir_ / "queues" / "A" / "q"), expected);
  expected.clear();
  log_codec::encode_queue_file(cp, {}, expected);
  EXPECT_EQ(read_bytes(dir_ / "queues" / "B" / "q"), expected);
}

// The full-file-system tests run in a child under RLIMIT_FSIZE (SIGXFSZ ignored: a write past the limit
// gets EFBIG), reporting through exit-status bits; the parent then recovers without the limit.
void limit_file_size(rlim_t bytes_allowed) {
  ::signal(SIGXFSZ, SIG_IGN);
  rlimit limit{bytes_allowed, bytes_allowed};
  ::setrlimit(RLIMIT_FSIZE, &limit);
}
bool is_2056(const result<done>& r) {
  return !r.ok() && r.error().code == mq::make_mqrc(mq::MQRC_Q_SPACE_NOT_AVAILABLE);
}

TEST_F(ResilienceTest, AWriteThatFailsForSpaceAsksForACheckpointThatGivesTheSpaceBack) {
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    int status = 0;
    recovered_state state;
    auto opened = recovery_log::open(dir_, queue_files(), {}, state);  // checkpoint_bytes: 64 MiB
    if (!opened.ok()) ::_exit(64);
    auto& log = *opened.value();
    limit_file_size(64 * 1024);
    // Nothing in the log yet: a checkpoint would retire nothing, so none is asked for.
    if (!is_2056(log.wait_durable(log.append({put_op("A", make_message(1, 100 * 1024))})))) status |= 1;
    if (log.needs_checkpoint()) status |= 2;
    // Puts and gets until the extent is full.
    std::uint64_t id = 2;
    bool full = false;
    for (; id < 100 && !full; ++id) {
      const auto m = make_message(id, 4 * 1024);
      auto put = log.wait_durable(log.append({put_op("A", m)}));
      if (is_2056(put)) {
        full = true;
        break;
      }
      if (!put.ok() || !log.wait_durable(log.append({get_op("A", m.token)})).ok()) status |= 4;
    }
    if (!full) status |= 8;
    if (!log.needs_checkpoint()) status |= 16;
    const auto cp = log.begin_checkpoint(id);
    if (log.needs_checkpoint()) status |= 16;
    std::map<std::string, std::vector<stored_message>> snapshot;  // A is empty
    if (!log.write_checkpoint(cp, snapshot).ok()) status |= 32;
    if (std::filesystem::exists(dir_ / "log" / "S0000000.LOG")) status |= 32;
    if (log.needs_checkpoint()) status |= 16;
    if (!log.wait_durable(log.append({put_op("A", make_message(500, 4 * 1024))})).ok()) status |= 4;
    opened.value().reset();
    ::_exit(status);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "bits: 1 no 2056, 2 asked for a useless checkpoint, 4 a write "
                                       "failed, 8 never full, 16 needs_checkpoint wrong, 32 checkpoint";
  recovered_state state;
  auto log = open_log(state);
  ASSERT_TRUE(log);
  EXPECT_EQ(ids(state, "A"), (std::vector<std::uint64_t>{500}));
}

TEST_F(ResilienceTest, ACheckpointThatFailsForSpaceLeavesTheLogAsItWas) {
  const auto control = dir_ / "log" / "amqhlctl.lfh";
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    int status = 0;
    recovered_state state;
    auto opened = recovery_log::open(dir_, queue_files(), {}, state);
    if (!opened.ok()) ::_exit(64);
    auto& log = *opened.value();
    // Before the limit: A's small message and B's big one (whose queue file cannot be written later).
    if (!log.wait_durable(
                log.append({put_op("A", make_message(1)), put_op("B", make_message(2, 100 * 1024))}))
             .ok())
      status |= 1;
    const bytes control_before = read_bytes(control);
    limit_file_size(64 * 1024);
    if (!is_2056(log.wait_durable(log.append({put_op("A", make_message(3))})))) status |= 2;  // extent full
    if (!log.needs_checkpoint()) status |= 4;
    const auto cp = log.begin_checkpoint(9);
    std::map<std::string, std::vector<stored_message>> snapshot;
    snapshot["A"] = {make_message(1)};
    snapshot["B"] = {make_message(2, 100 * 1024)};
    if (!is_2056(log.write_checkpoint(cp, snapshot))) status |= 8;
    if (read_bytes(control) != control_before) status |= 16;
    if (!std::filesystem::exists(dir_ / "log" / "S0000000.LOG")) status |= 16;
    if (std::filesystem::exists(dir_ / "queues" / "B" / "q.ckpt")) status |= 32;  // its space given back
    if (log.statistics().checkpoints != 0) status |= 16;
    // The log goes on in the new extent.
    if (!log.wait_durable(log.append({put_op("A", make_message(4))})).ok()) status |= 1;
    opened.value().reset();
    ::_exit(status);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "bits: 1 a write failed, 2 no 2056 for the batch, 4 no checkpoint "
                                       "asked for, 8 checkpoint not 2056, 16 log changed, 32 temp left";
  recovered_state state;
  auto log = open_log(state);
  ASSERT_TRUE(log);
  EXPECT_EQ(ids(state, "A"), (std::vector<std::uint64_t>{1, 4}));  // not 1 twice
  EXPECT_EQ(ids(state, "B"), (std::vector<std::uint64_t>{2}));
  // And the next checkpoint, with room, completes.
  const auto cp = log->begin_checkpoint(1);
  ASSERT_TRUE(log->write_checkpoint(cp, state.queues).ok());
  EXPECT_FALSE(std::filesystem::exists(dir_ / "log" / "S0000000.LOG"));
}

std::mutex fsynced_mu;
std::vector<std::filesystem::path> fsynced;
void record_fsync(const std::filesystem::path& folder) {
  std::lock_guard<std::mutex> g(fsynced_mu);
  fsynced.push_back(folder.lexically_normal());
}
std::size_t fsyncs_of(const std::filesystem::path& folder) {
  std::lock_guard<std::mutex> g(fsynced_mu);
  return static_cast<std::size_t>(std::count(fsynced.begin(), fsynced.end(), folder.lexically_normal()));
}

TEST_F(ResilienceTest, EveryFolderTheLogChangesIsMadeDurable) {
  detail::after_folder_fsync = record_fsync;
  {
    recovered_state state;
    auto log = open_log(state);
    ASSERT_TRUE(log);
    EXPECT_EQ(fsyncs_of(dir_), 1u) << "the queue manager's folder, after log/ was made in it";
    EXPECT_GE(fsyncs_of(dir_ / "log"), 1u) << "log/, after the control file's rename";
    const auto after_open = fsyncs_of(dir_ / "log");
    ASSERT_TRUE(log->wait_durable(log->append({put_op("A", make_message(1))})).ok());
    EXPECT_EQ(fsyncs_of(dir_ / "log"), after_open + 1) << "log/, after the extent was made";
    const auto cp = log->begin_checkpoint(2);
    std::map<std::string, std::vector<stored_message>> snapshot;
    snapshot["A"] = {make_message(1)};
    ASSERT_TRUE(log->write_checkpoint(cp, snapshot).ok());
    EXPECT_EQ(fsyncs_of(dir_ / "queues" / "A"), 1u) << "the queue's folder, after its file's rename";
    EXPECT_EQ(fsyncs_of(dir_ / "log"), after_open + 3) << "log/, after the control file and the deletion";
  }
  {
    recovered_state state;
    auto log = open_log(state);  // log/ exists: the queue manager's folder is not synced again
    ASSERT_TRUE(log);
    EXPECT_EQ(fsyncs_of(dir_), 1u);
  }
  detail::after_folder_fsync = nullptr;
  std::lock_guard<std::mutex> g(fsynced_mu);
  fsynced.clear();
}

TEST_F(ResilienceTest, ABatchAppendedAfterCloseFailsAndIsNeverReportedDurable) {
  {
    recovered_state state;
    auto log = open_log(state);
    ASSERT_TRUE(log);
    const auto first = log->append({put_op("A", make_message(1))});
    log->close();
    EXPECT_TRUE(log->wait_durable(first).ok());  // written by close()
    const auto later = log->append({put_op("A", make_message(2))});
    auto waited = std::async(std::launch::async, [&] { return log->wait_durable(later); });
    ASSERT_EQ(waited.wait_for(std::chrono::seconds(10)), std::future_status::ready) << "wait_durable hangs";
    const auto r = waited.get();
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, mq::make_mqrc(mq::MQRC_RESOURCE_PROBLEM)) << r.error().to_string();
    EXPECT_FALSE(log->needs_checkpoint());
    log->close();  // twice is harmless
  }
  recovered_state state;
  auto log = open_log(state);
  ASSERT_TRUE(log);
  EXPECT_EQ(ids(state, "A"), (std::vector<std::uint64_t>{1}));
}

}  // namespace
}  // namespace imsb::qmgr::test
