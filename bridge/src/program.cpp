// The imsbridge program (program.hpp): configuration, engine hooks, console, control socket, signals.

#include "imsb/bridge/program.hpp"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <exception>
#include <iostream>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <utility>
#include <vector>

#include "imsb/bridge/control.hpp"
#include "imsb/bridge/engine.hpp"
#include "imsb/core/messages.hpp"
#include "imsb/sync/mutex.hpp"
#include "imsb/transport/stop_signals.hpp"
#include "imsb/transport/tcp_xcf.hpp"
#include "imsb/transport/utoken.hpp"

#ifndef IMSB_VERSION
#define IMSB_VERSION "unknown"
#endif

namespace imsb::bridge {

namespace {

constexpr int exit_ok = 0;
constexpr int exit_refused = 1;
constexpr int exit_usage = 2;
constexpr int exit_failed = 8;
constexpr int exit_internal = 12;

const char* const usage_text = R"(Usage:
  imsbridge [--config FILE] [--section.key=VALUE ...]   run the MQ-IMS bridge
  imsbridge --command PATH 'TEXT'    send one operator command to a running bridge's control socket
  imsbridge --help | --version

imsbridge is the WebSphere MQ-IMS bridge: it gets the messages of every bridge queue (a local queue whose
storage class has XCFGNAME and XCFMNAME), sends them to that IMS over OTMA through XCF (xcfhub on Linux),
and puts IMS's output back as MQ replies, with IBM's rules for commit modes, feedback codes, dead letters,
resynchronization and conversations. Console lines go to standard output, each timestamped and with a
message ID (docs/messages.md).
)";

const char* const operator_text = R"(
Operator commands (standard input with bridge.console=yes, or the control socket; one a line):
  DISPLAY partners, queues and Tpipes (states, sequence numbers, in-flight counts)
  SUSPEND QMGR FACILITY(IMSBRIDGE) | RESUME QMGR FACILITY(IMSBRIDGE)
  RESET TPIPE(name) XCFMNAME(m) [XCFGNAME(g)] [SENDSEQ(n)] [RCVSEQ(n)] [ACTION(COMMIT|BACKOUT)]
  STOP          quiesce and end, as SIGTERM
Control socket (bridge.control-socket=PATH): a Unix socket, mode 0600, removed at stop; each line a
connection sends is run as an operator command and answered with its lines, then one EMPTY line.
  imsbridge --command PATH 'DISPLAY QUEUE'    prints the answer; exit 0, 1 (refused) or 8 (IMB2057E)

Exit codes:
  0   stopped on SIGTERM, SIGINT or STOP (IMB2053I); --help, --version, --command answered
  1   --command: the bridge refused or failed the command (its answer has an error line, IMB2034E ...)
  2   --command usage error (IMB2060E)
  8   could not start: configuration (IMB2050E); queue manager, XCF backend, key files or engine
      (IMB2054E); control socket (IMB2056E); --command: no bridge answers (IMB2057E); or stopped
      by an error, not asked to (IMB2052I names it)
  12  internal error (IMB2062S)
)";

// One console: each line timestamped (UTC, milliseconds), written whole and flushed, from any thread.
class console_out {
 public:
  explicit console_out(std::ostream& out) : out_(out) {}
  void line(const std::string& text) IMSB_EXCLUDES(mu_) {
    const auto now = std::chrono::system_clock::now();
    const std::time_t t = std::chrono::system_clock::to_time_t(now);
    const auto ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
    std::tm tm{};
    ::gmtime_r(&t, &tm);
    char stamp[96];
    std::snprintf(stamp, sizeof stamp, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ ", tm.tm_year + 1900,
                  tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(ms));
    sync::lock_guard lock(mu_);
    out_ << stamp << text << '\n';
    out_.flush();
  }

 private:
  sync::mutex mu_;
  std::ostream& out_ IMSB_GUARDED_BY(mu_);
};

using transport::stop_signals;  // SIGINT/SIGTERM read through a signalfd (transport/stop_signals.hpp)

std::string trim(std::string line) {
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) line.pop_back();
  const auto b = line.find_first_not_of(" \t");
  return b == std::string::npos ? std::string() : line.substr(b);
}

