// command_client.hpp: a blocking client of the command socket, with poll() for the answer's time limit.

#include "imsb/imsemu/command_client.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <system_error>
#include <utility>

namespace imsb::imsemu {

namespace {

decode_error failure(std::error_code code, std::string detail) {
  return decode_error{code, "command socket", 0, std::move(detail)};
}
decode_error failure(std::errc code, std::string detail) {
  return failure(std::make_error_code(code), std::move(detail));
}
decode_error errno_failure(int err, std::string detail) {
  return failure(std::error_code(err, std::generic_category()), std::move(detail));
}

}  // namespace

result<command_client> command_client::connect(const std::string& path) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.empty() || path.size() >= sizeof addr.sun_path)
    return failure(std::errc::filename_too_long, "'" + path + "': a Unix socket path holds 1 to " +
                                                     std::to_string(sizeof addr.sun_path - 1) + " bytes");
  std::copy(path.begin(), path.end(), addr.sun_path);
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return errno_failure(errno, "socket()");
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) {
    const int err = errno;
    ::close(fd);
    return errno_failure(err, "cannot connect to " + path);
  }
  return command_client(fd);
}

command_client::command_client(command_client&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), pending_(std::move(other.pending_)) {}

command_client& command_client::operator=(command_client&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
    pending_ = std::move(other.pending_);
  }
  return *this;
}

command_client::~command_client() {
  if (fd_ >= 0) ::close(fd_);
}

result<done> command_client::send(std::string_view text) {
  std::size_t sent = 0;
  while (sent < text.size()) {
    const ssize_t n = ::send(fd_, text.data() + sent, text.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno_failure(errno, "send()");
    sent += static_cast<std::size_t>(n);
  }
  return done{};
}

result<std::vector<std::string>> command_client::answer(std::chrono::milliseconds timeout) {
  std::vector<std::string> lines;
  const auto until = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    const auto nl = pending_.find('\n');
    if (nl != std::string::npos) {
      std::string line = pending_.substr(0, nl);
      pending_.erase(0, nl + 1);
      if (line.empty()) return lines;  // the end marker
      lines.push_back(std::move(line));
      continue;
    }
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now());
    if (left.count() <= 0) return failure(std::errc::timed_out, "no end of the answer");
    pollfd pfd{fd_, POLLIN, 0};
    const int ready = ::poll(&pfd, 1, static_cast<int>(std::min<long long>(left.count(), 1 << 30)));
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) return errno_failure(errno, "poll()");
    if (ready == 0) continue;  // the deadline check above ends it
    char buf[4096];
    const ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno_failure(errno, "recv()");
    if (n == 0)
      return failure(std::errc::connection_reset,
                     "the emulator closed the connection before the answer ended");
    pending_.append(buf, static_cast<std::size_t>(n));
  }
}

}  // namespace imsb::imsemu
