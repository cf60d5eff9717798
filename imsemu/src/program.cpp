// The imsemu program's logic (program.hpp): definitions, engine + server_link, timer, console, stop.
//
// Console IDs: IMS's own for the OTMA XCF group [C: IMS messages DFS2360I "XCF GROUP JOINED
// SUCCESSFULLY.", DFS2361I "XCF GROUP CLOSED SUCCESSFULLY.", DFS2364E "RC=rc REASON=reason XCF JOIN
// FAILURE."]; IMB5080-IMB5099 for the emulator's own lines.

#include "imsb/imsemu/program.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>
#include <system_error>
#include <utility>

#include "imsb/core/bytes.hpp"
#include "imsb/core/messages.hpp"

namespace imsb::imsemu {

namespace {

decode_error error_of(std::errc code, std::string field, std::string detail) {
  return decode_error{std::make_error_code(code), std::move(field), 0, std::move(detail)};
}

std::string hex(std::uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%08X", v);
  return buf;
}

std::string upper(std::string s) {
  for (char& c : s) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  }
  return s;
}

}  // namespace

result<ims::definitions> load_definitions(const program_options& options) {
  ims::definitions defs;
  if (!options.config_file.empty()) {
    std::ifstream in(options.config_file, std::ios::binary);
    if (!in) {
      const int e = errno;
      return decode_error{std::error_code(e != 0 ? e : ENOENT, std::generic_category()), "definitions", 0,
                          "cannot read '" + options.config_file + "'"};
    }
    std::ostringstream text;
    text << in.rdbuf();
    auto parsed = ims::parse_definitions(text.str());
    if (!parsed.ok()) return parsed.error();
    defs = std::move(parsed).value();
    if (!options.group.empty()) defs.grname = upper(options.group);
    if (!options.member.empty()) defs.otmanm = upper(options.member);
  } else {
    defs = ims::default_definitions(upper(options.group), upper(options.member));
  }
  if (defs.grname.empty() || defs.otmanm.empty()) {
    return error_of(std::errc::invalid_argument, "definitions",
                    "no XCF group or member: give --group and --member, or an IMS GRNAME=,OTMANM= statement");
  }
  return defs;
}

result<std::unique_ptr<program>> program::open(const program_options& options, console_fn console) {
  auto defs = load_definitions(options);
  if (!defs.ok()) return defs.error();
  auto e = engine::open(*defs, options.state_dir, options.cold_start, console);
  if (!e.ok()) return e.error();
  std::unique_ptr<program> p(new program(std::move(e).value(), *defs, options, console));
  for (const auto& f : options.faults) {
    std::string word = upper(f);
    word.erase(0, word.find_first_not_of(' '));
    // [D] a restart is a run-time event; at start, --cold says which start it is.
    if (word.rfind("RESTART", 0) == 0)
      return error_of(std::errc::invalid_argument, "--fault " + f,
                      "FAULT RESTART is an operator command; use --cold for a cold start");
    const auto lines = p->operator_command("FAULT " + f);
    for (const auto& l : lines) {
      // commands.cpp answers a bad FAULT with IMB5061E and changes nothing.
      if (l.rfind(msg::IMB5061E, 0) == 0) return error_of(std::errc::invalid_argument, "--fault " + f, l);
    }
    for (const auto& l : lines) console(l);
  }
  return p;
}

program::program(std::unique_ptr<engine> e, const ims::definitions& defs, const program_options& options,
                 console_fn console)
    : console_(std::move(console)),
      utoken_verifier_(options.utoken_verifier),
      utoken_required_(options.utoken_required),
      defs_(defs),
      group_(defs.grname),
      member_(defs.otmanm),
      imsid_(defs.imsid),
      state_dir_(options.state_dir.string()),
      cold_(options.cold_start),
      tick_ms_(options.tick_ms == 0 ? 100 : options.tick_ms),
      engine_(std::move(e)) {
  link_config_.member = defs.otmanm;
  link_config_.heartbeat_interval =
      options.heartbeat_ms ? *options.heartbeat_ms : std::uint64_t{defs.heartbeat_seconds} * 1000;
  link_config_.output_ack_timeout = options.output_ack_timeout_ms;
  generation_ = static_cast<std::uint32_t>(std::time(nullptr));
  make_link();
}

