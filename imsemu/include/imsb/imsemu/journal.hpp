#pragma once
// The emulator's durable store: IMS's log, reduced to what the emulator needs.
//
// One append-only file, <dir>/journal.log: an 8-byte magic, then records
//   u32 payload length | u8 type | payload | u32 CRC-32 (over length, type and payload), big-endian.
// Every durable step is ONE record, written and fdatasync'd before the call returns; the in-memory state
// is then changed by the same code that replays the record at open, so the state after a reopen equals
// the state before. A crash mid-write leaves a torn tail record: open ignores it and truncates it away.
// The file grows by zeros written ahead of the records (256 KiB at a time [D]), so that an append's
// fdatasync writes data, not the inode: while the journal is open, and after a crash, zeros follow the
// records (open truncates them away as it does a torn tail); a clean close leaves the records only.
// A bad record followed by a good one is not a crash's doing: open reports it, naming its offset.
// checkpoint() rewrites the file as one snapshot record (write journal.tmp, fsync, rename, fsync dir).
// A step that takes the records after the last snapshot past the threshold starts a compaction instead,
// off the message path [D] (docs/design/concurrency.md, "The IMS emulator"): a thread replays the file's
// first E bytes (whole records, never changed again) into a state of its own, writes and fsyncs that snapshot
// as journal.tmp, then — holding the append lock only for this — copies the records appended since E after
// it, fdatasyncs, renames it over journal.log and fsyncs the folder. A step meanwhile waits at most for that
// last part, never for the snapshot; a crash at any point leaves the old file or the new one, both whole.
//
// What is logged when follows IMS [C: IMS-RS-CS]:
//  - recoverable input is logged with the Tpipe's receive number before the ACK (log_input);
//  - a recoverable run — database changes, the input's removal, its outputs' enqueue — is one step
//    (commit_run), which also appends the run to the execution journal that tests count;
//  - output is enqueued on the synchronized Tpipe, but its send number is logged only when the client
//    ACKs it (log_output_acked).
// [D] (docs/design/resync.md, the emulator's side): per synchronized Tpipe the store keeps
// {send_rsn, recv_rsn}; the queued output on that Tpipe is the "last output unacked".
//
// Not thread-safe: one owner (the engine) serialises the steps (the compaction thread is the journal's own).

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "imsb/core/bytes.hpp"
#include "imsb/core/result.hpp"
#include "imsb/ims/programs.hpp"

namespace imsb::imsemu {

using done = std::monostate;

// (client member name, tpipe name), both as the emulator holds them (CCSID 819, no padding).
using tpipe_key = std::pair<std::string, std::string>;

struct tpipe_state {
  bool synchronized = false;
  std::uint32_t recv_rsn = 0;  // last recoverable number received and logged (input)
  std::uint32_t send_rsn = 0;  // last recoverable number sent and ACKed (output)
  bool stopped = false;        // /STO TPIPE
};

struct queued_input {
  std::uint64_t id = 0;
  std::string client;
  std::string tpipe;
  std::uint32_t recoverable_seq = 0;  // 0: not a recoverable input
  bytes otma;                         // the message as received
};

struct queued_output {
  std::uint64_t id = 0;
  bytes data;
  bool synchronized = false;
};

// What commit_run enqueues: one message for a Tpipe.
struct output_spec {
  std::string client;
  std::string tpipe;
  bool synchronized = false;
  bytes data;
};

// One database change of a run; for erase only entry.last_name counts.
struct phonebook_change {
  enum class kind : std::uint8_t { put, erase } op = kind::put;
  ims::phone_entry entry;
};

// The execution journal's record of one run.
struct run_record {
  std::uint64_t run = 0;  // 1, 2, ... in commit order, assigned by commit_run
  std::uint64_t input_id = 0;
  std::string transaction;
  std::string client;
  std::string tpipe;
  std::uint32_t recoverable_seq = 0;
  std::string outcome;                    // e.g. "OK", "ABEND U0777" [D]: free text for tests and logs
  std::vector<std::uint64_t> output_ids;  // assigned by commit_run, in the order of its outputs
};

// Everything the log holds. Comparable, so tests check replay equality.
struct journal_state {
  std::map<tpipe_key, tpipe_state> tpipes;
  std::vector<queued_input> inputs;                         // in arrival order, not yet run
  std::map<tpipe_key, std::vector<queued_output>> outputs;  // per Tpipe, in enqueue order
  ims::memory_phonebook phonebook;
  std::vector<run_record> runs;
  std::uint64_t next_id = 1;      // the next input or output id
  std::uint32_t cold_starts = 0;  // how many cold starts this log has seen
  // The operator's /STO TRAN (true) or /STA TRAN (false) per code: IMS keeps the status across a warm or
  // emergency restart, over the definitions' STATUS(STOPPED) or STOP TRAN=, and a cold start drops it
  // [I: IMS restart, the status is checkpointed]. A code never named by either command is absent.
  std::map<std::string, bool> transaction_stopped;

