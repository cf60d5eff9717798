#pragma once
// The recovery log and queue files of a running queue manager: what makes a persistent message
// survive any crash once its put or commit returned, and what makes a get that was committed never come
// back. [D] throughout (docs/design/queue-manager.md); IBM's layout names are kept where they exist
// [C: FILENAMES].
//
//   <qmgr dir>/log/amqhlctl.lfh      the log control file: the queue manager's incarnation number, the
//                                    next message token, the oldest log extent recovery needs
//                                    (written atomically: temporary file, fsync, rename, fsync folder)
//   <qmgr dir>/log/S<7 digits>.LOG   log extents, numbered from 0000000: records appended, never rewritten
//   <qmgr dir>/queues/<Q>/q          a queue's persistent messages as of the checkpoint named in its header
//
// A redo-only log: a unit of work reaches the log only when it commits, as one batch (its puts and gets
// of persistent messages, then a commit mark), so recovery never undoes anything — a batch whose commit
// mark is missing or whose checksum is wrong (a torn tail after a crash) is ignored, and so is everything
// after it in that extent. A record: u32 BE length, u32 BE CRC-32C of the rest, u8 type, the payload.
//
// Group commit: commit() appends the batch to the writer's buffer and waits; one writer thread writes
// what has gathered and fsyncs once for all of it, then wakes every committer it covered. The order of
// batches in the log is the order of commit() calls (callers serialize their in-memory change and the
// append under their own lock, then wait outside it: wait_durable()).
//
// Checkpoint: when an extent passes checkpoint_bytes, the caller (the engine, under its lock) calls
// begin_checkpoint(): later batches go to a new extent N+1; the caller hands over a snapshot of every
// queue's persistent committed messages; write_checkpoint() (outside the lock) waits until extent N is
// durable, writes each queue's file with header "checkpoint N+1" (temporary file, fsync, rename), writes
// the control file (oldest extent needed = N+1) and deletes extents ≤ N. Recovery applies to each queue
// only the records of extents ≥ its file's checkpoint number, so a crash anywhere in a checkpoint
// neither loses nor doubles a message.
//
// The control file also names the queues whose files held messages at the last checkpoint; with the
// queues named in the extents still present, that is every queue recovery must read, and every queue a
// checkpoint rewrites (a queue left out of the caller's snapshot gets an empty file with the new
// checkpoint number, so that its stale messages never come back) [D]. A queue file that is missing
// counts as empty with checkpoint 0 (store.reconcile() re-creates it empty) [D].
// open() always starts a new extent (one past the highest found), so a torn tail is never appended to.
//
// Tokens [D]: 16 bytes = 8-byte incarnation BE + 8-byte counter BE, made by the engine. Since open()
// bumps the incarnation durably before anything is appended, no token of an earlier run can have this
// run's incarnation, so recovered_state::next_token is simply 1; the next_token given to
// begin_checkpoint() is kept in the control file for diagnosis only.

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "imsb/core/bytes.hpp"
#include "imsb/core/result.hpp"
#include "imsb/mqi/connection.hpp"

namespace imsb::qmgr {

// A persistent message as the log and queue files keep it: the token, the queue-manager-side facts the
// engine needs, and the message (MQMD v2 encoded as the client protocol does, then the data).
struct stored_message {
  mqi::message_token token{};
  std::int64_t put_time_ms = 0;  // wall clock of the put, ms since 1970: expiry counts from it
  std::int32_t backout_count = 0;
  bytes md;  // encode_mqmd(md, 0x111, 819), 364 bytes
  bytes data;
};

struct log_op {
  enum class kind : std::uint8_t { put = 1, get = 2, backout_count = 3 };
  kind what = kind::put;
  std::string queue;       // the local queue's real name
  stored_message message;  // put: the whole message; get / backout_count: token (and backout_count)
};

struct log_options {
  bool fsync = true;                             // false only for benchmarks that say so
  std::uint64_t checkpoint_bytes = 64ull << 20;  // an extent this long asks for a checkpoint
};

// What recovery found: every queue's persistent messages in put order, the incarnation (one more than
// the last run's, already made durable in the control file) and the next token counter.
struct recovered_state {
  std::map<std::string, std::vector<stored_message>> queues;
  std::uint64_t incarnation = 0;
  std::uint64_t next_token = 1;
  std::uint64_t batches_replayed = 0;
  std::uint64_t torn_bytes_ignored = 0;  // bytes after the last good batch of an extent
};

class recovery_log {
 public:
  // Opens (creating log/ when missing), recovers (queue files, then the extents, as above), bumps the
  // incarnation durably, and starts the writer thread. `queue_file` gives the `q` file of a local queue
  // by real name (nullopt: the queue no longer exists; its records are dropped). Errors: I/O with the
  // path in `field`; a damaged queue file header: MQRC_OBJECT_DAMAGED (2101) naming the queue.
  using queue_file_fn = std::function<std::optional<std::filesystem::path>(const std::string& queue)>;
  static result<std::unique_ptr<recovery_log>> open(const std::filesystem::path& qmgr_dir,
                                                    queue_file_fn queue_file, log_options options,
                                                    recovered_state& recovered);
  ~recovery_log();  // stops the writer after writing what is buffered