void program::make_link() {
  tpipe::server_config cfg = link_config_;
  // [D] server token {u32 member index, u32 generation} (server_session.hpp): the generation is the
  // start time, so a client can tell a restarted IMS from the one it bid to.
  store_u32(cfg.token.data(), 1, byte_order::big);
  store_u32(cfg.token.data() + 4, generation_, byte_order::big);
  link_ = std::make_unique<tpipe::server_link>(cfg, *engine_);
  tpipe::server_link* link = link_.get();
  engine_->attach([link](const std::function<void(tpipe::server_session&)>& f) {
    link->with_session([&f](tpipe::server_session& s) { f(s); });
  });
  engine_->set_utoken_verifier(utoken_verifier_, utoken_required_);
  // The link's clock (server_link's default): an input between ticks is timed from its arrival.
  engine_->set_clock(tpipe::steady_now);
  engine_->set_program_runner([this](external_job job) { submit_run(std::move(job)); });
}

void program::start_worker() {
  {
    std::lock_guard<std::mutex> lock(run_mutex_);
    run_stop_ = false;
  }
  if (!worker_.joinable()) worker_ = std::thread([this] { worker_loop(); });
}

void program::submit_run(external_job job) {
  {
    std::lock_guard<std::mutex> lock(run_mutex_);
    if (run_stop_) return;  // stopping: the input stays logged (engine.hpp header)
    run_job_ = std::move(job);
  }
  run_cv_.notify_all();
}

void program::worker_loop() {
  std::unique_lock<std::mutex> lock(run_mutex_);
  for (;;) {
    run_cv_.wait(lock, [this] { return run_stop_ || run_job_.has_value(); });
    if (run_stop_) return;
    external_job job = std::move(*run_job_);
    run_job_.reset();
    run_cancelled_ = false;
    lock.unlock();
    external_options options = job.options;
    // The group is killed only between its start and its end (on_started(0) comes before it is reaped),
    // under run_mutex_, so a kill never reaches a reused process group id.
    options.on_started = [this](int pgid) {
      std::lock_guard<std::mutex> l(run_mutex_);
      run_pgid_ = pgid;
      if (pgid != 0 && run_cancelled_) ::kill(-pgid, SIGKILL);
    };
    external_result result = job.run(options);
    lock.lock();
    run_pgid_ = 0;
    if (run_cancelled_ || run_stop_) continue;  // dropped: the engine may be gone
    lock.unlock();
    // Through the session access (the link's lock); stop_worker joins after it, never holding that lock.
    job.complete(std::move(result));
    lock.lock();
  }
}

void program::stop_worker() {
  {
    std::lock_guard<std::mutex> lock(run_mutex_);
    run_stop_ = true;
    run_cancelled_ = true;
    run_job_.reset();
    if (run_pgid_ != 0) {
      console_(std::string(msg::IMB5091W) + " EXTERNAL PROGRAM RUN CANCELLED: PROCESS GROUP " +
               std::to_string(run_pgid_) + " KILLED; ITS INPUT STAYS QUEUED");
      ::kill(-run_pgid_, SIGKILL);
    }
  }
  run_cv_.notify_all();
  if (worker_.joinable()) worker_.join();
}

program::~program() { stop("program ended"); }

xcf::return_code program::start(xcf::service& xcf, std::chrono::milliseconds retry_for) {
  {
    std::lock_guard<std::mutex> lock(engine_mutex_);
    xcf_ = &xcf;
    retry_for_ = retry_for;
  }
  {
    std::lock_guard<std::mutex> lock(timer_mutex_);
    timer_stop_ = false;
  }
  start_worker();
  // Not under engine_mutex_: the console and the command socket are answered while the join is retried.
  const xcf::return_code rc = join_group(retry_for);
  if (!rc.ok()) return rc;
  if (!timer_.joinable()) timer_ = std::thread([this] { timer_loop(); });
  return rc;
}

