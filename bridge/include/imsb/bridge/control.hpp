#pragma once
// The bridge's local control socket [D]: a Unix stream socket at
// bridge.control-socket, with the protocol of imsemu's --command-socket (imsemu/README.md), so the same
// habits and tools work for both. Each line a connection sends is one operator command, passed to the
// handler (engine::command); the answer is its lines, each ending in '\n', then one empty line (the end
// marker). An empty line gets the end marker alone, so a client never waits. A connection may send many
// lines; answers come in order.
//
// The socket file is made with mode 0600 from the moment it exists (whoever connects can stop the bridge
// and reset Tpipes); a stale one (connecting is refused: a killed bridge left it) is replaced; any other
// file, or a socket another process answers on, is an error. stop() removes the file only if it is still
// the one this socket made.

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "imsb/core/result.hpp"

namespace imsb::bridge {

class control_socket {
 public:
  using handler = std::function<std::vector<std::string>(std::string_view line)>;
  using log_fn = std::function<void(const std::string& line)>;
  static constexpr std::string_view end_marker = "";
  // [D] A line longer than this is no command: the connection is closed (the console drops such a line).
  static constexpr std::size_t max_line = 64 * 1024;
  // [D] A connection that sends no complete line for this long is closed (IMB2065W), so that idle
  // clients cannot hold all the slots.
  static constexpr std::chrono::milliseconds default_idle_limit = std::chrono::seconds(30);

  // Listens at `path` and starts the thread that serves connections (one at a time per line; the handler
  // is called from that thread). `log` gets IMB2058W if polling fails and IMB2065W when an idle
  // connection is closed (may be empty). `idle_limit`: the idle deadline (tests shorten it). Errors
  // (field "bridge.control-socket"): filename_too_long (the path does not fit sun_path), not_a_socket
  // (another file is there), address_in_use (another process answers), or the errno of socket/bind/listen.
  static result<std::unique_ptr<control_socket>> open(
      const std::string& path, handler h, log_fn log = {},
      std::chrono::milliseconds idle_limit = default_idle_limit);
  ~control_socket();  // stop()
  control_socket(const control_socket&) = delete;
  control_socket& operator=(const control_socket&) = delete;

  // Stops taking connections, closes those open, joins the thread, removes the socket file. Idempotent.
  // Must not be called from the handler.
  void stop();
  const std::string& path() const noexcept { return path_; }

 private:
  control_socket(int fd, int wake_read, int wake_write, std::string path, handler h, log_fn log,
                 std::chrono::milliseconds idle_limit);
  void serve();

  int fd_ = -1;
  int wake_read_ = -1;  // a self-pipe: stop() writes one byte so that poll() returns at once
  int wake_write_ = -1;
  std::string path_;
  unsigned long long dev_ = 0, ino_ = 0;  // the file this socket made
  handler handler_;
  log_fn log_;
  std::chrono::milliseconds idle_limit_;
  std::thread thread_;
};

// The client side (`imsbridge --command PATH 'TEXT'`): connects, sends TEXT and a newline, and returns the
// answer's lines (the end marker not included). Errors (field "control socket"): TEXT holds a line break
// (invalid_argument), the path is too long, nothing listens (the connect errno), the connection ends
// before the end marker (connection_reset), or no end marker within `timeout` (timed_out).
result<std::vector<std::string>> send_control_command(
    const std::string& path, std::string_view text,
    std::chrono::milliseconds timeout = std::chrono::minutes(1));

}  // namespace imsb::bridge
