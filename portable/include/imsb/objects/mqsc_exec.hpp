#pragma once
// MQSC applied to an object catalog: DEFINE (LIKE, REPLACE/NOREPLACE), ALTER, DELETE and DISPLAY of
// QLOCAL, QALIAS, QREMOTE, QMODEL, STGCLASS, NAMELIST, PROCESS, CHANNEL, LISTENER; DISPLAY QUEUE;
// ALTER/DISPLAY QMGR; SET/DELETE/DISPLAY AUTHREC — with IBM's keywords, synonyms and defaults
// (spec/mq.md §6). Pure: no clock (the caller passes date and time), no I/O.
//
// A command either applies whole or leaves the catalog exactly as it was; its output names the
// command and the keyword at fault in one line. Output lines start with a message ID from
// core/messages.def (IMB1xxx, queue manager).

#include <cstddef>
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