xcf::return_code program::join_group(std::chrono::milliseconds retry_for) {
  const auto until = std::chrono::steady_clock::now() + retry_for;
  xcf::return_code rc;
  for (;;) {
    rc = link_->join(*xcf_, group_);
    if (rc.ok() || std::chrono::steady_clock::now() >= until) break;
    // stop() sets timer_stop_: a retry loop does not hold it up.
    std::unique_lock<std::mutex> lock(timer_mutex_);
    if (timer_cv_.wait_for(lock, std::chrono::milliseconds(200), [this] { return timer_stop_; })) break;
  }
  if (!rc.ok()) {
    console_("DFS2364E RC=" + hex(rc.rc) + " REASON=" + hex(rc.rsn) + " XCF JOIN FAILURE. GROUP=" + group_ +
             " MEMBER=" + member_);
    return rc;
  }
  joined_ = true;
  console_("DFS2360I XCF GROUP JOINED SUCCESSFULLY. GROUP=" + group_ + " MEMBER=" + member_);
  console_(std::string(msg::IMB5080I) + " IMSEMU READY. IMSID=" + imsid_ + " GROUP=" + group_ +
           " MEMBER=" + member_ + " START=" + (cold_ ? "COLD" : "WARM") + " STATE=" + state_dir_);
  return rc;
}

void program::timer_loop() {
  std::unique_lock<std::mutex> lock(timer_mutex_);
  // The first tick at once: runs and outputs waiting since the engine opened need not wait a period.
  while (!timer_stop_) {
    const std::uint8_t restart_kind = std::exchange(restart_pending_, 0);
    lock.unlock();
    if (restart_kind != 0) restart(restart_kind == 2);
    if (rejoin_pending_ && link_ && std::chrono::steady_clock::now() >= next_rejoin_) {
      // One try per interval (each failure logs DFS2364E), until it joins or the program stops.
      rejoin_pending_ = !join_group(std::chrono::milliseconds(0)).ok();
      next_rejoin_ = std::chrono::steady_clock::now() + rejoin_interval;
    }
    if (link_ && engine_) {  // only this thread replaces them (restart)
      link_->tick();
      const tpipe::millis now = tpipe::steady_now();
      link_->with_session([&](tpipe::server_session&) { engine_->tick(now); });
    }
    lock.lock();
    timer_cv_.wait_for(lock, std::chrono::milliseconds(tick_ms_),
                       [this] { return timer_stop_ || restart_pending_ != 0; });
  }
}

std::vector<std::string> program::operator_command(std::string_view line) {
  std::vector<std::string> lines;
  std::uint8_t restart_kind = 0;
  {
    std::lock_guard<std::mutex> lock(engine_mutex_);
    if (!engine_ || !link_)
      return {std::string(msg::IMB5089E) + " IMSEMU IS DOWN: ITS RESTART FAILED; STOP AND START IT"};
    lines = link_->with_session([&](tpipe::server_session&) {
      auto answer = engine_->operator_command(line);
      restart_kind = std::exchange(engine_->fault_settings().restart_requested, 0);
      return answer;
    });
  }
  if (restart_kind != 0) {
    // Not here: the caller may be a thread the restart must not wait for, and the link's lock would
    // be held across the leave. The timer thread does it.
    {
      std::lock_guard<std::mutex> lock(timer_mutex_);
      restart_pending_ = restart_kind;
    }
    timer_cv_.notify_all();
  }
  return lines;
}

void program::restart(bool cold) {
  const std::string kind = cold ? "COLD" : "WARM";
  // Before the engine goes: a completion must not reach it (program.hpp).
  stop_worker();
  {
    std::lock_guard<std::mutex> lock(engine_mutex_);
    rejoin_pending_ = false;
    console_(std::string(msg::IMB5088I) + " IMS RESTART " + kind + " (FAULT RESTART): STOPPING");
    if (joined_.exchange(false)) {
      // As a planned stop [C: IMS-TERM]: suspend (X'14') to every ready client, then leave the group.
      link_->with_session([](tpipe::server_session& s) { s.suspend_all(); });
      link_->leave();
      console_("DFS2361I XCF GROUP CLOSED SUCCESSFULLY. GROUP=" + group_ + " MEMBER=" + member_);
    }
    // The link refers to the engine; the engine holds the journal's lock, which the new one needs.
    link_.reset();
    engine_.reset();
    auto e = engine::open(defs_, state_dir_, cold, console_);
    if (!e.ok()) {
      console_(std::string(msg::IMB5089E) + " IMS RESTART " + kind + " FAILED: " + e.error().to_string());
      return;
    }
    engine_ = std::move(e).value();
    cold_ = cold;
    // A new generation in the server token, so clients see a restarted IMS even within the same second.
    generation_ = std::max(generation_ + 1, static_cast<std::uint32_t>(std::time(nullptr)));
    make_link();
    start_worker();
  }
  // The join and its retries without engine_mutex_: operator commands reach the new engine meanwhile. IMS
  // out of its group serves no client, so a failed join is not the end: the timer tries again [D].
  if (xcf_ != nullptr && !join_group(retry_for_).ok()) {
    std::lock_guard<std::mutex> lock(timer_mutex_);
    if (timer_stop_) return;  // stop() cut the retries short
    rejoin_pending_ = true;
    next_rejoin_ = std::chrono::steady_clock::now() + rejoin_interval;
    console_(std::string(msg::IMB5067W) + " IMS RESTART " + kind + ": NOT IN XCF GROUP " + group_ +
             "; JOIN RETRIED EVERY " + std::to_string(rejoin_interval.count() / 1000) + " SECONDS");
  }
}

