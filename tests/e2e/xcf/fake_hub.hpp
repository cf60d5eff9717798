#pragma once
// A stand-in for xcfhub that a test scripts connection by connection, for what a real hub never does:
// take a JOIN and drop the connection at once, or send a frame over its own maximum. It listens on
// 127.0.0.1 port 0 and runs the test's script for each connection it accepts, one at a time, on a
// thread of its own. Frames go through the codec (imsb/xcf/frame.hpp), so they are what a hub would
// send unless the script writes raw bytes.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <functional>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "imsb/xcf/frame.hpp"
#include "xcf_e2e.hpp"

namespace imsb::test {

// One accepted connection, closed when the script returns.
class fake_hub_connection {
 public:
  fake_hub_connection(int fd, const std::atomic<bool>& stopping) : fd_(fd), stopping_(stopping) {}
  ~fake_hub_connection() { ::close(fd_); }
  fake_hub_connection(const fake_hub_connection&) = delete;
  fake_hub_connection& operator=(const fake_hub_connection&) = delete;

  // The next whole frame, or nothing when the peer closed, the bytes do not decode, `timeout` passed
  // or the fake hub is stopping.
  std::optional<xcf::frame::decoded> read_frame(milliseconds timeout) {
    const auto until = steady::now() + timeout;
    for (;;) {
      xcf::frame::decoded f;
      decode_error err;
      const auto st = reader_.next(f, err);
      if (st == xcf::frame::reader::status::frame) return f;
      if (st == xcf::frame::reader::status::error) return std::nullopt;
      if (!read_some(until)) return std::nullopt;
    }
  }

  bool write(const bytes& b) {
    std::size_t done = 0;
    while (done < b.size()) {
      const ssize_t n = ::send(fd_, b.data() + done, b.size() - done, MSG_NOSIGNAL);
      if (n <= 0) return false;
      done += static_cast<std::size_t>(n);
    }
    return true;
  }

  bool send(xcf::frame::frame_type type, std::uint32_t corr, const xcf::frame::payload& body) {
    bytes b;
    if (!xcf::frame::encode(type, 0, corr, body, b))
      throw std::logic_error("fake hub: frame does not encode");
    return write(b);
  }

  // Reads a JOIN and answers it 0/0 with a member list of the joiner alone. The JOIN, or nothing.
  std::optional<xcf::frame::join_payload> accept_join(std::uint32_t max_payload, std::uint32_t heartbeat_ms,
                                                      std::uint8_t token_seed, milliseconds timeout) {
    const auto f = read_frame(timeout);
    if (!f || f->head.type != xcf::frame::frame_type::join) return std::nullopt;
    const auto join = std::get<xcf::frame::join_payload>(f->body);
    xcf::frame::join_rsp_payload rsp;
    rsp.code = xcf::codes::ok;
    rsp.token = {0xFA, 0x4E, 0, 0, 0, 0, 0, token_seed};
    rsp.max_payload = max_payload;
    rsp.heartbeat_ms = heartbeat_ms;
    xcf::member_info self;
    self.group = join.group;
    self.name = join.member;
    self.token = rsp.token;
    self.state = xcf::member_state::active;
    self.system = "FAKEHUB";
    rsp.members.push_back(self);
    if (!send(xcf::frame::frame_type::join_rsp, f->head.corr, rsp)) return std::nullopt;
    return join;
  }

  // true when the peer closed within `timeout` (whatever it sent meanwhile is read and dropped).
  bool wait_close(milliseconds timeout) {
    const auto until = steady::now() + timeout;
    while (read_some(until)) {
    }
    return closed_;
  }

 private:
  // false when the peer closed, on an error, at `until` or when stopping.
  bool read_some(steady::time_point until) {
    for (;;) {
      if (stopping_) return false;
      const auto left = std::chrono::duration_cast<milliseconds>(until - steady::now()).count();
      if (left <= 0) return false;
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(std::min<long long>(left, 20))) <= 0) continue;
      std::uint8_t buf[65536];
      const ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
      if (n <= 0) {
        closed_ = true;
        return false;
      }
      reader_.feed(bytes_view(buf, static_cast<std::size_t>(n)));
      return true;
    }
  }

  int fd_;
  const std::atomic<bool>& stopping_;
  xcf::frame::reader reader_{xcf::frame::hard_max_payload};
  bool closed_ = false;
};

class fake_hub {
 public:
  // script(connection, n): n counts the accepted connections from 0.
  using script = std::function<void(fake_hub_connection&, int)>;

  explicit fake_hub(script s) : script_(std::move(s)) {
    listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (listen_fd_ < 0) throw std::runtime_error("fake hub: socket failed");
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    if (::bind(listen_fd_, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0 ||
        ::listen(listen_fd_, 16) != 0 ||
        ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
      ::close(listen_fd_);
      throw std::runtime_error("fake hub: cannot listen on 127.0.0.1");
    }
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] { run(); });
  }
  ~fake_hub() {
    stopping_ = true;
    thread_.join();
    ::close(listen_fd_);
  }
  fake_hub(const fake_hub&) = delete;
  fake_hub& operator=(const fake_hub&) = delete;

  std::string endpoint() const { return "127.0.0.1:" + std::to_string(port_); }

  // When each connection was accepted, and when its script ended (and the fake hub closed it).
  struct visit {
    steady::time_point accepted;
    steady::time_point closed;
  };
  std::vector<visit> visits() const {
    std::lock_guard<std::mutex> lock(mu_);
    return visits_;
  }
  std::size_t visit_count() const {
    std::lock_guard<std::mutex> lock(mu_);
    return visits_.size();
  }
  // Until `n` connections have been accepted, or `timeout`.
  bool wait_accepted(std::size_t n, milliseconds timeout) const {
    const auto until = steady::now() + timeout;
    while (steady::now() < until) {
      if (visit_count() >= n) return true;
      std::this_thread::sleep_for(milliseconds(5));
    }
    return visit_count() >= n;
  }

 private:
  void run() {
    for (int n = 0; !stopping_;) {
      pollfd p{listen_fd_, POLLIN, 0};
      if (::poll(&p, 1, 20) <= 0) continue;
      const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd < 0) continue;
      const auto accepted = steady::now();
      {
        std::lock_guard<std::mutex> lock(mu_);
        visits_.push_back({accepted, {}});
      }
      {
        fake_hub_connection conn(fd, stopping_);
        script_(conn, n);
      }
      std::lock_guard<std::mutex> lock(mu_);
      visits_[static_cast<std::size_t>(n)].closed = steady::now();
      ++n;
    }
  }

  script script_;
  int listen_fd_ = -1;
  std::uint16_t port_ = 0;
  std::atomic<bool> stopping_{false};
  mutable std::mutex mu_;
  std::vector<visit> visits_;
  std::thread thread_;
};

}  // namespace imsb::test
