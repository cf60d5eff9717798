#pragma once
// Private to qmgr/src: the state of the running queue manager (queue_manager.hpp) shared by
// queue_manager.cpp (messages, units of work, the in-process connection) and engine_admin.cpp (MQSC,
// inquiries). [D] throughout: one mutex guards everything here; the recovery log is waited for outside it.
// The engine's members carry IMSB_GUARDED_BY(mu) and its helpers IMSB_REQUIRES(mu), which clang checks
// (-Wthread-safety, docs/design/concurrency.md "Checking it"). A conn_state, local_queue or handle_state
// is reached only through the engine's maps or a connection's pointer to its own conn_state, under mu:
// the analysis cannot name the engine's mutex from inside those structures, so that rule is the comments'.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "imsb/mq/constants.hpp"
#include "imsb/mqi/connection.hpp"
#include "imsb/objects/catalog.hpp"
#include "imsb/objects/mqsc_exec.hpp"
#include "imsb/objects/object.hpp"
#include "imsb/objects/resolution.hpp"
#include "imsb/qmgr/message_rules.hpp"
#include "imsb/qmgr/queue_manager.hpp"
#include "imsb/qmgr/recovery_log.hpp"
#include "imsb/qmgr/store.hpp"
#include "imsb/sync/mutex.hpp"

namespace imsb::qmgr::engine_detail {

// A message's immutable part, shared by the queue and any browse copy.
struct body {
  mq::mqmd md;
  bytes data;
};

// The order of a local queue: priority descending, then arrival (MSGDLVSQ(PRIORITY) [C: LOCALQ-DOC]).
struct msg_key {
  std::int32_t priority = 0;
  std::uint64_t seq = 0;
  bool operator<(const msg_key& o) const noexcept {
    return priority != o.priority ? priority > o.priority : seq < o.seq;
  }
};

struct msg_entry {
  std::shared_ptr<const body> b;
  mqi::message_token token{};
  bool persistent = false;
  std::int64_t put_time_ms = 0;
  std::int32_t backout_count = 0;
  std::uint64_t locked_by = 0;   // the connection whose unit of work got it under syncpoint; 0: none
  bool uncommitted_put = false;  // put under syncpoint and not committed yet: invisible to others
  // Durability before visibility [D]: a put whose batch is being made durable stays invisible
  // (uncommitted_put) and a get's message stays locked (locked_by) until the log said yes; then
  // settle_locked() makes it visible / removes it, or undoes it when the log failed.
  enum class commit_state : std::uint8_t { none, put, get };
  commit_state committing = commit_state::none;
  bool visible() const noexcept { return locked_by == 0 && !uncommitted_put; }
};

struct local_queue {
  std::map<msg_key, msg_entry> messages;
  // Which definition of the name this is: a handle remembers it, so that after DELETE and DEFINE of the
  // same name an old handle (browse or inquire only: DELETE refuses while input or output handles are
  // open) gets MQRC_Q_DELETED (2052) rather than the new queue [D].
  std::uint64_t generation = 0;
  std::int32_t open_input = 0;
  std::int32_t open_output = 0;
  bool exclusive = false;  // one handle has it open for exclusive input
};

struct handle_state {
  std::string object_name;  // as opened, trimmed: the definition whose attributes apply (alias, remote)
  std::string local_queue;  // the queue put to or got from (the xmitq for a remote queue)
  std::string resolved_q, resolved_qmgr;
  std::uint64_t generation = 0;  // local_queue::generation of local_queue at MQOPEN
  bool xmit = false;
  std::int32_t options = 0;
  bool input = false;
  bool exclusive = false;
  bool qmgr_object = false;                 // MQOPEN of the queue manager (MQOT_Q_MGR): MQINQ only
  std::optional<std::uint64_t> browse_seq;  // arrival number of the message under the browse cursor
};

struct uow_op {
  bool put = true;  // else a get under syncpoint
  std::string queue;
  msg_key key;
};

// What one MQI call hands to the log: the records, and the messages it changed that become visible or
// go only once those records are durable (put: made visible; get: removed) [D].
struct log_batch {
  std::vector<log_op> ops;
  std::vector<uow_op> pending;
  bool empty() const noexcept { return ops.empty() && pending.empty(); }
};

struct conn_state {
  std::uint64_t id = 0;
  principal who;
  bool broken = false;        // stop_connections / the queue manager ended: MQRC_CONNECTION_BROKEN
  bool disconnected = false;  // MQDISC ran: MQRC_HCONN_ERROR
  bool stopped = false;       // connection::stop(): MQRC_CONNECTION_STOPPING but for MQDISC
  bool woken = false;         // wake(): ends the connection's next or current wait_for_change
  std::map<mqi::hobj, handle_state> handles;
  mqi::hobj next_handle = 1;  // next_hobj(): 1..INT32_MAX, wrapping, skipping handles in use
  mqi::hobj next_hobj();
  std::vector<uow_op> uow;
};

decode_error mqi_error(std::string call, std::int32_t rc, std::string detail);

inline std::string pad(std::string_view s, std::size_t n) {
  std::string out(s.substr(0, n));
  out.resize(n, ' ');
  return out;
}
inline std::string trimmed(std::string_view s) { return std::string(objects::trim_name(s)); }
inline bool attr_is(const objects::object_record* rec, std::string_view keyword, std::string_view value) {
  return rec != nullptr && rec->text(keyword) == value;
}

class engine {
 public:
  engine(queue_manager_store store, qmgr_lock lock, runtime_options options, objects::object_catalog catalog);

