// The server part of xcfhub (Asio's HTTP server example, docs/design/style.md): the acceptor, the set of
// connections, the heartbeat. Frames go to the directory.

#include "imsb/transport/hub.hpp"

#include <algorithm>
#include <map>
#include <utility>

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <boost/asio/dispatch.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>

#include "connection.hpp"
#include "directory.hpp"
#include "imsb/core/messages.hpp"
#include "imsb/names/name_rules.hpp"
#include "logger.hpp"

namespace imsb::transport {

namespace asio = boost::asio;
using asio::ip::tcp;
using hub_detail::connection;

namespace {

constexpr std::uint32_t min_max_message = 4096;  // room for JOIN_RSP / QUERY_RSP of a few dozen members
constexpr std::chrono::milliseconds min_heartbeat{10};
constexpr std::chrono::milliseconds max_heartbeat{3600 * 1000};
// A DELIVER frame is the SEND's size; this much above the payload holds the header.
constexpr std::size_t frame_overhead = xcf::frame::header_size;
// The largest answer: a JOIN_RSP or QUERY_RSP listing --max-members members (README "Memory" [D]).
constexpr std::size_t largest_answer(std::size_t max_members) {
  return xcf::frame::header_size + 28 + 81 * max_members;
}
// Bytes a connection's socket may hold not yet sent (TCP_NOTSENT_LOWAT): enough to keep a link busy.
constexpr int kernel_unsent = 128 * 1024;
// A TLS handshake gets three heartbeat intervals, and never less than this (README "TLS" [D]).
constexpr std::chrono::milliseconds min_handshake{5000};

// Checks the options and fills in defaults; throws hub_start_error(IMB3016E).
hub_options resolve(hub_options o) {
  auto bad = [](const std::string& text) { throw hub_start_error(msg::IMB3016E, text); };
  if (auto problem = names::check_xcf_group_name(o.system_name, names::xcf_rules::xcf)) {
    bad("--system '" + o.system_name + "': a system name is 1-8 characters A-Z 0-9 $ # @ (" +
        problem->reason + ")");
  }
  if (o.max_message < min_max_message || o.max_message > xcf::frame::hard_max_payload) {
    bad("--max-message " + std::to_string(o.max_message) + ": must be " + std::to_string(min_max_message) +
        " to " + std::to_string(xcf::frame::hard_max_payload) + " bytes (XCF's limit, 128 MiB)");
  }
  if (o.heartbeat < min_heartbeat || o.heartbeat > max_heartbeat) {
    bad("--heartbeat-ms " + std::to_string(o.heartbeat.count()) + ": must be " +
        std::to_string(min_heartbeat.count()) + " to " + std::to_string(max_heartbeat.count()));
  }
  const std::size_t one_frame = std::size_t{o.max_message} + frame_overhead;
  if (o.target_buffer == 0) {
    o.target_buffer = std::max(default_target_buffer, one_frame);
  } else if (o.target_buffer < one_frame) {
    // Otherwise a message of the maximum size could never be delivered.
    bad("--target-buffer " + std::to_string(o.target_buffer) + ": must hold one frame of --max-message (" +
        std::to_string(one_frame) + " bytes)");
  }
  if (o.max_connections < 1 || o.max_connections > max_max_connections) {
    bad("--max-connections " + std::to_string(o.max_connections) + ": must be 1 to " +
        std::to_string(max_max_connections));
  }
  if (o.max_members < 1 || o.max_members > max_max_members) {
    bad("--max-members " + std::to_string(o.max_members) + ": must be 1 to " +
        std::to_string(max_max_members));
  }
  if (o.tls.cert_file.empty() != o.tls.key_file.empty()) bad("--tls-cert and --tls-key go together");
  if (!o.tls.ca_file.empty() && o.tls.cert_file.empty()) {
    bad("--tls-ca needs --tls-cert and --tls-key (the hub must present a certificate)");
  }
  return o;
}

}  // namespace

class hub::impl : public std::enable_shared_from_this<hub::impl> {
 public:
  impl(asio::io_context& io, hub_options options)
      : io_(io),
        options_(std::move(options)),
        log_(options_.level, options_.log),
        directory_(options_, log_),
        acceptor_(io),
        heartbeat_timer_(io),
        retry_timer_(io) {}

