// The control socket (control.hpp): one thread polls the listener, its connections and a self-pipe.

#include "imsb/bridge/control.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>
#include <system_error>
#include <utility>

#include "imsb/core/messages.hpp"

namespace imsb::bridge {

namespace {

constexpr const char* field_listen = "bridge.control-socket";
constexpr const char* field_client = "control socket";

decode_error fail(const char* field, std::error_code code, std::string detail) {
  return decode_error{code, field, 0, std::move(detail)};
}
decode_error fail(const char* field, std::errc code, std::string detail) {
  return fail(field, std::make_error_code(code), std::move(detail));
}
decode_error fail_errno(const char* field, int err, const std::string& what) {
  return fail(field, std::error_code(err, std::generic_category()), what + ": " + std::strerror(err));
}

// sockaddr_un for `path`, or nullopt when it does not fit (sun_path holds at most 107 bytes + NUL).
std::optional<sockaddr_un> address_of(const std::string& path) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.empty() || path.size() >= sizeof addr.sun_path) return std::nullopt;
  std::copy(path.begin(), path.end(), addr.sun_path);
  return addr;
}

std::string too_long(const std::string& path) {
  return "'" + path + "' is " + std::to_string(path.size()) + " bytes; a Unix socket path holds 1 to " +
         std::to_string(sizeof(sockaddr_un{}.sun_path) - 1);
}

bool send_all(int fd, const std::string& out) {
  std::size_t sent = 0;
  while (sent < out.size()) {
    const ssize_t n = ::send(fd, out.data() + sent, out.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;  // EAGAIN after the send timeout: the peer does not read
    sent += static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace

result<std::unique_ptr<control_socket>> control_socket::open(const std::string& path, handler h, log_fn log,
                                                             std::chrono::milliseconds idle_limit) {
  const auto addr = address_of(path);
  if (!addr) return fail(field_listen, std::errc::filename_too_long, too_long(path));
  const auto* sa = reinterpret_cast<const sockaddr*>(&*addr);
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0) {
    if (!S_ISSOCK(st.st_mode))
      return fail(field_listen, std::errc::not_a_socket, "'" + path + "' exists and is not a socket");
    // Stale only when connecting is refused (nobody listens: a killed bridge left it). Accepted, or any
    // other answer (a full backlog, no permission) means someone owns it. Non-blocking, so a busy owner
    // cannot hold up this start.
    const int probe = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (probe < 0) return fail_errno(field_listen, errno, "socket()");
    const int connected = ::connect(probe, sa, sizeof *addr);
    const int probe_errno = errno;
    ::close(probe);
    if (connected == 0 || probe_errno != ECONNREFUSED)
      return fail(
          field_listen, std::errc::address_in_use,
          "'" + path + "' is in use by another process" +
              (connected == 0 ? std::string() : std::string(" (") + std::strerror(probe_errno) + ")"));
    ::unlink(path.c_str());
  }
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return fail_errno(field_listen, errno, "socket()");
  // umask 0177 around bind: the file is 0600 from the moment it exists, not after a chmod.
  const mode_t old_mask = ::umask(0177);
  const int bound = ::bind(fd, sa, sizeof *addr);
  const int bind_errno = errno;
  ::umask(old_mask);
  if (bound != 0 || ::chmod(path.c_str(), 0600) != 0 || ::listen(fd, 16) != 0) {
    const int err = bound != 0 ? bind_errno : errno;
    ::close(fd);
    if (bound == 0) ::unlink(path.c_str());
    return fail_errno(field_listen, err, "cannot listen on '" + path + "'");
  }
  int wake[2];
  if (::pipe2(wake, O_CLOEXEC | O_NONBLOCK) != 0) {
    const int err = errno;
    ::close(fd);
    ::unlink(path.c_str());
    return fail_errno(field_listen, err, "pipe2()");
  }
  std::unique_ptr<control_socket> s(
      new control_socket(fd, wake[0], wake[1], path, std::move(h), std::move(log), idle_limit));
  struct stat ours {};
  if (::lstat(path.c_str(), &ours) == 0) {
    s->dev_ = ours.st_dev;
    s->ino_ = ours.st_ino;
  }
  s->thread_ = std::thread([p = s.get()] { p->serve(); });
  return s;
}

control_socket::control_socket(int fd, int wake_read, int wake_write, std::string path, handler h, log_fn log,
                               std::chrono::milliseconds idle_limit)
    : fd_(fd),
      wake_read_(wake_read),
      wake_write_(wake_write),
      path_(std::move(path)),
      handler_(std::move(h)),
      log_(std::move(log)),
      idle_limit_(idle_limit) {}

control_socket::~control_socket() { stop(); }

void control_socket::stop() {
  if (wake_write_ >= 0) {
    const char b = 'x';
    while (::write(wake_write_, &b, 1) < 0 && errno == EINTR) {
    }
  }
  if (thread_.joinable()) thread_.join();
  if (fd_ >= 0) {
    ::close(fd_);
    fd_ = -1;
    // Only the file this socket made: another bridge may have replaced a file it thought stale [D].
    struct stat st {};
    if (::lstat(path_.c_str(), &st) == 0 && static_cast<unsigned long long>(st.st_dev) == dev_ &&
        static_cast<unsigned long long>(st.st_ino) == ino_)
      ::unlink(path_.c_str());
  }
  for (int* p : {&wake_read_, &wake_write_}) {
    if (*p >= 0) ::close(*p);
    *p = -1;
  }
}

void control_socket::serve() {
  using steady = std::chrono::steady_clock;
  struct connection {
    int fd;
    std::string pending;
    steady::time_point deadline;  // closed then unless a complete line came (idle_limit_ after the last)
  };
  // [D] limits: a line longer than max_line is not a command (the connection is closed); at most
  // max_connections at once (the listener waits while full); a client that does not take its answer
  // within the send timeout is closed, so one stuck client cannot stop the others being served; one
  // that sends no complete line within idle_limit_ is closed, so idle clients cannot hold every slot.
  constexpr std::size_t max_connections = 16;
  constexpr timeval send_timeout{2, 0};
  std::vector<connection> conns;
  const auto answer = [this](int fd, const std::string& line) {
    std::string out;
    if (!line.empty())
      for (const auto& l : handler_(line)) out += l + '\n';
    out += std::string(end_marker) + '\n';
    return send_all(fd, out);
  };
  for (;;) {
    std::vector<pollfd> fds{pollfd{wake_read_, POLLIN, 0},
                            pollfd{conns.size() < max_connections ? fd_ : -1, POLLIN, 0}};
    for (const auto& c : conns) fds.push_back(pollfd{c.fd, POLLIN, 0});
    int timeout_ms = -1;  // no connection: wait for one (or stop())
    if (!conns.empty()) {
      steady::time_point first = conns.front().deadline;
      for (const auto& c : conns) first = std::min(first, c.deadline);
      const auto left = std::chrono::ceil<std::chrono::milliseconds>(first - steady::now()).count();
      timeout_ms = static_cast<int>(std::clamp<long long>(left, 0, 1 << 30));
    }
    const int n = ::poll(fds.data(), fds.size(), timeout_ms);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      if (log_)
        log_(std::string(msg::IMB2058W) + " CONTROL SOCKET " + path_ + ": poll: " + std::strerror(errno));
      break;
    }
    if ((fds[0].revents & POLLIN) != 0) break;  // stop()
    for (std::size_t i = 0; i < conns.size(); ++i) {
      connection& c = conns[i];
      if ((fds[i + 2].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
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
        c.deadline = steady::now() + idle_limit_;
      }
      if (keep && c.pending.size() > max_line) keep = false;
      if (!keep) {
        ::close(c.fd);
        c.fd = -1;
      }
    }
    const steady::time_point now = steady::now();
    for (connection& c : conns) {
      if (c.fd < 0 || now < c.deadline) continue;
      if (log_)
        log_(std::string(msg::IMB2065W) + " CONTROL SOCKET " + path_ + ": NO COMPLETE LINE FOR " +
             std::to_string(idle_limit_.count()) + " MS; CONNECTION CLOSED");
      ::close(c.fd);
      c.fd = -1;
    }
    conns.erase(std::remove_if(conns.begin(), conns.end(), [](const connection& c) { return c.fd < 0; }),
                conns.end());
    if ((fds[1].revents & POLLIN) != 0) {
      const int fd = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd >= 0) {
        ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &send_timeout, sizeof send_timeout);
        conns.push_back(connection{fd, {}, steady::now() + idle_limit_});
      } else if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
        // The listener stays readable: a short pause rather than a busy loop.
        pollfd w{wake_read_, POLLIN, 0};
        if (::poll(&w, 1, 100) > 0) break;
      }
    }
  }
  for (const auto& c : conns) ::close(c.fd);
}