// The operator console: standard input read with poll (so the thread can be stopped and joined), or any
// other stream read to its end. Each line goes to `handle`.
class console_reader {
 public:
  console_reader(std::istream& in, std::function<void(const std::string&)> handle, console_out& console)
      : in_(in), handle_(std::move(handle)), console_(console), thread_([this] { run(); }) {
    // A read of the terminal from the background would stop the whole bridge; with SIGTTIN ignored it
    // fails with EIO instead (run() checks the foreground before each read; this covers the moment
    // between) [D].
    if (&in_ == &std::cin) std::signal(SIGTTIN, SIG_IGN);
  }
  ~console_reader() {
    stop_ = true;
    thread_.join();
  }
  console_reader(const console_reader&) = delete;
  console_reader& operator=(const console_reader&) = delete;

 private:
  void run() {
    if (&in_ != &std::cin) {
      char c = 0;
      while (!stop_ && in_.get(c)) feed(&c, 1);
    } else {
      char buf[4096];
      bool said_background = false;
      while (!stop_) {
        if (in_background()) {
          // "imsbridge --bridge.console=yes &": read once brought to the foreground (fg) [D].
          if (!said_background)
            console_.line(std::string(msg::IMB2066I) +
                          " OPERATOR CONSOLE IN THE BACKGROUND: COMMANDS ARE READ ONCE IN THE FOREGROUND; "
                          "USE THE CONTROL SOCKET MEANWHILE");
          said_background = true;
          std::this_thread::sleep_for(std::chrono::milliseconds(200));
          continue;
        }
        said_background = false;  // said again if sent to the background again
        pollfd pfd{STDIN_FILENO, POLLIN, 0};
        const int n = ::poll(&pfd, 1, 200);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 || (pfd.revents & POLLNVAL) != 0) return;
        if (n == 0) continue;
        const ssize_t got = ::read(STDIN_FILENO, buf, sizeof buf);
        if (got < 0 && (errno == EINTR || errno == EAGAIN)) continue;
        if (got < 0 && errno == EIO && in_background()) continue;  // sent to the background meanwhile
        if (got <= 0) break;
        feed(buf, static_cast<std::size_t>(got));
      }
    }
    if (!stop_ && !dropping_ && !pending_.empty()) handle_line(pending_);  // a last line without '\n'
    if (!stop_) console_.line(std::string(msg::IMB2059I) + " OPERATOR CONSOLE INPUT ENDED; RUNNING ON");
  }
  // Standard input is a terminal whose foreground process group is not ours.
  static bool in_background() {
    const pid_t fg = ::tcgetpgrp(STDIN_FILENO);
    return fg > 0 && fg != ::getpgrp();
  }
  // Splits input into lines. [D] A line longer than the control socket's max_line is no command: it is
  // dropped up to its newline (IMB2064W once), so that input without line ends cannot grow without bound.
  void feed(const char* data, std::size_t size) {
    for (std::size_t i = 0; i < size; ++i) {
      const char c = data[i];
      if (c == '\n') {
        if (!dropping_) handle_line(pending_);
        pending_.clear();
        dropping_ = false;
      } else if (!dropping_) {
        pending_.push_back(c);
        if (pending_.size() > control_socket::max_line) {
          console_.line(std::string(msg::IMB2064W) + " OPERATOR CONSOLE LINE LONGER THAN " +
                        std::to_string(control_socket::max_line) + " BYTES; DROPPED, NOT RUN");
          pending_.clear();
          pending_.shrink_to_fit();
          dropping_ = true;
        }
      }
    }
  }
  void handle_line(const std::string& raw) {
    const std::string line = trim(raw);
    if (!line.empty()) handle_(line);
  }

  std::istream& in_;
  std::function<void(const std::string&)> handle_;
  console_out& console_;
  std::string pending_;    // the line being read (the reader thread's only)
  bool dropping_ = false;  // inside a line that was too long, until its newline
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