result<done> program::listen_commands(const std::filesystem::path& path) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  const std::string p = path.string();
  if (p.empty() || p.size() >= sizeof addr.sun_path) {
    return error_of(std::errc::filename_too_long, "--command-socket",
                    "'" + p + "' is " + std::to_string(p.size()) +
                        " bytes; a Unix socket path holds at most " +
                        std::to_string(sizeof addr.sun_path - 1));
  }
  std::copy(p.begin(), p.end(), addr.sun_path);
  const auto* sa = reinterpret_cast<const sockaddr*>(&addr);
  struct stat st {};
  if (::lstat(p.c_str(), &st) == 0) {
    if (!S_ISSOCK(st.st_mode))
      return error_of(std::errc::not_a_socket, "--command-socket", "'" + p + "' exists and is not a socket");
    // A socket file: stale only if connecting is refused (a killed emulator leaves it behind). Any other
    // answer — accepted, or a full backlog, a permission error — means someone owns it: left alone. The
    // probe does not block, so a busy owner cannot hang this start.
    const int probe = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (probe < 0)
      return decode_error{std::error_code(errno, std::generic_category()), "--command-socket", 0, "socket"};
    const int connected = ::connect(probe, sa, sizeof addr);
    const int probe_errno = errno;
    ::close(probe);
    if (connected == 0 || probe_errno != ECONNREFUSED)
      return error_of(
          std::errc::address_in_use, "--command-socket",
          "'" + p + "' is in use by another process" +
              (connected == 0 ? std::string() : std::string(" (") + std::strerror(probe_errno) + ")"));
    ::unlink(p.c_str());
  }
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return decode_error{std::error_code(errno, std::generic_category()), "--command-socket", 0, "socket"};
  // Mode 0600 from the moment the file exists: the socket runs FAULT commands for whoever connects.
  const mode_t old_mask = ::umask(0177);
  const int bound = ::bind(fd, sa, sizeof addr);
  const int bind_errno = errno;
  ::umask(old_mask);
  if (bound != 0 || ::chmod(p.c_str(), 0600) != 0 || ::listen(fd, 16) != 0) {
    const int err = bound != 0 ? bind_errno : errno;
    ::close(fd);
    if (bound == 0) ::unlink(p.c_str());
    return decode_error{std::error_code(err, std::generic_category()), "--command-socket", 0,
                        "cannot listen on '" + p + "': " + std::strerror(err)};
  }
  struct stat ours {};
  close_commands();  // a second call replaces the first socket
  command_fd_ = fd;
  command_path_ = path;
  // What stop() may remove: the file this bind made, not one another emulator put there since [D].
  if (::lstat(p.c_str(), &ours) == 0) {
    command_dev_ = ours.st_dev;
    command_ino_ = ours.st_ino;
  }
  command_stop_ = false;
  command_thread_ = std::thread([this] { command_loop(); });
  console_(std::string(msg::IMB5087I) + " COMMAND SOCKET " + p + " READY (ANSWERS END WITH AN EMPTY LINE)");
  return done{};
}