result<std::vector<std::string>> send_control_command(const std::string& path, std::string_view text,
                                                      std::chrono::milliseconds timeout) {
  if (text.find_first_of("\r\n") != std::string_view::npos)
    return fail(field_client, std::errc::invalid_argument,
                "one command at a time: the text holds a line break");
  const auto addr = address_of(path);
  if (!addr) return fail(field_client, std::errc::filename_too_long, too_long(path));
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return fail_errno(field_client, errno, "socket()");
  struct closer {
    int fd;
    ~closer() { ::close(fd); }
  } close_fd{fd};
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&*addr), sizeof *addr) != 0)
    return fail_errno(field_client, errno, "cannot connect to " + path);
  std::string out(text);
  out += '\n';
  if (!send_all(fd, out)) return fail_errno(field_client, errno, "send()");
  std::vector<std::string> lines;
  std::string pending;
  const auto until = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    for (auto nl = pending.find('\n'); nl != std::string::npos; nl = pending.find('\n')) {
      std::string line = pending.substr(0, nl);
      pending.erase(0, nl + 1);
      if (line == control_socket::end_marker) return lines;
      lines.push_back(std::move(line));
    }
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now());
    if (left.count() <= 0)
      return fail(field_client, std::errc::timed_out, "no end of the answer from " + path);
    pollfd pfd{fd, POLLIN, 0};
    const int ready = ::poll(&pfd, 1, static_cast<int>(std::min<long long>(left.count(), 1 << 30)));
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) return fail_errno(field_client, errno, "poll()");
    if (ready == 0) continue;
    char buf[4096];
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return fail_errno(field_client, errno, "recv()");
    if (n == 0)
      return fail(field_client, std::errc::connection_reset,
                  path + " closed the connection before the answer ended");
    pending.append(buf, static_cast<std::size_t>(n));
  }
}

}  // namespace imsb::bridge