  // --- shared state, guarded by mu -------------------------------------------------------------------
  mutable sync::mutex mu;
  // The engine's own waits: a checkpoint running, log waiters at the end. Gets and dispatchers wait on
  // their own (waiter).
  sync::condition_variable cv;
  // Counts the changes a waiter may be waiting for (a message made visible or unlocked, a unit of work
  // ended, a queue altered, a connection stopped or broken, the queue manager ending); a consumer's
  // dispatcher waits for it to move (async_consume.hpp). Wraps.
  std::uint32_t change_mark IMSB_GUARDED_BY(mu) = 0;

  // A thread waiting for a change (docs/design/concurrency.md "The queue manager") [D]: a waiting MQGET for a
  // message made visible or unlocked on its own queue, a consumer's dispatcher for that on any queue;
  // both for a change of their connection (stopped, woken, broken, disconnected) and for what concerns
  // everyone (a definition changed, quiescing, the end). Each waits on its own condition variable, so a
  // change wakes only the waiters it concerns. Registered while it lives; mu held to make and end it.
  class waiter {
   public:
    // queue: a get's local queue; "" for a dispatcher.
    waiter(engine& e, const conn_state* conn, const std::string& queue) IMSB_REQUIRES(e.mu)
        : e_(e), conn_(conn), at_(e.waiters.emplace(queue, this)) {}
    // A get's waiter that a message made takeable on its queue wakes only when `takes(message)` says
    // it is one the get could take (its match options): a reply for another requester's CorrelId on a
    // shared reply queue wakes no one else. `takes` must outlive the waiter.
    template <typename Takes>
    waiter(engine& e, const conn_state* conn, const std::string& queue, const Takes& takes)
        IMSB_REQUIRES(e.mu)
        : waiter(e, conn, queue) {
      takes_ctx_ = &takes;
      takes_ = [](const void* f, const msg_entry& m) { return (*static_cast<const Takes*>(f))(m); };
    }
    ~waiter() { e_.waiters.erase(at_); }  // under e.mu, which the analysis cannot name through e_
    waiter(const waiter&) = delete;
    waiter& operator=(const waiter&) = delete;
    sync::condition_variable cv;
    const conn_state* conn() const noexcept { return conn_; }
    bool takes(const msg_entry& m) const { return takes_ == nullptr || takes_(takes_ctx_, m); }
    bool notified = false;  // woken already: once is enough (engine::wake)

