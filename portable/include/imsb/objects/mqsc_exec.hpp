#pragma once
// MQSC applied to an object catalog: DEFINE (LIKE, REPLACE/NOREPLACE), ALTER, DELETE and DISPLAY of QLOCAL,
// QALIAS, QREMOTE, QMODEL, STGCLASS, NAMELIST, PROCESS, CHANNEL, LISTENER; DISPLAY QUEUE; ALTER/DISPLAY QMGR;
// SET/DELETE/DISPLAY AUTHREC — with IBM's keywords, synonyms and defaults (IBM's MQSC command reference
// [C: MQSC-RULES, STGCLASS, DISPLAY-QUEUE]). Pure: no clock (the caller passes date and time), no I/O.
//
// A command either applies whole or leaves the catalog exactly as it was; its output names the
// command and the keyword at fault in one line. Output lines start with a message ID from
// core/messages.def (IMB1xxx, queue manager).

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "imsb/core/result.hpp"
#include "imsb/mqsc/command.hpp"
#include "imsb/names/file_name.hpp"
#include "imsb/objects/object.hpp"

namespace imsb::objects {

struct exec_context {
  std::string date;  // "2026-11-29": CRDATE / ALTDATE of what the command creates or changes
  std::string time;  // "19.08.32": CRTIME / ALTTIME (IBM's hh.mm.ss)
  // Commands that act on a running queue manager (START/STOP CHANNEL and LISTENER, DISPLAY QSTATUS,
  // CLEAR QLOCAL, RESET TPIPE ...) fail with "queue manager not running" when false.
  bool qmgr_running = false;
  // runmqsc on a stopped queue manager: its persistent messages sit in the recovery log, not loaded, so
  // whether a local queue holds any is unknown. DELETE QLOCAL then fails with "queue manager not running"
  // (IMB1049E) rather than lose them, or let a DEFINE of the same name bring them back at the next
  // start [D]; IBM's runmqsc needs a running queue manager for every command.
  bool messages_unseen = false;
  // A running queue manager's status of a local queue, for DISPLAY QLOCAL/QUEUE's CURDEPTH, IPPROCS and
  // OPPROCS (asked for by name or with ALL, or in WHERE); nullopt for a queue it does not know. Empty (a
  // stopped queue manager): those keywords fail with "queue manager not running" (IMB1049E).
  struct queue_status {
    std::int64_t curdepth = 0;
    std::int64_t ipprocs = 0;
    std::int64_t opprocs = 0;
  };
  std::function<std::optional<queue_status>(const std::string& queue)> local_queue_status{};
};

enum class exec_status {
  ok,           // applied (or displayed)
  failed,       // a valid command that could not be applied: catalog unchanged
  unsupported,  // valid MQSC that imsbridge does not implement: catalog unchanged
  end,          // END / EXIT / QUIT: the caller stops reading
};

struct exec_outcome {
  exec_status status = exec_status::ok;
  // What runmqsc prints for the command, after its echo: "IMB1006I: Queue created." or, for DISPLAY,
  // the details line then the attributes as IBM lays them out (two KEYWORD(value) per line).
  std::vector<std::string> lines;
  bool changed = false;  // the catalog changed (the caller saves it)
};

exec_outcome execute(object_catalog& catalog, const mqsc::command& cmd, const exec_context& ctx);

// A whole script as runmqsc runs it: for each command the echo ("     1 : DEFINE QLOCAL(A)"), then its
// outcome lines; syntax errors reported where they are and skipped; stops at END. Then the closing
// summary ("3 MQSC commands read.", "No commands have a syntax error.", "All valid MQSC commands were
// processed." or "One valid MQSC command could not be processed." / "N valid ...").
struct script_outcome {
  std::vector<std::string> lines;
  std::size_t read = 0;  // commands read (syntax errors included, END excluded)
  std::size_t syntax_errors = 0;
  std::size_t failed = 0;  // valid commands that failed or are not supported
  bool changed = false;
  // runmqsc's exit code: 0 all commands worked, 10 some failed or had a syntax error [C] IBM runmqsc.
  int exit_code() const noexcept { return syntax_errors + failed == 0 ? 0 : 10; }
};
script_outcome run_script(object_catalog& catalog, std::string_view script, const exec_context& ctx);

// run_script fed one line at a time, as runmqsc reads a terminal or a pipe: each command is applied and
// answered as soon as its last line arrives, so an operator sees the answer before typing the next one
// (IBM's runmqsc does the same [I]). Lines are reassembled by mqsc/lexer.hpp's line rules: a '-' or '+'
// as the last non-blank character continues the command, any other last character ends it; '*' in
// column 1 and blank lines are skipped, also in the middle of a continued command. run_script is this
// runner fed every line of the script, so both give the same output.
class script_runner {
 public:
  script_runner(object_catalog& catalog, exec_context ctx);

  // One line of input, without its '\n' (a trailing '\r' is dropped; a line holding '\n' counts as
  // several lines). Returns the output of the command this line completes: its echo then its result
  // lines, or a syntax-error line. Nothing while a command is continued, for comments and blank lines,
  // and for every line after END.
  std::vector<std::string> feed_line(std::string_view line);

  // END (or EXIT, QUIT) was read: the caller stops reading; later lines are ignored.
  bool ended() const noexcept { return ended_; }
  // How many commands have changed the catalog so far: a caller that saves the catalog now and then
  // compares it with the count at its last save.
  std::size_t changes() const noexcept { return changes_; }
  // A command has started but its last line has not come yet (the previous line was continued).
  bool in_command() const noexcept { return !pending_.empty(); }

  // The end of input: runs a command left continued past the last line, then adds the closing summary.
  // The outcome's counts cover the whole input; its `lines` hold only what finish() adds (feed_line
  // returned the rest). Call it once.
  script_outcome finish();

 private:
  void run_pending(std::vector<std::string>& lines);

  object_catalog& catalog_;
  exec_context ctx_;
  script_outcome progress_;
  std::size_t changes_ = 0;
  std::size_t line_no_ = 0;
  std::size_t first_line_ = 0;  // of the pending command
  std::string pending_;         // its lines so far, with the comment and blank lines between them
  bool ended_ = false;
};

// The catalog of a new queue manager (crtmqm): the QMGR record with IBM's defaults (CCSID 819 [D],
// MAXMSGL 4194304, DEADQ and DEFXMITQ as given, or blank), the SYSTEM.DEFAULT.* objects
// (SYSTEM.DEFAULT.LOCAL.QUEUE, .ALIAS.QUEUE, .REMOTE.QUEUE, .MODEL.QUEUE, SYSTEM.DEFAULT.NAMELIST,
// .PROCESS, SYSTEM.DEF.SENDER / .RECEIVER / .SVRCONN, SYSTEM.DEFAULT.LISTENER.TCP ...) that DEFINE without
// LIKE copies its defaults from, the SYSTEM.ADMIN.*.EVENT queues, SYSTEM.DEAD.LETTER.QUEUE-style DLQ when
// `deadq` names one (a local queue of that name), and DEFXMITQ when `defxmitq` names one (a local queue
// USAGE(XMITQ)). Errors: a name that is not a valid queue-manager or queue name (field "qmgr", "deadq",
// "defxmitq"; std::errc::invalid_argument).
result<object_catalog> new_queue_manager(std::string_view qmgr_name, names::fs_profile profile,
                                         std::string_view deadq, std::string_view defxmitq,
                                         const exec_context& ctx);

}  // namespace imsb::objects
