#pragma once
// One client connection of the hub: its stream, the frame reader and the write queue — bytes only
// (docs/design/style.md, Asio's examples: connection → parser → handler). What frames mean is the
// directory's job.

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
  heartbeat,       // no whole frame for three heartbeat intervals
  partial_frame,   // a frame begun and still not whole after three heartbeat intervals
  slow_consumer,   // does not read what is queued to it (transport/README.md "Memory" [D])
  stopped,         // the hub stops
};
std::string_view to_string(end_reason why) noexcept;

class connection;

// The directory: what the hub does with frames.
class connection_events {
 public:
  // A whole frame: its header (checked) and its payload, decoded or not (`body` holds the decode error;
  // framing is intact, so the directory may answer and go on — README "Join" [D]).
  virtual void on_frame(connection& c, const xcf::frame::header& head, result<xcf::frame::payload>& body) = 0;
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
  // Entries go on resume, when either end stops being active, and the set is capped (directory).
  std::set<std::pair<std::string, std::uint16_t>> refused;
};

struct connection_limits {
  std::uint32_t max_payload = xcf::frame::default_max_payload;
  std::size_t write_buffer = 0;  // --target-buffer: SENDs to us are refused past it
  // Requests are not decoded while more than this is queued to the connection (its answers would grow
  // without bound otherwise); twice write_buffer, so DELIVERs alone never pause a reader.
  std::size_t pause_reading = 0;
  // An EVENT or PING that would take the queue past this fails the connection as a slow consumer.
  std::size_t slow_consumer = 0;
  std::chrono::milliseconds linger{1000};     // after an ERROR: how long to wait for the peer to close
  std::chrono::milliseconds handshake{5000};  // TLS handshake deadline
};

// At most one line a second of one kind (IMB3011W, IMB3014W) per connection; the lines held back are
// counted and the count goes with the next line shown, or with the connection's end.
class log_rate_limit {
 public:
  using clock = std::chrono::steady_clock;
  // true: write the line now (with held_back() lines not shown before it).
  bool allow(clock::time_point now) noexcept {
    if (now < next_) {
      ++held_back_;
      return false;
    }
    next_ = now + std::chrono::seconds(1);
    return true;
  }
  // The count of lines not shown since the last one shown; resets it.
  std::size_t take_held_back() noexcept { return std::exchange(held_back_, 0); }

 private:
  clock::time_point next_{};
  std::size_t held_back_ = 0;
};

class connection : public std::enable_shared_from_this<connection> {
 public:
  using clock = std::chrono::steady_clock;
  // answer: the reply to a request (PONG included: clients fence on it, so answers keep their order);
  // deliver: a message (discarded on LEAVE, QUIESCE, failure); event: EVENT; ping: the hub's PING,
  // queued right after the frame being written so that a live reader behind megabytes of DELIVERs still
  // answers in time (README "Heartbeat" [D]).
  enum class kind : std::uint8_t { answer, deliver, event, ping };

  connection(std::unique_ptr<stream> s, const connection_limits& limits, const logger& log,
             connection_events& events, std::function<void(connection&)> on_gone);
  connection(const connection&) = delete;
  connection& operator=(const connection&) = delete;

  // TLS handshake (if any, within limits.handshake), then reading.
  void start();

  // Queues one frame; false when it could not be encoded (a bug, logged), the connection ends, or an
  // EVENT / PING finds it a slow consumer (it is then failed, from a handler of its own).
  bool send(xcf::frame::frame_type type, std::uint16_t flags, std::uint32_t corr,
            const xcf::frame::payload& body, kind k = kind::answer);
  // Bytes encoded and not yet written (the frame being written included).
  std::size_t queued_bytes() const noexcept { return queued_bytes_; }
  // Drops DELIVER frames not yet being written; returns how many.
  std::size_t discard_deliveries();

  // ERROR frame, then FIN once written, then close when the peer closes or after the linger time.
  // The member (if any) is ended first (on_end(protocol_error)).
  void protocol_error(xcf::return_code code, const std::string& text);
  // Closes at once.
  void end(end_reason why);

  bool open() const noexcept { return open_; }              // handshake done
  bool ready() const noexcept { return open_ && !ended_; }  // handshake done, not ending
  // Requests wait: the peer does not read what is queued to it.
  bool read_paused() const noexcept { return queued_bytes_ > limits_.pause_reading; }
  // Bytes of a frame begun and not yet whole (or of frames waiting while reading is paused).
  std::size_t partial_bytes() const noexcept { return reader_.buffered(); }
  const std::string& peer() const noexcept { return stream_->peer(); }
  // When the last whole frame came (or the handshake ended): liveness counts whole frames only.
  clock::time_point last_heard() const noexcept { return last_heard_; }

  membership member;
  log_rate_limit join_refusals;  // IMB3011W
  log_rate_limit send_refusals;  // IMB3014W

 private:
  struct out_frame {
    bytes data;
    kind k;
  };
  void on_handshake(const boost::system::error_code& ec);
  void read();
  void on_read(const boost::system::error_code& ec, std::size_t n);
  // Takes whole frames from the reader while requests may be handled; false when the connection ended.
  bool take_frames();
  void flush();
  void on_written(const boost::system::error_code& ec);
  void slow_consumer(std::size_t frame_size);
  void finish();  // closes the socket and leaves the hub's set (once)

  std::unique_ptr<stream> stream_;
  connection_limits limits_;
  const logger& log_;
  connection_events& events_;
  std::function<void(connection&)> on_gone_;

  xcf::frame::reader reader_;
  std::array<std::uint8_t, 64 * 1024> read_buf_{};
  // The front is the frame being written while writing_: it stays here, alive, until on_written, even
  // when the connection finishes meanwhile (a TLS write still reads it).
  std::deque<out_frame> queue_;
  std::size_t queued_bytes_ = 0;
  bool writing_ = false;
  bool reading_ = false;
  bool open_ = false;       // handshake done
  bool ended_ = false;      // on_end done: no more frames are handled
  bool lingering_ = false;  // ERROR queued: waiting to send it and for the peer to go
  bool slow_ = false;       // failed as a slow consumer; the end is posted
  bool finished_ = false;
  clock::time_point last_heard_;
  boost::asio::steady_timer deadline_;  // the TLS handshake's, then the linger after an ERROR
};

}  // namespace imsb::transport::hub_detail