  void start() {
    options_ = resolve(options_);
    limits_.max_payload = options_.max_message;
    limits_.write_buffer = options_.target_buffer;
    limits_.pause_reading = 2 * options_.target_buffer;
    limits_.slow_consumer = limits_.pause_reading + largest_answer(options_.max_members);
    limits_.linger = std::min(options_.heartbeat, std::chrono::milliseconds(2000));
    limits_.handshake = std::max(3 * options_.heartbeat, min_handshake);
    if (!options_.tls.cert_file.empty()) {
      std::string error;
      tls_ = make_server_tls_context(options_.tls, error);
      if (!tls_) throw hub_start_error(msg::IMB3018E, error);
    }
    listen();
    started_ = true;
    log_.write(
        log_level::info, msg::IMB3001I,
        "listening on " + listening_on() + ", system " + options_.system_name + ", max message " +
            std::to_string(options_.max_message) + ", target buffer " +
            std::to_string(options_.target_buffer) + ", heartbeat " +
            std::to_string(options_.heartbeat.count()) + " ms, max " +
            std::to_string(options_.max_connections) + " connections, max " +
            std::to_string(options_.max_members) + " members, " +
            (tls_ ? (options_.tls.ca_file.empty() ? "TLS" : "TLS with client certificates") : "plain TCP") +
            (options_.allow.empty()
                 ? ""
                 : ", allow-list for " + std::to_string(options_.allow.size()) + " groups"));
    accept();
    arm_heartbeat();
  }

  void stop() {
    if (!started_ || stopped_) return;
    stopped_ = true;
    boost::system::error_code ignored;
    acceptor_.close(ignored);
    heartbeat_timer_.cancel(ignored);
    retry_timer_.cancel(ignored);
    const auto all = connections_;
    for (const auto& [ptr, conn] : all) conn->end(hub_detail::end_reason::stopped);
    connections_.clear();
    directory_.clear();
    log_.write(log_level::info, msg::IMB3002I, "xcfhub on " + listening_on() + " stopped");
  }

  std::uint16_t port() const noexcept { return bound_.port(); }
  std::string listening_on() const { return to_string(bound_); }
  std::vector<xcf::member_info> snapshot() const { return directory_.snapshot(); }
  const hub_options& options() const noexcept { return options_; }
  asio::io_context& io() noexcept { return io_; }

 private:
  void listen() {
    boost::system::error_code ec;
    const auto endpoints = resolve(io_, options_.listen, ec);
    auto fail = [&](const std::string& what) {
      throw hub_start_error(msg::IMB3017E, "cannot listen on " + options_.listen.to_string() + ": " + what);
    };
    if (ec) fail("cannot resolve '" + options_.listen.host + "': " + ec.message());
    const tcp::endpoint ep = endpoints.front();
    acceptor_.open(ep.protocol(), ec);
    if (ec) fail(ec.message());
    acceptor_.set_option(tcp::acceptor::reuse_address(true), ec);
    if (!ec) acceptor_.bind(ep, ec);
    if (ec) fail(ec.message());
    acceptor_.listen(asio::socket_base::max_listen_connections, ec);
    if (ec) fail(ec.message());
    bound_ = acceptor_.local_endpoint(ec);
    if (ec) fail(ec.message());
  }

  void accept() {
    acceptor_.async_accept(
        [weak = weak_from_this()](const boost::system::error_code& ec, tcp::socket socket) {
          auto self = weak.lock();
          if (!self || self->stopped_ || ec == asio::error::operation_aborted) return;
          self->on_accept(ec, std::move(socket));
        });
  }

  void on_accept(const boost::system::error_code& ec, tcp::socket socket) {
    if (ec) {
      // Out of descriptors and the like: the listener itself is fine, try again shortly.
      log_.write(log_level::error, msg::IMB3017E, "accept on " + listening_on() + " failed: " + ec.message());
      retry_timer_.expires_after(std::chrono::milliseconds(100));
      retry_timer_.async_wait([weak = weak_from_this()](const boost::system::error_code& tec) {
        auto self = weak.lock();
        if (self && !tec && !self->stopped_) self->accept();
      });
      return;
    }
    boost::system::error_code ignored;
    if (connections_.size() >= options_.max_connections) {
      // README "Connections" [D]: accepted and closed at once, so the backlog does not fill with them;
      // a flood of them is one line a second.
      ++refused_connections_;
      const auto now = connection::clock::now();
      if (now >= next_refusal_line_) {
        next_refusal_line_ = now + std::chrono::seconds(1);
        log_.write(log_level::warning, msg::IMB3026W,
                   "connection from " + to_string(socket.remote_endpoint(ignored)) +
                       " refused: " + std::to_string(connections_.size()) +
                       " connections open (--max-connections " + std::to_string(options_.max_connections) +
                       "); " + std::to_string(refused_connections_) + " refused since the last such line");
        refused_connections_ = 0;
      }
      socket.close(ignored);
      accept();
      return;
    }
    socket.set_option(tcp::no_delay(true), ignored);  // small frames (PING, SEND_RSP) go out at once
#ifdef TCP_NOTSENT_LOWAT
    // README "Heartbeat" [D]: a PING waits behind the frame being written, not behind megabytes the
    // kernel took for a slow reader — bytes not yet sent stay few; those in flight are not limited.
    ::setsockopt(socket.native_handle(), IPPROTO_TCP, TCP_NOTSENT_LOWAT, &kernel_unsent,
                 sizeof kernel_unsent);
#endif
    auto s = tls_ ? std::make_unique<stream>(std::move(socket), *tls_)
                  : std::make_unique<stream>(std::move(socket));
    auto conn = std::make_shared<connection>(std::move(s), limits_, log_, directory_,
                                             [weak = weak_from_this()](connection& c) {
                                               if (auto self = weak.lock()) self->connections_.erase(&c);
                                             });
    connections_.emplace(conn.get(), conn);
    conn->start();
    accept();
  }

