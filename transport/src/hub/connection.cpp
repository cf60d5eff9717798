#include "connection.hpp"

#include <boost/asio/buffer.hpp>
#include <boost/asio/post.hpp>

#include "imsb/core/messages.hpp"

namespace imsb::transport::hub_detail {

namespace frame = xcf::frame;

namespace {
// After a large frame the reader's storage goes back to this once it is empty (README "Memory" [D]).
constexpr std::size_t reader_keep_capacity = 64 * 1024;
}  // namespace

std::string_view to_string(end_reason why) noexcept {
  switch (why) {
    case end_reason::closed:
      return "connection closed without LEAVE";
    case end_reason::io_error:
      return "connection lost";
    case end_reason::protocol_error:
      return "protocol error";
    case end_reason::heartbeat:
      return "silent for three heartbeat intervals";
    case end_reason::partial_frame:
      return "a frame not completed within three heartbeat intervals";
    case end_reason::slow_consumer:
      return "not reading what is queued to it (slow consumer)";
    case end_reason::stopped:
      return "hub stopping";
  }
  return "unknown";
}

connection::connection(std::unique_ptr<stream> s, const connection_limits& limits, const logger& log,
                       connection_events& events, std::function<void(connection&)> on_gone)
    : stream_(std::move(s)),
      limits_(limits),
      log_(log),
      events_(events),
      on_gone_(std::move(on_gone)),
      reader_(limits.max_payload),
      last_heard_(clock::now()),
      deadline_(stream_->get_executor()) {}

void connection::start() {
  if (stream_->is_tls()) {
    // A peer that connects and never completes the handshake must not hold a connection for ever; the
    // heartbeat only starts once the connection is open (README "TLS" [D]).
    deadline_.expires_after(limits_.handshake);
    deadline_.async_wait([self = shared_from_this()](const boost::system::error_code& ec) {
      if (ec || self->open_ || self->finished_) return;
      self->log_.write(log_level::error, msg::IMB3027E,
                       "TLS handshake with " + self->peer() + " not completed within " +
                           std::to_string(self->limits_.handshake.count()) + " ms; connection closed");
      self->ended_ = true;
      self->finish();
    });
  }
  stream_->async_handshake(
      stream::role::server,
      [self = shared_from_this()](const boost::system::error_code& ec) { self->on_handshake(ec); });
}

void connection::on_handshake(const boost::system::error_code& ec) {
  if (finished_) return;
  boost::system::error_code ignored;
  deadline_.cancel(ignored);
  if (ec) {
    // The peer never became a connection: nothing to tell the directory (README "TLS").
    log_.write(log_level::error, msg::IMB3013E,
               "TLS handshake with " + peer() + " failed: " + stream_->describe_error(ec));
    ended_ = true;
    finish();
    return;
  }
  open_ = true;
  last_heard_ = clock::now();  // the heartbeat starts now
  log_.write(log_level::debug, msg::IMB3003I,
             "connection from " + peer() + (stream_->is_tls() ? " (TLS)" : ""));
  read();
}

void connection::read() {
  if (reading_ || finished_) return;
  reading_ = true;
  stream_->async_read_some(boost::asio::buffer(read_buf_),
                           [self = shared_from_this()](const boost::system::error_code& ec, std::size_t n) {
                             self->on_read(ec, n);
                           });
}

void connection::on_read(const boost::system::error_code& ec, std::size_t n) {
  reading_ = false;
  if (finished_) return;
  if (ec) {
    if (ended_) {
      finish();  // lingering after an ERROR: the peer went, as it should
    } else {
      end(ec == boost::asio::error::eof || ec == boost::asio::ssl::error::stream_truncated
              ? end_reason::closed
              : end_reason::io_error);
    }
    return;
  }
  if (ended_) {  // lingering: drain what the peer still sends, so that closing does not reset the link
    read();
    return;
  }
  reader_.feed(bytes_view(read_buf_.data(), n));
  // A peer that does not read what we queue for it is not read either (take_frames stops, no new
  // read), or its own answers (SEND_RSP, PONG, QUERY_RSP) would grow without bound. DELIVERs alone never
  // pass write_buffer (SENDs to it are refused first), so only a peer that ignores its answers reaches
  // twice that. Reading resumes when the queue drains (on_written); if it never does, the heartbeat
  // ends the connection as a slow consumer.
  if (take_frames() && !read_paused()) read();
}

bool connection::take_frames() {
  frame::header head;
  bytes_view payload_bytes;
  decode_error err;
  while (!ended_ && !read_paused()) {
    const auto st = reader_.next_raw(head, payload_bytes, err);
    if (st == frame::reader::status::need_more) break;
    if (st == frame::reader::status::error) {
      // The header is bad: framing is lost. A payload over --max-message is refused at its header,
      // before it is buffered (8/10); any other header error is 8/1C.
      protocol_error(err.code == std::errc::message_size ? xcf::codes::too_big : xcf::codes::protocol_error,
                     err.to_string());
      return false;
    }
    // README "Heartbeat" [D]: whole frames count as alive, bytes do not — a peer that trickles a frame
    // it never finishes is not alive.
    last_heard_ = clock::now();
    auto body = frame::decode_payload(head, payload_bytes);
    events_.on_frame(*this, head, body);
  }
  if (ended_) return false;
  // One large frame must not pin its storage for the connection's life (README "Memory" [D]).
  if (reader_.buffered() == 0 && reader_.capacity() > reader_keep_capacity) {
    reader_ = frame::reader(limits_.max_payload);
  }
  return true;
}

bool connection::send(frame::frame_type type, std::uint16_t flags, std::uint32_t corr,
                      const frame::payload& body, kind k) {
  if (ended_ || finished_ || slow_) return false;
  out_frame out{{}, k};
  if (!frame::encode(type, flags, corr, body, out.data)) {
    // Names and sizes come from frames that decoded, so this is a bug of the hub, not of the peer.
    log_.write(log_level::error, msg::IMB3024S,
               "cannot encode a " + std::string(frame::to_string(type)) + " frame for " + peer());
    return false;
  }
  // Answers are bounded by read_paused() and DELIVERs by --target-buffer; EVENTs and PINGs come
  // whatever the peer does, so they are what a peer that stopped reading runs into (README "Memory").
  if ((k == kind::event || k == kind::ping) && queued_bytes_ + out.data.size() > limits_.slow_consumer) {
    slow_consumer(out.data.size());
    return false;
  }
  queued_bytes_ += out.data.size();
  if (k == kind::ping) {
    // Right after the frame being written and the PINGs already waiting (README "Heartbeat").
    auto at = queue_.begin();
    if (writing_ && at != queue_.end()) ++at;
    while (at != queue_.end() && at->k == kind::ping) ++at;
    queue_.insert(at, std::move(out));
  } else {
    queue_.push_back(std::move(out));
  }
  flush();
  return true;
}

void connection::slow_consumer(std::size_t frame_size) {
  slow_ = true;
  log_.write(
      log_level::warning, msg::IMB3025W,
      peer() +
          (member.st == membership::state::none ? std::string()
                                                : " (member " + member.group + "/" + member.name + ")") +
          ": " + std::to_string(queued_bytes_) + " bytes queued and not read, " + std::to_string(frame_size) +
          " more would pass the limit of " + std::to_string(limits_.slow_consumer) +
          "; closed as a slow consumer");
  // Not from here: the caller may be walking the group that this failure changes.
  boost::asio::post(stream_->get_executor(),
                    [self = shared_from_this()] { self->end(end_reason::slow_consumer); });
}

std::size_t connection::discard_deliveries() {
  std::size_t dropped = 0;
  // The frame being written (the front, while writing_) cannot be taken back.
  auto it = queue_.begin();
  if (writing_ && it != queue_.end()) ++it;
  while (it != queue_.end()) {
    if (it->k == kind::deliver) {
      queued_bytes_ -= it->data.size();
      it = queue_.erase(it);
      ++dropped;
    } else {
      ++it;
    }
  }
  return dropped;
}

void connection::protocol_error(xcf::return_code code, const std::string& text) {
  if (ended_ || finished_) return;
  log_.write(
      log_level::error, msg::IMB3012E,
      "from " + peer() + ": " + text + " (" + xcf::describe(code) + "); ERROR sent, connection closed");
  ended_ = true;
  events_.on_end(*this, end_reason::protocol_error);
  // Nothing queued matters any more; the ERROR is the last word (README "Connections").
  auto keep = queue_.begin();
  if (writing_ && keep != queue_.end()) ++keep;
  for (auto it = keep; it != queue_.end(); ++it) queued_bytes_ -= it->data.size();
  queue_.erase(keep, queue_.end());
  out_frame out{{}, kind::answer};
  frame::error_payload body{code, text.size() > 1024 ? text.substr(0, 1024) : text};
  if (frame::encode(frame::frame_type::error, 0, 0, body, out.data)) {
    queued_bytes_ += out.data.size();
    queue_.push_back(std::move(out));
  }
  lingering_ = true;
  deadline_.expires_after(limits_.linger);
  deadline_.async_wait([self = shared_from_this()](const boost::system::error_code& ec) {
    if (!ec) self->finish();
  });
  flush();
  read();  // keep draining, so that the peer gets the ERROR rather than a reset
}

void connection::end(end_reason why) {
  if (finished_) return;
  if (!ended_) {
    ended_ = true;
    if (open_) events_.on_end(*this, why);
  }
  finish();
}

void connection::flush() {
  if (writing_ || finished_) return;
  if (queue_.empty()) {
    if (lingering_) stream_->shutdown_send();
    return;
  }
  writing_ = true;
  const bytes& data = queue_.front().data;
  stream_->async_write(boost::asio::buffer(data.data(), data.size()),
                       [self = shared_from_this()](const boost::system::error_code& ec, std::size_t) {
                         self->on_written(ec);
                       });
}

void connection::on_written(const boost::system::error_code& ec) {
  writing_ = false;
  // The front was kept alive for the write that just ended, even by finish().
  queued_bytes_ -= queue_.front().data.size();
  queue_.pop_front();
  if (finished_) return;
  if (ec) {
    if (ended_) {
      finish();
    } else {
      end(end_reason::io_error);
    }
    return;
  }
  flush();
  // The queue drained below the pause mark: the requests that waited are handled, then reading goes on.
  if (!ended_ && open_ && !read_paused() && take_frames() && !read_paused()) read();
}

void connection::finish() {
  if (finished_) return;
  finished_ = true;
  boost::system::error_code ignored;
  deadline_.cancel(ignored);
  stream_->close();
  // Everything but the frame being written, which the pending write still reads (on_written frees it).
  auto keep = queue_.begin();
  if (writing_ && keep != queue_.end()) ++keep;
  for (auto it = keep; it != queue_.end(); ++it) queued_bytes_ -= it->data.size();
  queue_.erase(keep, queue_.end());
  reader_ = frame::reader(limits_.max_payload);
  log_.write(log_level::debug, msg::IMB3004I, "connection from " + peer() + " closed");
  if (on_gone_) on_gone_(*this);
}

}  // namespace imsb::transport::hub_detail
