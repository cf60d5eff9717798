#pragma once
// The running queue manager: messages, units of work, waits, expiry, reports, the dead-letter
// queue, transmission queues and authorization, over the object catalog (store.hpp) and the recovery log
// (recovery_log.hpp). Its connections are the in-process backend of mqi::connection; the server
// (server.hpp) serves the same connections to other programs over the client protocol.
//
// Thread-safe: any number of connections, each used by one thread at a time. One mutex guards the
// queues; a commit appends its batch under it and waits for the log outside it (group commit).
//
// Rules, each as IBM MQ has it unless marked [D] (sources: docs/design/sources.md):
// - put: MQMD defaults and context (message_rules.hpp); MQIIH checked when Format is MQIMS (2148);
//   MAXMSGL of queue and queue manager (2030/2031), MAXDEPTH (2053), PUT(DISABLED) (2051),
//   persistence and priority as the queue definition says; a put to a remote queue goes on the
//   transmission queue with an MQXQH; COA report when the message reaches its local queue.
// - get: priority order then arrival (MSGDLVSQ(PRIORITY), the default); matching by MsgId, CorrelId or
//   token; GET(DISABLED) (2016); expired messages are removed as gets find them (EXPIRATION report);
//   COD report when a destructive get commits; BackoutCount counts backouts of gets under syncpoint
//   (kept across restarts for persistent messages); browse cursors per handle.
// - MSGDLVSQ(FIFO): arrival order only. MAXUMSGS bounds a unit of work (2024). No COA/COD on a
//   USAGE(XMITQ) queue. Context options need their MQOO_* (2093..2096) and PASSID / PASSALL / SETID /
//   SETALL; unknown MQOO/MQPMO/MQGMO bits are MQRC_OPTIONS_ERROR (2046). A handle to a queue deleted
//   (and maybe defined again) since MQOPEN gets MQRC_Q_DELETED (2052).
// - A report that cannot be put to its reply-to queue goes to the DLQ with an MQDLH; when that fails
//   too, it is discarded and the error log says so.
// - Non-persistent messages live in memory only and are gone after a restart.

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "imsb/core/result.hpp"
#include "imsb/mqi/connection.hpp"
#include "imsb/qmgr/recovery_log.hpp"
#include "imsb/qmgr/store.hpp"

namespace imsb::qmgr {

// Who is connecting: the user the queue manager authenticated and the groups it belongs to (for
// AUTHREC GROUP()). An administrator (the queue manager's owner — the user the queue manager runs as —
// or a member of group mqm) passes every authority check [C] IBM's mqm group.
struct principal {
  std::string user;
  std::vector<std::string> groups;
  bool administrator = false;
  std::string appl_name;  // PutApplName (program name), ≤ 28 characters
};

struct runtime_options {
  log_options log;
  // The clock for PutDate/PutTime and expiry (tests set it). Default: system_clock::now.
  std::function<std::chrono::system_clock::time_point()> clock;
  // Where the error log goes: <qmgr dir>/errors/AMQERR01.LOG [C] IBM's name; lines carry IMB1xxx IDs.
  std::filesystem::path error_log;  // empty: <qmgr dir>/errors/AMQERR01.LOG
};

class queue_manager {
 public:
  // Starts a queue manager on a store whose lock the caller holds (kept until destruction): loads the
  // catalog, reconciles the object files, recovers from the log. Errors name the file and the MQRC.
  static result<std::unique_ptr<queue_manager>> start(queue_manager_store store, qmgr_lock lock,
                                                      runtime_options options);
  ~queue_manager();  // ends every connection (their units of work backed out), flushes the log

  const std::string& name() const noexcept;
  const queue_manager_store& store() const noexcept;

  // MQCONN for a principal: the in-process backend. MQRC_Q_MGR_QUIESCING (2161) once quiesce() ran;
  // MQRC_NOT_AUTHORIZED when the principal lacks CONNECT on the queue manager.
  result<std::unique_ptr<mqi::connection>> connect(const principal& who);

  // endmqm: refuse new connections and make waiting gets return MQRC_Q_MGR_QUIESCING (2161)...
  void quiesce();
  // ...and endmqm -i: also break every connection now (their units of work backed out).
  void stop_connections();
  std::size_t connection_count() const;

  // MQSC through a connection (mqi::connection::mqsc) runs command by command: DEFINE/ALTER/DELETE/
  // DISPLAY/SET AUTHREC through objects::execute on the live catalog (saved by the store after each
  // change; DELETE QLOCAL of a queue holding messages fails with MQRC_Q_NOT_EMPTY (2055) unless PURGE),
  // CLEAR QLOCAL and DISPLAY QSTATUS by the engine, and the other runtime commands (START/STOP LISTENER)
  // by this handler, which the server sets: it returns the command's output lines (first line's ID tells
  // success), or nullopt to leave the executor's "not implemented" answer.
  using runtime_command_fn = std::function<std::optional<std::vector<std::string>>(
      const std::string& verb, const std::string& type, const std::string& name)>;
  void set_runtime_command_handler(runtime_command_fn fn);

  // A line to the error log (with its message ID), also used by the server for refused logins.
  void log_error(const std::string& line);

  struct stats {
    std::uint64_t puts = 0, gets = 0, commits = 0, backouts = 0, expired = 0, reports = 0, dead_lettered = 0;
    // Test hook [D]: why each MQGET that waited stopped waiting — a message it then got, its wait
    // interval, or the connection stopped or broken — so that a test can tell a waiter woken by the put
    // it waited for from one that only timed out.
    struct wait_ends {
      std::uint64_t message = 0, timeout = 0, stopped = 0;
    } get_waits;
    // Test hook [D]: notifications sent to waiting threads (MQGETs that wait, consumers' dispatchers), so
    // that a test can tell that a change woke only the waiters it concerns.
    std::uint64_t wakeups = 0;
    std::uint64_t signals_posted = 0;  // MQGMO_SET_SIGNAL signals called (connection.hpp get_request::signal)
    std::size_t waiting = 0;  // threads waiting now, of those kinds
    recovery_log::stats log;
    recovered_state recovery;  // queues left empty; the counters of the start
  };
  stats statistics() const;

 private:
  queue_manager();
  struct impl;
  std::unique_ptr<impl> impl_;
};

namespace detail {
// Test hook [D]: when set, the engine calls it for each batch it logs — at `append` under its mutex (a
// non-zero MQRC refuses the batch as a full log would: not appended, the call fails with that MQRC and
// is undone in memory) and at `wait` outside its mutex, just before waiting for the batch (it may block
// there; a non-zero MQRC fails the wait). Not for production use.
enum class log_hook_point { append, wait };
extern std::int32_t (*engine_log_hook)(log_hook_point where);
// Test hook [D]: the first object handle a new connection hands out (default 1), to test the wrap.
extern mqi::hobj engine_first_hobj;
}  // namespace detail

}  // namespace imsb::qmgr
