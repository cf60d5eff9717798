#pragma once
// One client connection of the hub: its stream, the frame reader and the write queue — bytes only
// (STYLE.md, Asio's examples: connection → parser → handler). What frames mean is the directory's job.

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <utility>

#include <boost/asio/steady_timer.hpp>

#include "imsb/transport/tcp_common.hpp"
#include "imsb/xcf/frame.hpp"
#include "logger.hpp"

namespace imsb::transport::hub_detail {

enum class end_reason : std::uint8_t {
  closed,          // the peer closed the connection
  io_error,        // a read or write failed (reset, ...)
  protocol_error,  // the peer broke the protocol: ERROR sent
  heartbeat,       // silent for three heartbeat intervals
  stopped,         // the hub stops
};
std::string_view to_string(end_reason why) noexcept;

class connection;

// The directory: what the hub does with frames.
class connection_events {
 public:
  virtual void on_frame(connection& c, xcf::frame::decoded& frame) = 0;
  // Exactly once per connection that completed its handshake, before it goes away.
  virtual void on_end(connection& c, end_reason why) = 0;

 protected:
  ~connection_events() = default;
};

// Which member a connection carries; kept here, managed by the directory.
struct membership {
  enum class state : std::uint8_t { none, active, quiesced };
  state st = state::none;
  std::string group;
  std::string name;
  // (target member, stream) refused with 12/0 and not yet resumed (transport/README.md "Send" [D]).
  std::set<std::pair<std::string, std::uint16_t>> refused;
};

struct connection_limits {
  std::uint32_t max_payload = xcf::frame::default_max_payload;
  std::size_t write_buffer = 0;  // --target-buffer: SENDs to us refused past it; reads pause past twice it
  std::chrono::milliseconds linger{1000};  // after an ERROR: how long to wait for the peer to close
};

class connection : public std::enable_shared_from_this<connection> {
 public:
  using clock = std::chrono::steady_clock;
  enum class kind : std::uint8_t { control, deliver };

  connection(std::unique_ptr<stream> s, const connection_limits& limits, const logger& log,
             connection_events& events, std::function<void(connection&)> on_gone);
  connection(const connection&) = delete;
  connection& operator=(const connection&) = delete;

  // TLS handshake (if any), then reading.
  void start();

  // Queues one frame; false when it could not be encoded (a bug, logged) or the connection ends.
  bool send(xcf::frame::frame_type type, std::uint16_t flags, std::uint32_t corr,
            const xcf::frame::payload& body, kind k = kind::control);
  // Bytes encoded and not yet written (the frame being written included).
  std::size_t queued_bytes() const noexcept { return queued_bytes_; }
  // Drops DELIVER frames not yet being written; returns how many.
  std::size_t discard_deliveries();

  // ERROR frame, then FIN once written, then close when the peer closes or after the linger time.
  // The member (if any) is ended first (on_end(protocol_error)).
  void protocol_error(xcf::return_code code, const std::string& text);
  // Closes at once.
  void end(end_reason why);

  bool ready() const noexcept { return open_ && !ended_; }  // handshake done, not ending
  const std::string& peer() const noexcept { return stream_->peer(); }
  clock::time_point last_heard() const noexcept { return last_heard_; }

  membership member;

 private:
  struct out_frame {
    bytes data;
    kind k;
  };
  void on_handshake(const boost::system::error_code& ec);
  void read();
  void on_read(const boost::system::error_code& ec, std::size_t n);
  void flush();
  void on_written(const boost::system::error_code& ec);
  void finish();  // closes the socket and leaves the hub's set (once)
  bool read_paused() const noexcept { return queued_bytes_ > 2 * limits_.write_buffer; }

  std::unique_ptr<stream> stream_;
  connection_limits limits_;
  const logger& log_;
  connection_events& events_;
  std::function<void(connection&)> on_gone_;

  xcf::frame::reader reader_;
  std::array<std::uint8_t, 64 * 1024> read_buf_{};
  std::deque<out_frame> queue_;
  std::size_t queued_bytes_ = 0;
  bool writing_ = false;
  bool reading_ = false;
  bool open_ = false;       // handshake done
  bool ended_ = false;      // on_end done: no more frames are handled
  bool lingering_ = false;  // ERROR queued: waiting to send it and for the peer to go
  bool finished_ = false;
  clock::time_point last_heard_;
  boost::asio::steady_timer linger_timer_;
};

}  // namespace imsb::transport::hub_detail
