#include "connection.hpp"

#include <boost/asio/buffer.hpp>

#include "imsb/core/messages.hpp"

namespace imsb::transport::hub_detail {

namespace frame = xcf::frame;

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
      linger_timer_(stream_->socket().get_executor()) {}

void connection::start() {
  stream_->async_handshake(
      stream::role::server,
      [self = shared_from_this()](const boost::system::error_code& ec) { self->on_handshake(ec); });
}

void connection::on_handshake(const boost::system::error_code& ec) {
  if (finished_) return;
  if (ec) {
    // The peer never became a connection: nothing to tell the directory (README "TLS").
    log_.write(log_level::error, msg::IMB3013E,
               "TLS handshake with " + peer() + " failed: " + stream_->describe_error(ec));
    ended_ = true;
    finish();
    return;
  }
  open_ = true;
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
  // Any bytes count as alive (README "Heartbeat": any frame; a large frame may take a while).
  last_heard_ = clock::now();
  if (ended_) {  // lingering: drain what the peer still sends, so that closing does not reset the link
    read();
    return;
  }
  reader_.feed(bytes_view(read_buf_.data(), n));
  frame::decoded f;
  decode_error err;
  while (!ended_) {
    const auto st = reader_.next(f, err);
    if (st == frame::reader::status::need_more) break;
    if (st == frame::reader::status::error) {
      // A payload over --max-message is refused at its header, before it is buffered (8/10); any
      // other decode failure is 8/1C. Names that break the rules are 8/14 — the codec checks them.
      const xcf::return_code code = err.code == std::errc::message_size       ? xcf::codes::too_big
                                    : err.code == std::errc::invalid_argument ? xcf::codes::bad_name
                                                                              : xcf::codes::protocol_error;
      protocol_error(code, err.to_string());
      return;
    }
    events_.on_frame(*this, f);
  }
  // A peer that does not read what we queue for it is not read either, or its own answers (SEND_RSP,
  // PONG, QUERY_RSP) would grow without bound. DELIVERs alone never pass write_buffer (SENDs to it are
  // refused first), so only a peer that ignores its answers reaches twice that. Reads resume when the
  // queue drains (on_written); if it never does, the heartbeat ends the connection.
  if (!ended_ && !read_paused()) read();
}

bool connection::send(frame::frame_type type, std::uint16_t flags, std::uint32_t corr,
                      const frame::payload& body, kind k) {
  if (ended_ || finished_) return false;
  out_frame out{{}, k};
  if (!frame::encode(type, flags, corr, body, out.data)) {
    // Names and sizes come from frames that decoded, so this is a bug of the hub, not of the peer.
    log_.write(log_level::error, msg::IMB3024S,
               "cannot encode a " + std::string(frame::to_string(type)) + " frame for " + peer());
    return false;
  }
  queued_bytes_ += out.data.size();
  queue_.push_back(std::move(out));
  flush();
  return true;
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
  out_frame out{{}, kind::control};
  frame::error_payload body{code, text.size() > 1024 ? text.substr(0, 1024) : text};
  if (frame::encode(frame::frame_type::error, 0, 0, body, out.data)) {
    queued_bytes_ += out.data.size();
    queue_.push_back(std::move(out));
  }
  lingering_ = true;
  linger_timer_.expires_after(limits_.linger);
  linger_timer_.async_wait([self = shared_from_this()](const boost::system::error_code& ec) {
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
  if (finished_) return;
  queued_bytes_ -= queue_.front().data.size();
  queue_.pop_front();
  if (ec) {
    if (ended_) {
      finish();
    } else {
      end(end_reason::io_error);
    }
    return;
  }
  flush();
  if (!ended_ && !reading_ && open_ && !read_paused()) read();
}

void connection::finish() {
  if (finished_) return;
  finished_ = true;
  boost::system::error_code ignored;
  linger_timer_.cancel(ignored);
  stream_->close();
  queue_.clear();
  queued_bytes_ = 0;
  log_.write(log_level::debug, msg::IMB3004I, "connection from " + peer() + " closed");
  if (on_gone_) on_gone_(*this);
}

}  // namespace imsb::transport::hub_detail