  // README "Heartbeat" [D]: the check runs four times an interval, so silence is found after three
  // intervals and at most a quarter more; PINGs go out every fourth check, once an interval.
  void arm_heartbeat() {
    const auto tick = std::chrono::duration_cast<connection::clock::duration>(options_.heartbeat) / 4;
    const auto now = connection::clock::now();
    // On time, ticks keep their spacing; after a stall (a busy thread), they start again from now.
    next_tick_ = (next_tick_ + tick < now ? now : next_tick_) + tick;
    heartbeat_timer_.expires_at(next_tick_);
    heartbeat_timer_.async_wait([weak = weak_from_this()](const boost::system::error_code& ec) {
      auto self = weak.lock();
      if (!self || ec || self->stopped_) return;
      self->beat();
      self->arm_heartbeat();
    });
  }

  void beat() {
    const bool ping = tick_++ % 4 == 0;
    const auto now = connection::clock::now();
    const auto all = connections_;
    for (const auto& [ptr, conn] : all) {
      // A handshake has its own deadline and an ERROR its linger time.
      if (!conn->ready()) continue;
      const auto silent = now - conn->last_heard();
      if (silent >= 3 * options_.heartbeat) {
        lost(*conn, std::chrono::duration_cast<std::chrono::milliseconds>(silent));
      } else if (ping) {
        conn->send(xcf::frame::frame_type::ping, 0, 0, xcf::frame::ping_payload{++nonce_},
                   connection::kind::ping);
      }
    }
  }

  // No whole frame for three intervals: the peer is stopped or hung (it would answer PING), sends a
  // frame it never finishes, or does not read (so it is not read either: connection::read_paused).
  void lost(connection& conn, std::chrono::milliseconds silent) {
    const std::string who = conn.member.st == hub_detail::membership::state::none
                                ? std::string()
                                : " (member " + conn.member.group + "/" + conn.member.name + ")";
    const std::string limit = " (heartbeat " + std::to_string(options_.heartbeat.count()) + " ms); closed";
    if (conn.read_paused()) {
      log_.write(log_level::warning, msg::IMB3025W,
                 conn.peer() + who + ": " + std::to_string(conn.queued_bytes()) +
                     " bytes queued and not read for " + std::to_string(silent.count()) + " ms" + limit);
      conn.end(hub_detail::end_reason::slow_consumer);
    } else if (conn.partial_bytes() > 0) {
      log_.write(log_level::warning, msg::IMB3028W,
                 conn.peer() + who + ": " + std::to_string(conn.partial_bytes()) +
                     " bytes of a frame and no whole frame for " + std::to_string(silent.count()) + " ms" +
                     limit);
      conn.end(hub_detail::end_reason::partial_frame);
    } else {
      log_.write(log_level::warning, msg::IMB3008W,
                 conn.peer() + who + ": nothing heard for " + std::to_string(silent.count()) + " ms" + limit);
      conn.end(hub_detail::end_reason::heartbeat);
    }
  }

  asio::io_context& io_;
  hub_options options_;
  hub_detail::logger log_;
  hub_detail::directory directory_;
  hub_detail::connection_limits limits_;
  std::shared_ptr<asio::ssl::context> tls_;
  tcp::acceptor acceptor_;
  tcp::endpoint bound_;
  asio::steady_timer heartbeat_timer_;
  asio::steady_timer retry_timer_;
  std::map<connection*, std::shared_ptr<connection>> connections_;
  std::uint64_t nonce_ = 0;
  std::uint64_t tick_ = 0;
  connection::clock::time_point next_tick_{};
  std::size_t refused_connections_ = 0;  // over --max-connections since the last IMB3026W
  connection::clock::time_point next_refusal_line_{};
  bool started_ = false;
  bool stopped_ = false;
};

hub::hub(asio::io_context& io, hub_options options) : impl_(std::make_shared<impl>(io, std::move(options))) {}

hub::~hub() { impl_->stop(); }

void hub::start() { impl_->start(); }
std::uint16_t hub::port() const noexcept { return impl_->port(); }
std::string hub::listening_on() const { return impl_->listening_on(); }
std::vector<xcf::member_info> hub::snapshot() const { return impl_->snapshot(); }
const hub_options& hub::options() const noexcept { return impl_->options(); }

void hub::stop() {
  asio::dispatch(impl_->io(), [weak = std::weak_ptr<impl>(impl_)] {
    if (auto self = weak.lock()) self->stop();
  });
}

}  // namespace imsb::transport