   private:
    engine& e_;
    const conn_state* conn_;
    std::multimap<std::string, waiter*, std::less<>>::iterator at_;
    bool (*takes_)(const void*, const msg_entry&) = nullptr;
    const void* takes_ctx_ = nullptr;
  };
  // A message that may be taken now (put and made visible, or got and given back), for changed().
  struct takeable_message {
    const std::string* queue;
    msg_key key;
  };
  std::multimap<std::string, waiter*, std::less<>> waiters IMSB_GUARDED_BY(mu);  // by queue; "" dispatchers
  // MQGMO_SET_SIGNAL's signals, by the local queue of their handle (connection.hpp get_request::signal),
  // posted at the same changes that wake waiters, and then gone.
  struct armed_signal {
    const conn_state* conn = nullptr;
    mqi::hobj handle = 0;
    std::function<void(std::int32_t)> post;
  };
  using signal_map = std::multimap<std::string, armed_signal, std::less<>>;
  signal_map signals IMSB_GUARDED_BY(mu);
  void changed() IMSB_REQUIRES(mu) {  // every waiter looks again
    ++change_mark;
    for (auto& [queue, w] : waiters) wake(*w);
    post_signals(nullptr, signals.begin(), signals.end(), mq::MQEC_WAIT_CANCELED);
  }
  void changed(const conn_state& c) IMSB_REQUIRES(mu) {  // c stopped, woken, broken or disconnected
    ++change_mark;
    for (auto& [queue, w] : waiters)
      if (w->conn() == &c) wake(*w);
    post_signals(&c, signals.begin(), signals.end(), mq::MQEC_WAIT_CANCELED);
  }
  // Posts `code` to the signals in [from, to) (of connection `of` only, unless null) and withdraws them.
  void post_signals(const conn_state* of, signal_map::iterator from, signal_map::iterator to,
                    std::int32_t code) IMSB_REQUIRES(mu) {
    while (from != to) {
      if (of != nullptr && from->second.conn != of) {
        ++from;
        continue;
      }
      ++counters.signals_posted;
      from->second.post(code);
      from = signals.erase(from);
    }
  }
  // The signal of handle h of c, armed on `queue`; signals.end() if none.
  signal_map::iterator signal_of(const conn_state& c, mqi::hobj h, const std::string& queue)
      IMSB_REQUIRES(mu) {
    for (auto [it, end] = signals.equal_range(queue); it != end; ++it)
      if (it->second.conn == &c && it->second.handle == h) return it;
    return signals.end();
  }
  // For each message of `list` still there and visible: its queue's waiters that could take it, the
  // dispatchers, and the queue's signals; each at most once.
  void changed(std::vector<takeable_message>& list) IMSB_REQUIRES(mu);
  void wake(waiter& w) IMSB_REQUIRES(mu) {
    if (w.notified) return;
    w.notified = true;
    ++counters.wakeups;
    w.cv.notify_one();
  }
  // Set before the engine is shared and never changed: the store's folder, the options.
  queue_manager_store store;
  runtime_options options;
  qmgr_lock lock IMSB_GUARDED_BY(mu);
  objects::object_catalog catalog IMSB_GUARDED_BY(mu);
  // catalog.qmgr_name() at start: ALTER QMGR rewrites the record, never the name.
  const std::string qmgr_name;
  objects::catalog_snapshot snap IMSB_GUARDED_BY(mu);  // catalog.snapshot(), remade after each change
  // The log object is guarded; a thread that waits for it outside mu keeps the pointer, counted in
  // log_waiters, and the end waits for none to be left before the log is closed.
  std::unique_ptr<recovery_log> log IMSB_GUARDED_BY(mu);
  // Local queues by real name (made on first use).
  std::map<std::string, local_queue> queues IMSB_GUARDED_BY(mu);
  std::map<std::uint64_t, std::shared_ptr<conn_state>> conns IMSB_GUARDED_BY(mu);
  std::uint64_t next_conn IMSB_GUARDED_BY(mu) = 1;
  std::uint64_t next_seq IMSB_GUARDED_BY(mu) = 1;
  std::uint64_t next_generation IMSB_GUARDED_BY(mu) = 1;
  std::uint64_t next_token IMSB_GUARDED_BY(mu) = 1;
  std::uint64_t msg_id_counter IMSB_GUARDED_BY(mu) = 0;
  std::uint64_t incarnation IMSB_GUARDED_BY(mu) = 0;
  bool quiescing IMSB_GUARDED_BY(mu) = false;
  bool ended IMSB_GUARDED_BY(mu) = false;
  bool checkpoint_running IMSB_GUARDED_BY(mu) = false;
  // begin_checkpoint() calls, to tell whether one overlapped a batch.
  std::uint64_t checkpoints_begun IMSB_GUARDED_BY(mu) = 0;
  // A checkpoint's snapshot counted a batch that then failed.
  bool checkpoint_again IMSB_GUARDED_BY(mu) = false;
  bool checkpoint_blocked IMSB_GUARDED_BY(mu) = false;  // the last checkpoint failed for space (2056)
  bool checkpoint_may_fit() const IMSB_REQUIRES(mu);    // the persistent messages fit in the free space
  int log_waiters IMSB_GUARDED_BY(mu) = 0;  // threads in wait_durable / write_checkpoint outside mu
  queue_manager::stats counters IMSB_GUARDED_BY(mu);
  queue_manager::runtime_command_fn runtime_handler IMSB_GUARDED_BY(mu);

