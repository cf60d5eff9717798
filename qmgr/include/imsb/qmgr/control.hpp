#pragma once
// The queue-manager control commands crtmqm, dltmqm, runmqsc and dspmqfls (dspmqfls: [C: DSPMQFLS]),
// as functions the thin mains in apps/ call and tests can call directly. Each takes the command line
// without the program name, writes what the program prints to `out` (results) and `err` (errors, with a
// message ID IMB1150–IMB1199) and returns the program's exit code.
//
// Every command takes --prefix DIR (else IMSBRIDGE_PREFIX, else /var/mqm or $HOME/.imsbridge: store.hpp
// resolve_prefix) and -h/--help, which prints the usage with the exit codes.
//
// Exit codes follow IBM's control commands [I] (IBM's crtmqm/dltmqm reference): 0 done; 10 partly
// (runmqsc: a command failed; dspmqfls: nothing matched); 20 error (usage, no such queue manager, busy,
// I/O). And IBM's specific codes where a script may test them:
// crtmqm 8 "queue manager already exists" (AMQ8110), dltmqm 5 "queue manager running" (AMQ8027) and
// 16 "queue manager does not exist" (AMQ8118).

#include <iosfwd>
#include <string>
#include <vector>

namespace imsb::qmgr {

namespace exit_code {
inline constexpr int ok = 0;
inline constexpr int partly = 10;
inline constexpr int error = 20;
inline constexpr int qmgr_exists = 8;      // crtmqm [I] IBM
inline constexpr int qmgr_running = 5;     // dltmqm [I] IBM
inline constexpr int qmgr_not_found = 16;  // dltmqm [I] IBM
}  // namespace exit_code

// crtmqm [-u DLQ] [-d DEFXMITQ] [--fs posix|case-insensitive|fat|detect] [--prefix DIR] QM
int crtmqm(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

// dltmqm [--prefix DIR] QM
int dltmqm(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

// runmqsc [-f FILE] [-e] [-v] [--prefix DIR] [QM]: MQSC from `in` (or FILE) against the catalog of a
// stopped queue manager, under its lock — or, when the queue manager runs, sent to it through its
// bindings socket (daemon.hpp detail::runmqsc_running), which applies and saves them itself. Each command is
// applied and answered as its last line is read; from a stream the catalog is saved at the end.
int runmqsc(const std::vector<std::string>& args, std::istream& in, std::ostream& out, std::ostream& err);
// The program's form: standard input is the file descriptor `in_fd`, read as the bytes come, and the
// catalog is also saved whenever a command changed it and no more input is waiting (poll(2)), so an
// operator's or a pipe's answered commands are on disk before the next one is typed. A failed write to
// `out` (a closed pipe; the caller ignores SIGPIPE) drops the remaining results but not the commands.
int runmqsc(const std::vector<std::string>& args, int in_fd, std::ostream& out, std::ostream& err);

// dspmqfls [-m QM] [-t TYPE] [--prefix DIR] GENERICNAME | --file FILENAME
int dspmqfls(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace imsb::qmgr