// --command PATH TEXT...: the client of a running bridge's control socket.
int client_command(int argc, const char* const* argv, std::ostream& out) {
  std::string path;
  int first_text = 0;
  const std::string a1 = argv[1];
  if (a1.rfind("--command=", 0) == 0) {
    path = a1.substr(10);
    first_text = 2;
  } else if (argc > 2) {
    path = argv[2];
    first_text = 3;
  }
  std::string text;
  for (int i = first_text; first_text > 0 && i < argc; ++i)
    text += (text.empty() ? "" : " ") + std::string(argv[i]);
  if (path.empty() || trim(text).empty()) {
    out << msg::IMB2060E << " --command PATH needs the command text after the path (imsbridge --help)\n";
    return exit_usage;
  }
  auto answer = send_control_command(path, trim(text));
  if (!answer) {
    const auto& e = answer.error();
    if (e.code == std::errc::invalid_argument || e.code == std::errc::filename_too_long) {
      out << msg::IMB2060E << " --command: " << e.detail << " (imsbridge --help)\n";
      return exit_usage;
    }
    out << msg::IMB2057E << " CONTROL SOCKET " << path << ": " << e.detail << '\n';
    out.flush();
    return exit_failed;
  }
  // The bridge refused or failed the command when a line of its answer is an error message
  // (IMB2034E RESET TPIPE ... refused): a script must see that in the exit code.
  bool refused = false;
  for (const auto& l : *answer) {
    out << l << '\n';
    if (l.size() >= 8 && l.compare(0, 3, "IMB") == 0 && (l[7] == 'E' || l[7] == 'S')) refused = true;
  }
  out.flush();
  return refused ? exit_refused : exit_ok;
}

std::string endpoint_of(const std::string& url) { return url.substr(std::string("tcp://").size()); }

std::unique_ptr<xcf::service> tcp_backend(const bridge_config& c,
                                          const std::function<void(const std::string&)>& log) {
  transport::tcp_service_options o;
  o.endpoint = endpoint_of(c.xcf_url);
  o.tls.ca_file = c.xcf_tls.ca_file;
  o.tls.cert_file = c.xcf_tls.cert_file;
  o.tls.key_file = c.xcf_tls.key_file;
  o.log = log;
  return std::make_unique<transport::tcp_service>(std::move(o));
}

