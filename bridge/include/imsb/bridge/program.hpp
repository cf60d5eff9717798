#pragma once
// The imsbridge program without its main(): the configuration, the engine's hooks, the console, the
// control socket, signals and the orderly stop. apps/imsbridge/main.cpp only calls
// run_imsbridge(argc, argv, std::cin, std::cout, std::cerr).
//
//   imsbridge [--config FILE] [--section.key=VALUE ...]   run the bridge (config.hpp for every key)
//   imsbridge --command PATH 'TEXT'                       one operator command to a running bridge's
//                                                         control socket; prints the answer
//   imsbridge --help | --version
//
// Exit codes: 0 stopped (SIGTERM, SIGINT, the STOP command) or --help/--version/--command answered;
// 2 usage error (IMB2060E); 8 start-up failed (IMB2050E configuration, IMB2054E queue manager, XCF,
// keys or engine, IMB2056E control socket), --command got no answer (IMB2057E), or the run stopped
// because of an error rather than a request (IMB2052I names it); 12 internal (IMB2062S).
// Every line goes to `out` (the console: timestamped, each flushed), as imsemu does, so one capture of
// standard output holds the whole story; `err` gets only what is not a console line (nothing today but
// an internal error, which goes to both).
//
// Threads: SIGINT and SIGTERM are blocked in the calling thread before any other starts (so every thread
// inherits the mask) and read from a signalfd by the calling thread, which does all the stopping: no work
// in a signal handler. The console reader (standard input when `in` is std::cin, read with poll so it can
// be stopped; any other stream is read to its end) and the control socket's thread pass each line to
// engine::command and print the answer; a STOP makes engine::stop_requested() true and the calling
// thread then stops as for SIGTERM: IMB2052I, engine::quiesce(), IMB2053I.

#include <poll.h>

#include <functional>
#include <iosfwd>
#include <memory>
#include <string>

#include "imsb/bridge/config.hpp"
#include "imsb/bridge/security.hpp"
#include "imsb/core/result.hpp"
#include "imsb/mqi/connection.hpp"
#include "imsb/xcf/member.hpp"

namespace imsb::bridge {

// What the program needs from outside bridge/ (which never sees qmgr/, docs/design/layers.md):
// imsb_imsbridge (bridge/src/imsbridge/platform.cpp) wires qmgr::connect and the credential store;
// tests give fakes.
struct program_platform {
  // A new connection to the queue manager of config's [qmgr] section. The program keeps the first one
  // open for its whole run (with local:QM the queue manager then lives as long as the bridge) and hands
  // the engine this function for its own connections.
  std::function<result<std::unique_ptr<mqi::connection>>(const bridge_config&)> connect;
  // The security checker's password check and user directory for the queue manager `qmgr_name` (the
  // name the first connection reports). Empty: no password is accepted and no user is known.
  std::function<security_hooks(const bridge_config&, const std::string& qmgr_name)> security;
  // The XCF backend. Empty: transport::tcp_service on xcf.url with xcf.tls-*, its log lines on the
  // console. May throw std::invalid_argument for an unusable endpoint or TLS file (IMB2054E, exit 8).
  std::function<std::unique_ptr<xcf::service>(const bridge_config&,
                                              const std::function<void(const std::string&)>& log)>
      make_xcf;
  // Tests only: replaces ::poll in the calling thread's wait for a stop (the signalfd and the STOP wake
  // pipe), to make that wait fail. Empty: ::poll.
  std::function<int(::pollfd* fds, ::nfds_t n, int timeout_ms)> poll_for_stop;
};

int run_imsbridge(int argc, const char* const* argv, std::istream& in, std::ostream& out, std::ostream& err,
                  const program_platform& platform);

// The platform apps/imsbridge runs with (qmgr::connect, credentials, getpwnam/getgrgid) and the program
// with it. Defined in imsb_imsbridge, not imsb_bridge: link that library to use them.
program_platform default_platform();
int run_imsbridge(int argc, const char* const* argv, std::istream& in, std::ostream& out, std::ostream& err);

}  // namespace imsb::bridge