  // The `q` file of each local queue, for the log (its queue_file_fn runs outside mu, in checkpoints).
  sync::mutex files_mu;
  std::map<std::string, std::filesystem::path> queue_files IMSB_GUARDED_BY(files_mu);
  void refresh_queue_files() IMSB_REQUIRES(mu) IMSB_EXCLUDES(files_mu);

  sync::mutex err_mu;                    // the error log file, appended to under it
  std::filesystem::path error_log_path;  // set before the engine is shared

  // --- helpers (mu held unless said) -----------------------------------------------------------------
  std::chrono::system_clock::time_point now() const;  // any lock state (options.clock)
  std::int64_t now_ms() const;
  void log_error(const std::string& line) IMSB_EXCLUDES(err_mu);  // any lock state; takes err_mu only

  const objects::object_record* queue_record(const std::string& name) const IMSB_REQUIRES(mu);
  // nullptr unless a QLOCAL of that name exists.
  local_queue* queue_of(const std::string& name) IMSB_REQUIRES(mu);
  // The local queue a handle works on: nullptr when it was deleted (and maybe defined again) since MQOPEN.
  local_queue* queue_of(const handle_state& h) IMSB_REQUIRES(mu);
  // USAGE(XMITQ): no COA/COD here [I: JAVA-MQRO]
  bool is_xmitq(const std::string& name) const IMSB_REQUIRES(mu);
  std::int64_t max_uncommitted() const IMSB_REQUIRES(mu);  // the queue manager's MAXUMSGS
  void refresh_after_catalog_change() IMSB_REQUIRES(mu);
  bool authorized(const principal& who, std::string_view objtype, const std::string& name,
                  std::string_view authority) const IMSB_REQUIRES(mu);

  mqi::message_token new_token() IMSB_REQUIRES(mu);
  rules::put_context context_for(const principal& who, const objects::object_record* defaults)
      IMSB_REQUIRES(mu);
  static stored_message to_stored(const msg_entry& e);

  // Puts one message on a local queue: PUT(DISABLED), MAXMSGL, MAXDEPTH. `uow` non-null: under
  // syncpoint (invisible until commit). Persistent puts outside syncpoint join `batch`.
  result<msg_key> deliver(conn_state* uow, const std::string& queue, const mq::mqmd& md, bytes data,
                          log_batch& batch, const char* call) IMSB_REQUIRES(mu);
  // A report or other queue-manager message to (queue, qmgr) by name resolution, else the DLQ with
  // `reason`, else discarded with an error-log line.
  void send_report(conn_state* uow, const rules::outgoing& out, log_batch& batch) IMSB_REQUIRES(mu);
  void report(rules::report_kind kind, const msg_entry& e, conn_state* uow, log_batch& batch)
      IMSB_REQUIRES(mu);