int run(int argc, const char* const* argv, std::istream& in, std::ostream& out,
        const program_platform& platform) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--version") {
      out << "imsbridge " << IMSB_VERSION << '\n';
      return exit_ok;
    }
  }
  if (argc > 1 && (std::string(argv[1]) == "--command" || std::string(argv[1]).rfind("--command=", 0) == 0))
    return client_command(argc, argv, out);

  std::ostringstream help;
  auto parsed = parse_config(argc, argv, help);
  if (!parsed) {
    out << parsed.error().detail << '\n';
    out.flush();
    return exit_failed;
  }
  if (!parsed->has_value()) {
    out << usage_text << '\n' << help.str() << operator_text;
    return exit_ok;
  }
  const bridge_config config = std::move(**parsed);

  // Before any thread starts: every thread inherits the blocked SIGINT/SIGTERM.
  stop_signals signals;
  console_out console(out);
  const auto say = [&console](const std::string& line) { console.line(line); };
  const auto failed = [&](std::string_view id, const std::string& what) {
    say(std::string(id) + ' ' + what);
    return exit_failed;
  };
  if (signals.fd() < 0) return failed(msg::IMB2054E, std::string("signalfd: ") + std::strerror(errno));
  if (!platform.connect) return failed(msg::IMB2054E, "no queue-manager connection in this build");

  // The connection held for the program's life: with local:QM the queue manager runs as long as we do.
  auto held = platform.connect(config);
  if (!held)
    return failed(msg::IMB2054E, "QUEUE MANAGER " +
                                     (config.qmgr_connect.empty() ? "(MQSERVER)" : config.qmgr_connect) +
                                     ": " + held.error().to_string());
  std::unique_ptr<mqi::connection> keeper = std::move(held).value();
  const std::string qmgr_name = keeper->qmgr_name();

  // Security: keys first, so a bad key file stops the start before anything is got.
  std::optional<passticket_keys> tickets;
  if (!config.passticket_keys_file.empty()) {
    auto loaded = passticket_keys::load(config.passticket_keys_file);
    if (!loaded) return failed(msg::IMB2054E, "bridge.passticket-keys: " + loaded.error().to_string());
    if (loaded->readable_by_others())
      say(std::string(msg::IMB2061W) + " bridge.passticket-keys " + config.passticket_keys_file +
          ": THE KEY FILE IS OPEN TO GROUP OR OTHERS; MAKE IT 0600 (OR 0400)");
    tickets = std::move(loaded).value();
  }
  std::optional<bytes> utoken_key;
  if (!config.utoken_key_file.empty()) {
    auto key = transport::utoken_key::load(config.utoken_key_file);
    if (!key) return failed(msg::IMB2054E, "bridge.utoken-key: " + key.error().to_string());
    if (key->readable_by_others())
      say(std::string(msg::IMB2061W) + " bridge.utoken-key " + config.utoken_key_file +
          ": THE KEY FILE IS OPEN TO GROUP OR OTHERS; MAKE IT 0600 (OR 0400)");
    utoken_key = key->key_bytes();
  }
  security_hooks sec_hooks = platform.security ? platform.security(config, qmgr_name) : security_hooks{};
  if (!sec_hooks.now_seconds)
    sec_hooks.now_seconds = [] {
      return static_cast<std::int64_t>(std::chrono::duration_cast<std::chrono::seconds>(
                                           std::chrono::system_clock::now().time_since_epoch())
                                           .count());
    };
  security_checker checker(std::move(sec_hooks), std::move(tickets), std::move(utoken_key),
                           config.utoken_validity_s, config.age);

  // The XCF backend: the first one made here, so that an unusable endpoint or TLS file fails the start;
  // the engine gets it on its first call and a new one on any later call.
  const std::function<void(const std::string&)> log = say;
  const auto make_xcf = [&platform, &config, log]() -> std::unique_ptr<xcf::service> {
    return platform.make_xcf ? platform.make_xcf(config, log) : tcp_backend(config, log);
  };
  std::unique_ptr<xcf::service> first_xcf;
  try {
    first_xcf = make_xcf();
  } catch (const std::exception& e) {
    return failed(msg::IMB2054E, "XCF BACKEND " + config.xcf_url + ": " + e.what());
  }
  if (!first_xcf) return failed(msg::IMB2054E, "XCF BACKEND " + config.xcf_url + ": none made");
  // The first backend, until the engine's first make_xcf call (from the engine's threads) takes it.
  struct first_backend {
    explicit first_backend(std::unique_ptr<xcf::service> x) : xcf(std::move(x)) {}
    sync::mutex mu;
    std::unique_ptr<xcf::service> xcf IMSB_GUARDED_BY(mu);
  };
  auto pending_xcf = std::make_shared<first_backend>(std::move(first_xcf));

  engine_hooks hooks;
  hooks.connect = [&platform, config] { return platform.connect(config); };
  hooks.make_xcf = [pending_xcf, make_xcf, log]() -> std::unique_ptr<xcf::service> {
    {
      sync::lock_guard lock(pending_xcf->mu);
      if (pending_xcf->xcf) return std::move(pending_xcf->xcf);
    }
    try {
      return make_xcf();
    } catch (const std::exception& e) {
      // The same options worked at start; a failure now (a TLS file removed) is the engine's to retry.
      log(std::string(msg::IMB2054E) + " XCF BACKEND: " + e.what());
      return nullptr;
    }
  };
  hooks.console = say;
  hooks.security = &checker;

  auto eng = std::make_unique<engine>(config, hooks);

  // The main thread waits on the signalfd and on this pipe, which a STOP from the console or the socket
  // writes to (engine::stop_requested is also checked each second, whatever asked).
  int wake[2] = {-1, -1};
  if (::pipe2(wake, O_CLOEXEC | O_NONBLOCK) != 0) {
    return failed(msg::IMB2054E, std::string("pipe2: ") + std::strerror(errno));
  }
  struct pipe_closer {
    int* fds;
    ~pipe_closer() {
      ::close(fds[0]);
      ::close(fds[1]);
    }
  } close_wake{wake};
  // The control socket opens before the engine starts, so that a path in use fails the start before
  // anything is got; until the engine has started, commands are refused with IMB2063W.
  std::atomic<bool> ready{false};
  const auto run_command = [&eng, &wake, &ready](std::string_view line) -> std::vector<std::string> {
    if (!ready)
      return {std::string(msg::IMB2063W) + " IMSBRIDGE IS STARTING; COMMAND NOT RUN: " + std::string(line)};
    auto answer = eng->command(line);
    if (eng->stop_requested()) {
      const char b = 's';
      (void)!::write(wake[1], &b, 1);
    }
    return answer;
  };

  std::unique_ptr<control_socket> control;
  if (!config.control_socket.empty()) {
    auto opened = control_socket::open(config.control_socket, run_command, say);
    if (!opened)
      return failed(msg::IMB2056E, "CONTROL SOCKET " + config.control_socket + ": " + opened.error().detail);
    control = std::move(opened).value();
    say(std::string(msg::IMB2055I) + " CONTROL SOCKET " + config.control_socket +
        " READY (ANSWERS END WITH AN EMPTY LINE)");
  }
  if (auto started = eng->start(); !started) {
    if (control) control->stop();
    eng.reset();
    return failed(msg::IMB2054E, "ENGINE: " + started.error().to_string());
  }
  ready = true;
  say(std::string(msg::IMB2051I) + " IMSBRIDGE " + IMSB_VERSION + " STARTED. QMGR=" + qmgr_name +
      " MEMBER=" + (config.member.empty() ? qmgr_name : config.member) + " XCF=" + config.xcf_url +
      " CONTROL=" + (config.control_socket.empty() ? "NONE" : config.control_socket) +
      " CONSOLE=" + (config.console ? "YES" : "NO"));

  std::string why;
  bool stopped_by_error = false;  // not asked for (signal, STOP): the exit code says it failed
  std::function<int(pollfd*, nfds_t, int)> poll_for_stop = platform.poll_for_stop;
  if (!poll_for_stop) poll_for_stop = [](pollfd* f, nfds_t n, int t) { return ::poll(f, n, t); };
  {
    std::optional<console_reader> reader;
    if (config.console)
      reader.emplace(
          in,
          [&](const std::string& line) {
            for (const auto& l : run_command(line)) say(l);
          },
          console);
    while (why.empty()) {
      pollfd fds[2] = {{signals.fd(), POLLIN, 0}, {wake[0], POLLIN, 0}};
      const int n = poll_for_stop(fds, 2, 1000);
      if (n < 0 && errno != EINTR) {
        why = std::string("poll: ") + std::strerror(errno);
        stopped_by_error = true;
        break;
      }
      if (n > 0 && (fds[0].revents & (POLLERR | POLLHUP | POLLNVAL)) != 0) {
        why = "THE SIGNAL DESCRIPTOR FAILED";  // no SIGTERM could be seen any more
        stopped_by_error = true;
        break;
      }
      if (n > 0 && (fds[0].revents & POLLIN) != 0) {
        const int sig = signals.take();
        if (sig == SIGTERM) why = "SIGTERM";
        if (sig == SIGINT) why = "SIGINT";
      }
      if (why.empty() && eng->stop_requested()) why = "STOP COMMAND";
    }
    say(std::string(msg::IMB2052I) + " IMSBRIDGE STOPPING: " + why);
    // No new commands while the engine quiesces; the reader is joined on leaving this block.
    if (control) control->stop();
  }
  eng->quiesce();
  eng.reset();
  control.reset();
  (void)keeper->disconnect();
  keeper.reset();
  if (stopped_by_error) {
    say(std::string(msg::IMB2053I) + " IMSBRIDGE STOPPED AFTER AN ERROR (" + why + ")");
    return exit_failed;
  }
  say(std::string(msg::IMB2053I) + " IMSBRIDGE STOPPED");
  return exit_ok;
}

}  // namespace

int run_imsbridge(int argc, const char* const* argv, std::istream& in, std::ostream& out, std::ostream& err,
                  const program_platform& platform) {
  try {
    return run(argc, argv, in, out, platform);
  } catch (const std::exception& e) {
    const std::string line = std::string(msg::IMB2062S) + " " + e.what();
    out << line << '\n';
    out.flush();
    err << line << '\n';
    return exit_internal;
  }
}

}  // namespace imsb::bridge
