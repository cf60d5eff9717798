#pragma once
// The queue-manager daemon's control commands, as functions the thin mains in apps/ call and
// tests call directly — like control.hpp (same conventions: args without the program name, results to
// `out`, errors with an IMB1xxx message ID to `err`, IBM's exit codes [I]).

#include <filesystem>
#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "imsb/core/result.hpp"
#include "imsb/mqi/connection.hpp"
#include "imsb/qmgr/connect.hpp"

namespace imsb::qmgr {

// strmqm [-f] [--ini FILE] [--no-fsync] [--prefix DIR] QM
//   Starts the daemon of QM and returns once it serves its bindings socket (exit 0), or says why not.
//   --ini FILE: StartupMQSC=, and TLS.CertFile=, TLS.KeyFile=, TLS.CAFile=, TLS.RequireClientCert= for
//   all the daemon's TCP listeners (strmqm --help). The socket's path is recorded in
//   <qmgr dir>/qmanager/bindings (connect.hpp).
//   -f: stays in the foreground (the daemon itself; SIGTERM/SIGINT end it as endmqm does).
//   Applies <qmgr dir>/qmanager/startup.mqsc (or the file of --ini's StartupMQSC=) at every start, like
//   CSQINP2 [C] z/OS. Starts LISTENER objects with CONTROL(QMGR). Exit 0, 5 already running (AMQ8041),
//   16 no such queue manager, 20 error.
int strmqm(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

// endmqm [-i] [-w] [--prefix DIR] QM: quiesce (default: refuse new connections, let connected programs
// finish their current call, wait at most 30 s) or -i (immediately: break every connection, units of
// work backed out). Returns when the daemon has ended. Exit 0; 16 no such QM; 40 not running [I] IBM.
int endmqm(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

// dspmq [-m QM] [--prefix DIR]: one line per queue manager, IBM's form [C]:
//   QMNAME(QM1)                                               STATUS(Running)
// STATUS: Running, Ended normally, Ended unexpectedly (a pid file left by a daemon that died).
int dspmq(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

// runmqlsr -m QM -t TCP -p PORT [--address ADDR]: a TCP listener for the running queue manager QM. Ours
// asks the daemon to start one (so the daemon serves the connections) and stays in the foreground until
// SIGTERM or the queue manager ends, then stops it [D]. ADDR: a host name or IP address (checked: it goes
// into MQSC). TLS is the daemon's (strmqm --ini), for all its listeners.
int runmqlsr(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

// mqpasswd [-m QM] [--prefix DIR] [--delete] [--list] USER: sets USER's password (read from standard
// input, one line; not echoed when standard input is a terminal) in the queue manager's credential file
// (credentials.hpp).
int mqpasswd(const std::vector<std::string>& args, std::istream& in, std::ostream& out, std::ostream& err);

// mqput / mqget (docs/programs/mqput.md and docs/programs/mqget.md for every option). Connect as
// connect.hpp says (-m QM; over TCP when MQSERVER is set or with --mqserver SPEC, with --user, the password
// from IMSB_PASSWORD or standard input with --password-stdin, --tls --ca/--cert/--key; --local in-process).
int mqput(const std::vector<std::string>& args, std::istream& in, std::ostream& out, std::ostream& err);
int mqget(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

namespace detail {
// mqput / mqget with the connect() call given, so that tests drive them against a mock connection.
using connector = std::function<result<std::unique_ptr<mqi::connection>>(const connect_options&)>;
int mqput(const std::vector<std::string>& args, std::istream& in, std::ostream& out, std::ostream& err,
          const connector& connect_fn);
int mqget(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
          const connector& connect_fn);
// The JSON object (one line, no newline) mqget --json prints for a message.
std::string message_json(const mqi::message& m);
// runmqsc against a running queue manager (control.cpp calls it when the lock is held): the commands
// from next_line() go through a bindings connection's mqsc(), the whole input at once, or each command
// as its last line is read when `interactive` (a terminal); the reply lines are printed (echo lines
// left out with no_echo). Returns runmqsc's exit code, or -1 when no daemon answers (the lock is held
// by another runmqsc): the caller then says the queue manager is busy.
int runmqsc_running(const std::filesystem::path& prefix, const std::string& qmgr_name,
                    const std::function<std::optional<std::string>()>& next_line, bool interactive,
                    bool no_echo, std::ostream& out, std::ostream& err);
}  // namespace detail

}  // namespace imsb::qmgr