  // The pending changes of `batch`: made final (`durable`) or undone; wakes waiting gets.
  void settle_locked(log_batch& batch, bool durable) IMSB_REQUIRES(mu);
  void commit_locked(conn_state& c, log_batch& batch) IMSB_REQUIRES(mu);
  void backout_locked(conn_state& c, log_batch& batch) IMSB_REQUIRES(mu);
  void close_handle_locked(conn_state& c, mqi::hobj h) IMSB_REQUIRES(mu);
  void break_locked(conn_state& c, log_batch& batch) IMSB_REQUIRES(mu);

  // Appends `batch` (when it has records), releases `lk`, waits until it is on disk, takes `lk` again
  // and settles the batch's pending changes (undone when the log failed: the call then changed nothing),
  // then takes a checkpoint when the log asks for one. Returns with `lk` released. `last`: nothing of the
  // call follows but its answer, so that a thread with a force_sink (blocking.hpp) may take the wait and
  // the settling over; then the call returns as if the log had succeeded.
  result<done> finish(sync::unique_lock& lk, log_batch& batch, const char* call, bool last = false)
      IMSB_RELEASE(mu);
  // finish()'s end, once the log answered `r` (under lk; returns with it released).
  result<done> settle_finished(sync::unique_lock& lk, log_batch& batch, result<done> r, const char* call,
                               std::uint64_t checkpoints_before) IMSB_RELEASE(mu);
  // Under lk; releases it while the checkpoint is written, and returns with it held.
  void maybe_checkpoint(sync::unique_lock& lk) IMSB_REQUIRES(mu);

  // engine_admin.cpp
  // The executor's context for a command run now: CRDATE/ALTDATE and times in UTC, qmgr_running set.
  objects::exec_context exec_now() const IMSB_REQUIRES(mu);
  // `lk` holds mu; it is released only while the runtime-command handler runs (the server's code).
  result<mqi::mqsc_reply> run_mqsc(sync::unique_lock& lk, const conn_state& c, const std::string& script)
      IMSB_REQUIRES(mu);
  result<std::vector<mqi::object_attributes>> inquire_objects(const conn_state& c, const std::string& type,
                                                              const std::string& generic) IMSB_REQUIRES(mu);
  // One MQSC command applied to the catalog and saved, as run_mqsc does, for MQSET (whose authority was
  // checked at MQOPEN): MQRC_RESOURCE_PROBLEM when it cannot be saved (the change is undone).
  result<done> apply_catalog_command(const std::string& command, const char* call) IMSB_REQUIRES(mu);
};

// engine_inquire.cpp: MQINQ's answer for `selectors` from a queue's definition (with `status`, its
// depth and open counts, for a local queue; may be null) or the queue manager's (`is_qmgr`). mu held.
mqi::result<mqi::inquiry> inquire_attributes(const objects::object_record& rec, bool is_qmgr,
                                             const local_queue* status,
                                             const std::vector<std::int32_t>& selectors);

// engine_inquire.cpp: the ALTER command (MQSC text) that makes MQSET's change on `rec`, or the MQRC of
// the first thing wrong with the call; nothing is changed here.
mqi::result<std::string> mqset_command(const objects::object_record& rec,
                                       const std::vector<std::int32_t>& selectors,
                                       const std::vector<std::int32_t>& int_attrs,
                                       const std::vector<std::string>& char_attrs);

// engine_connection.cpp: the in-process connection of `c` on `e`.
std::unique_ptr<mqi::connection> make_local_connection(std::shared_ptr<engine> e,
                                                       std::shared_ptr<conn_state> c);

}  // namespace imsb::qmgr::engine_detail