  const queued_input* find_input(std::uint64_t id) const noexcept;
  const queued_output* find_output(std::uint64_t id) const noexcept;
};
bool operator==(const journal_state& a, const journal_state& b);
inline bool operator!=(const journal_state& a, const journal_state& b) { return !(a == b); }

class journal {
 public:
  // Opens (creating if needed) the log in `dir` and replays it. cold_start [C: MQ-RESYNC]
  // ("a cold-started tpipe starts again from 1"): keeps the phonebook — a database survives an IMS cold
  // start — and the execution journal, drops Tpipes, queued inputs and outputs, and logs that it did.
  // Errors: I/O (generic category errno), a bad magic or a bad record that is not the tail
  // (std::errc::illegal_byte_sequence, offset = the record's offset in journal.log).
  static result<journal> open(const std::filesystem::path& dir, bool cold_start);

  journal(journal&& other) noexcept;
  journal& operator=(journal&& other) noexcept;
  journal(const journal&) = delete;
  journal& operator=(const journal&) = delete;
  ~journal();

  const journal_state& state() const noexcept { return state_; }
  const std::filesystem::path& path() const noexcept { return path_; }
  std::uint64_t log_size() const noexcept;

  // Durable steps: when one returns a value, its record is on disk; on an error, nothing changed.
  // Logs an input before it is ACKed; creates the Tpipe on first use; sets recv_rsn when
  // recoverable_seq != 0 (the caller has checked it is the next number, else NAK X'001F'
  // [C: IMS-RS-SUMMARY]).
  result<std::uint64_t> log_input(const std::string& client, const std::string& tpipe, bool synchronized,
                                  std::uint32_t recoverable_seq, const bytes& otma);
  // One durable step for a run: removes input `input_id`, applies `changes`, enqueues `outputs` (creating
  // their Tpipes) and appends the run record (its run number and output ids filled in). Unknown input:
  // std::errc::invalid_argument.
  result<run_record> commit_run(std::uint64_t input_id, const std::string& transaction,
                                const std::string& outcome, const std::vector<phonebook_change>& changes,
                                const std::vector<output_spec>& outputs);
  // The client ACKed output `output_id`: dequeues it and, on a synchronized Tpipe when `send_rsn` is
  // given, logs the Tpipe's new send number [C: IMS-RS-CS].
  result<done> log_output_acked(std::uint64_t output_id, std::optional<std::uint32_t> send_rsn);
  // Dequeues output `output_id` unsent (/DEQUEUE, dequeue-last-output) [D].
  result<done> purge_output(std::uint64_t output_id);
  // Sets a Tpipe's numbers and stopped flag (REPresynch reset, /STO, /STA), creating it if needed.
  result<done> set_tpipe(const std::string& client, const std::string& tpipe, const tpipe_state& value);
  // /STO TRAN (stopped) or /STA TRAN (not): the status a warm start restores over the definitions'.
  result<done> set_transaction_stopped(const std::string& code, bool stopped);

  // Rewrites the log as one snapshot record. Every step calls it once the records after the last
  // snapshot pass checkpoint_threshold() bytes (default 4 MiB [D]); the step is durable either way.
  // Waits for a compaction in flight, then rewrites the log synchronously.
  result<done> checkpoint();
  // Waits until no compaction is in flight (tests; close and move do it too).
  void settle() noexcept;
  // Test hook: called on the compaction thread once its snapshot is durable in journal.tmp, before it
  // takes the append lock to copy the records appended since and swap the files.
  void set_compaction_hook(std::function<void()> hook);
  // How many background compactions swapped the file in, and the last one's error text ("" if none).
  std::uint64_t compactions() const noexcept;
  std::string last_compaction_error() const;
  void set_checkpoint_threshold(std::uint64_t bytes) noexcept { threshold_ = bytes; }
  std::uint64_t checkpoint_threshold() const noexcept { return threshold_; }

 private:
  journal() = default;
  result<done> append(std::uint8_t type, const bytes& payload);
  void after_step();
  void close() noexcept;
  result<done> compact(std::uint64_t end);  // the compaction thread's work (see the top of this file)
  result<done> swap_in(std::uint64_t snapshot_end);  // after the rename: fsync the folder, reopen
  result<done> reopen_after_rename(std::uint64_t snapshot_end);

  std::filesystem::path dir_;
  std::filesystem::path path_;
  int fd_ = -1;
  int dir_fd_ = -1;                 // holds the flock that keeps a second process out
  std::uint64_t size_ = 0;          // where the records end (log_size())
  std::uint64_t allocated_ = 0;     // the file's length: the records, then zeros written ahead of them
  std::uint64_t snapshot_end_ = 0;  // where the records after the file's snapshot begin
  std::uint64_t threshold_ = std::uint64_t{4} << 20;
  journal_state state_;
  struct background;                // the compaction thread, its lock and its hook
  std::unique_ptr<background> bg_;  // guards fd_, size_ and snapshot_end_ while a compaction runs
};

}  // namespace imsb::imsemu