void program::command_loop() {
  struct connection {
    int fd;
    std::string pending;
    std::chrono::steady_clock::time_point last;
  };
  // [D] limits: a line longer than max_line without a newline is not a command (the connection is closed);
  // at most max_connections at once (the listener waits while full); a connection silent for idle_limit, or
  // that does not take an answer within the send timeout (it does not read), is closed.
  constexpr std::size_t max_line = 64 * 1024;
  constexpr std::size_t max_connections = 16;
  constexpr auto idle_limit = std::chrono::minutes(10);
  constexpr timeval send_timeout{2, 0};
  std::vector<connection> conns;
  auto answer = [this](int fd, const std::string& line) {
    std::string out;
    // Every line is answered, an empty one with the end marker alone, so that a client never waits.
    if (!line.empty())
      for (const auto& l : operator_command(line)) out += l + '\n';
    out += std::string(command_end_marker) + '\n';
    std::size_t done_bytes = 0;
    while (done_bytes < out.size()) {
      const ssize_t n = ::send(fd, out.data() + done_bytes, out.size() - done_bytes, MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;  // EAGAIN after the send timeout: the client does not read
      done_bytes += static_cast<std::size_t>(n);
    }
    return true;
  };
  bool accept_failed = false;
  while (!command_stop_) {
    const bool listening = conns.size() < max_connections && !accept_failed;
    std::vector<pollfd> fds{pollfd{listening ? command_fd_ : -1, POLLIN, 0}};
    for (const auto& c : conns) fds.push_back(pollfd{c.fd, POLLIN, 0});
    const int n = ::poll(fds.data(), fds.size(), 200);
    accept_failed = false;
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      console_(std::string(msg::IMB5090W) + " COMMAND SOCKET POLL FAILED: " + std::strerror(errno));
      break;
    }
    const auto now = std::chrono::steady_clock::now();
    for (std::size_t i = 0; i < conns.size(); ++i) {
      connection& c = conns[i];
      if ((fds[i + 1].revents & (POLLIN | POLLHUP | POLLERR)) == 0) {
        if (now - c.last > idle_limit) {
          ::close(c.fd);
          c.fd = -1;
        }
        continue;
      }
      c.last = now;
      char buf[4096];
      const ssize_t got = ::recv(c.fd, buf, sizeof buf, 0);
      if (got < 0 && errno == EINTR) continue;
      bool keep = got > 0;
      if (keep) c.pending.append(buf, static_cast<std::size_t>(got));
      for (auto nl = c.pending.find('\n'); keep && nl != std::string::npos; nl = c.pending.find('\n')) {
        std::string line = c.pending.substr(0, nl);
        c.pending.erase(0, nl + 1);
        while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
        keep = answer(c.fd, line);
      }
      if (keep && c.pending.size() > max_line) keep = false;
      if (!keep) {
        ::close(c.fd);
        c.fd = -1;
      }
    }
    conns.erase(std::remove_if(conns.begin(), conns.end(), [](const connection& c) { return c.fd < 0; }),
                conns.end());
    if ((fds[0].revents & POLLIN) != 0) {
      const int fd = ::accept4(command_fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd >= 0) {
        ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &send_timeout, sizeof send_timeout);
        conns.push_back(connection{fd, {}, now});
      } else if (errno != EINTR && errno != EAGAIN && errno != ECONNABORTED) {
        // Out of descriptors (EMFILE, ENFILE) or memory: the listener stays readable, so one poll round
        // without it rather than a busy loop.
        accept_failed = true;
      }
    }
  }
  for (const auto& c : conns) ::close(c.fd);
}

void program::close_commands() {
  command_stop_ = true;
  if (command_thread_.joinable()) command_thread_.join();
  if (command_fd_ >= 0) {
    ::close(command_fd_);
    command_fd_ = -1;
    struct stat st {};
    if (::lstat(command_path_.c_str(), &st) == 0 && st.st_dev == command_dev_ && st.st_ino == command_ino_)
      ::unlink(command_path_.c_str());
  }
}

void program::stop(const std::string& why) {
  // First: a long run must not hold up the stop (SIGTERM), and its program must not outlive us.
  stop_worker();
  close_commands();
  {
    std::lock_guard<std::mutex> lock(timer_mutex_);
    timer_stop_ = true;
  }
  timer_cv_.notify_all();
  if (timer_.joinable()) timer_.join();
  stop_worker();  // again: a restart on the timer thread may have started it after the first
  std::lock_guard<std::mutex> lock(engine_mutex_);
  if (!joined_.exchange(false) || !link_) return;
  console_(std::string(msg::IMB5082I) + " STOPPING: " + why);
  // A planned stop tells every ready client with suspend (X'14') before IMS leaves [C: IMS-TERM].
  link_->with_session([](tpipe::server_session& s) { s.suspend_all(); });
  link_->leave();
  console_("DFS2361I XCF GROUP CLOSED SUCCESSFULLY. GROUP=" + group_ + " MEMBER=" + member_);
}

}  // namespace imsb::imsemu