  // Appends one committed batch and returns its sequence; wait_durable(seq) returns once it is on disk
  // (or the log failed: then every later call fails too, with MQRC_RESOURCE_PROBLEM (2102) and the
  // system's error in the detail — after a failed write nothing more is written: the queue manager must
  // stop and recover). A full file system: MQRC_Q_SPACE_NOT_AVAILABLE (2056) for the batch that did not
  // fit, which is then not in the log and must be undone by the caller in memory [D].
  std::uint64_t append(const std::vector<log_op>& batch);
  result<done> wait_durable(std::uint64_t seq);
  // The same wait without a thread: `then` is called once wait_durable(seq) would return at once — by
  // the writer after the write that made it durable (or that failed), by close() for a batch it will
  // never write, or here, now, when that is already so. It is called outside the log's lock and must be
  // short (it runs where the next write waits): the server posts the rest of the call to its runner
  // (docs/design/queue-manager.md "Server threads") [D].
  void when_durable(std::uint64_t seq, std::function<void()> then);

  // Checkpoint (above). needs_checkpoint() is true when no checkpoint is running and either the current
  // extent passed checkpoint_bytes or a write failed for space (2056) since the last begin_checkpoint()
  // and a checkpoint would retire something (an extent older than the current one, or batches in the
  // current one) — a full file system gets its space back only from a checkpoint deleting extents [D].
  bool needs_checkpoint() const;
  std::uint64_t begin_checkpoint(std::uint64_t next_token);  // under the caller's lock; returns N+1
  // The copying form: delegates to the streaming one below.
  result<done> write_checkpoint(std::uint64_t checkpoint,
                                const std::map<std::string, std::vector<stored_message>>& queues);
  // The streaming form [D]: one source per queue, called outside any lock of the log until it returns
  // false, each call filling `next` with the queue's next message in put order (`next` is the same
  // object on every call of one queue, so that its buffers' capacity is reused: set every field). Each
  // queue file is written as it is encoded through a bounded buffer (64 KiB; a message's md or data
  // longer than that is written straight from `next`), so a checkpoint holds one message per queue,
  // not a copy of the queue. Same files as the copying form (the queue-file format is unchanged).
  // A queue named twice: the first source counts, the other is never called. Errors: a full file
  // system (ENOSPC, EFBIG, EDQUOT) is MQRC_Q_SPACE_NOT_AVAILABLE (2056) and leaves the log as it was
  // (the control file unchanged, every extent kept; a queue file already replaced holds what its old
  // file and the kept extents give, so recovery is unchanged) [D].
  using message_source = std::function<bool(stored_message& next)>;
  result<done> write_checkpoint(std::uint64_t checkpoint,
                                std::vector<std::pair<std::string, message_source>> queues);

  // Writes what is buffered and stops the writer (the destructor calls it). A batch appended after it
  // fails with MQRC_RESOURCE_PROBLEM (2102), as after a failed write; it is never reported durable [D].
  void close();

  struct stats {
    std::uint64_t batches = 0;
    std::uint64_t fsyncs = 0;  // batches / fsyncs = how many commits one fsync served
    std::uint64_t bytes = 0;
    std::uint64_t checkpoints = 0;
  };
  stats statistics() const;

 private:
  recovery_log();
  struct impl;
  std::unique_ptr<impl> impl_;
};

// Queue-file and record codecs, pure, for the fuzz target and tests.
namespace log_codec {
void encode_batch(const std::vector<log_op>& batch, bytes& out);
// Decodes the batches at the start of an extent's bytes; stops at the first torn or bad record and says
// where (`good_bytes`).
struct extent_contents {
  std::vector<std::vector<log_op>> batches;
  std::size_t good_bytes = 0;
};
extent_contents decode_extent(bytes_view in);
void encode_queue_file(std::uint64_t checkpoint, const std::vector<stored_message>& messages, bytes& out);
result<std::pair<std::uint64_t, std::vector<stored_message>>> decode_queue_file(bytes_view in);
std::uint32_t crc32c(bytes_view in) noexcept;
}  // namespace log_codec

namespace detail {
// Test hook: when set, write_checkpoint() calls it after each queue file it put in place, with how many
// it has put in place so far (the crash test kills the process there). Not for production use.
extern void (*after_checkpoint_queue_file)(std::size_t files_written);
// Test hook: when set, called (from any thread) after each fsync of a folder the log made durable.
extern void (*after_folder_fsync)(const std::filesystem::path& folder);
// Test hook: when set, the writer calls it before each round of writes (a test holds the log there).
extern void (*before_log_write)();
}  // namespace detail

}  // namespace imsb::qmgr
