// The client connection: mqi::connection over the client protocol
// (portable/include/imsb/mqi/client_protocol.hpp) on a connected socket — the bindings socket or a TCP
// listener, with TLS when asked. One request, one response, plain blocking I/O [D]: a connection is one
// thread's (connection.hpp), so nothing else could use the socket while a call waits.

#include "client_connection.hpp"

#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <poll.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <map>
#include <utility>

#include "async_consume.hpp"
#include "imsb/mq/codes.hpp"
#include "imsb/mq/constants.hpp"

namespace imsb::qmgr::detail {

namespace wire = mqi::wire;

// The error a response carries. The server sends decode_error::to_string() ("<field> at offset N:
// <detail> (<reason>)"): when that already names the call, the error is rebuilt from its parts rather
// than prefixed again, so that a message reads "MQPUT at offset 0: ..." once, not twice [D].
namespace {
decode_error remote_error(std::int32_t reason, const char* call_name, const std::string& detail) {
  decode_error e{mq::make_mqrc(reason), call_name, 0, detail};
  const std::string call(call_name);
  const std::size_t at = detail.find(" at offset ");
  if (detail.compare(0, call.size(), call) != 0 || at == std::string::npos || at < call.size()) return e;
  const std::size_t colon = detail.find(": ", at);
  if (colon == std::string::npos) return e;
  const std::string number = detail.substr(at + 11, colon - at - 11);
  if (number.empty() || number.find_first_not_of("0123456789") != std::string::npos) return e;
  e.field = detail.substr(0, at);
  e.offset = std::strtoull(number.c_str(), nullptr, 10);
  e.detail = detail.substr(colon + 2);
  const std::string suffix = " (" + e.code.message() + ")";
  if (e.detail.size() >= suffix.size() &&
      e.detail.compare(e.detail.size() - suffix.size(), suffix.size(), suffix) == 0)
    e.detail.resize(e.detail.size() - suffix.size());
  return e;
}
}  // namespace

// ---- stream -------------------------------------------------------------------------------------

sigpipe_guard::sigpipe_guard() noexcept {
  sigset_t pending, pipe, old;
  sigemptyset(&pending);
  sigpending(&pending);
  was_pending_ = sigismember(&pending, SIGPIPE) == 1;
  sigemptyset(&pipe);
  sigaddset(&pipe, SIGPIPE);
  sigemptyset(&old);
  pthread_sigmask(SIG_BLOCK, &pipe, &old);
  was_blocked_ = sigismember(&old, SIGPIPE) == 1;
}

sigpipe_guard::~sigpipe_guard() {
  if (!was_pending_) {
    sigset_t pipe;
    sigemptyset(&pipe);
    sigaddset(&pipe, SIGPIPE);
    timespec zero{0, 0};
    while (sigtimedwait(&pipe, nullptr, &zero) == SIGPIPE) {
    }
  }
  if (!was_blocked_) {
    sigset_t pipe;
    sigemptyset(&pipe);
    sigaddset(&pipe, SIGPIPE);
    pthread_sigmask(SIG_UNBLOCK, &pipe, nullptr);
  }
}

stream::~stream() {
  if (ssl_ != nullptr) {
    sigpipe_guard guard;
    SSL_free(ssl_);  // no SSL_shutdown: the peer sees the socket close, which ends the connection anyway
  }
  if (fd_ >= 0) ::close(fd_);
}

bool stream::keep_deadlines() noexcept {
  int flags = ::fcntl(fd_, F_GETFL);
  return flags >= 0 && ::fcntl(fd_, F_SETFL, flags | O_NONBLOCK) == 0;
}

bool stream::await(short events) {
  for (;;) {
    int ms = -1;
    if (deadline_) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(*deadline_ - clock::now()).count();
      if (left <= 0) {
        timed_out_ = true;
        error_ = "timed out";
        return false;
      }
      ms = left > INT_MAX ? INT_MAX : static_cast<int>(left);
    }
    pollfd p{fd_, events, 0};
    int r = ::poll(&p, 1, ms);
    if (r < 0) {
      if (errno == EINTR) continue;
      error_ = std::string("poll failed: ") + std::strerror(errno);
      return false;
    }
    if (r > 0) return true;  // ready, or an error/hangup the next read or write reports
  }
}

// A plain socket is polled before it is read: the answer to a request just sent is seldom there yet, and
// a read that finds nothing would cost a call more than the poll [D].
std::size_t stream::read_some(std::uint8_t* data, std::size_t length, bool& eof) {
  for (;;) {
    if (ssl_ != nullptr) {
      int chunk = length > (1u << 30) ? (1 << 30) : static_cast<int>(length);
      sigpipe_guard guard;  // SSL_read writes too (alerts, key updates)
      int n = SSL_read(ssl_, data, chunk);
      if (n > 0) return static_cast<std::size_t>(n);
      int err = SSL_get_error(ssl_, n);
      if (err == SSL_ERROR_WANT_READ || err == SSL_ERROR_WANT_WRITE) {  // a non-blocking socket
        if (!await(err == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT)) return 0;
        continue;
      }
      eof = err == SSL_ERROR_ZERO_RETURN;
      error_ = eof ? "" : "TLS read failed: " + openssl_errors();
      return 0;
    }
    if (!await(POLLIN)) return 0;
    auto n = ::recv(fd_, data, length, 0);
    if (n > 0) return static_cast<std::size_t>(n);
    if (n == 0) {
      eof = true;
      error_.clear();
      return 0;
    }
    if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK) continue;
    error_ = std::string("read failed: ") + std::strerror(errno);
    return 0;
  }
}

bool stream::read_exact(std::uint8_t* data, std::size_t length) {
  std::size_t got = std::min(length, rend_ - rpos_);
  if (got > 0) {
    std::memcpy(data, rbuf_.data() + rpos_, got);
    rpos_ += got;
  }
  while (got < length) {
    const std::size_t want = length - got;
    bool eof = false;
    std::size_t n = 0;
    if (want >= read_ahead) {  // a long body: straight into place
      n = read_some(data + got, want, eof);
    } else {
      if (rbuf_.empty()) rbuf_.resize(read_ahead);
      rpos_ = rend_ = 0;
      rend_ = read_some(rbuf_.data(), rbuf_.size(), eof);
      n = std::min(want, rend_);
      std::memcpy(data + got, rbuf_.data(), n);
      rpos_ = n;
    }
    if (n == 0) {
      if (eof && got > 0) error_ = "the peer closed the connection inside a frame";
      return false;
    }
    got += n;
  }
  return true;
}

bool stream::write_all(const std::uint8_t* data, std::size_t length) {
  std::size_t sent = 0;
  while (sent < length) {
    std::size_t want = length - sent;
    if (ssl_ != nullptr) {
      int chunk = want > (1u << 30) ? (1 << 30) : static_cast<int>(want);
      sigpipe_guard guard;
      int n = SSL_write(ssl_, data + sent, chunk);
      if (n <= 0) {
        int err = SSL_get_error(ssl_, n);
        if (err == SSL_ERROR_WANT_READ || err == SSL_ERROR_WANT_WRITE) {  // retried with the same arguments
          if (!await(err == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT)) return false;
          continue;
        }
        error_ = "TLS write failed: " + openssl_errors();
        return false;
      }
      sent += static_cast<std::size_t>(n);
    } else {
      // MSG_NOSIGNAL: a peer that went away must give EPIPE, not kill the process with SIGPIPE.
      auto n = ::send(fd_, data + sent, want, MSG_NOSIGNAL);
      if (n < 0) {
        if (errno == EINTR) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) {
          if (!await(POLLOUT)) return false;
          continue;
        }
        error_ = std::string("write failed: ") + std::strerror(errno);
        return false;
      }
      sent += static_cast<std::size_t>(n);
    }
  }
  return true;
}

bool stream::readable_before(int other_fd) {
  for (;;) {
    if (rend_ > rpos_) return true;                             // read ahead already
    if (ssl_ != nullptr && SSL_pending(ssl_) > 0) return true;  // decrypted already, the socket is quiet
    pollfd p[2] = {{fd_, POLLIN, 0}, {other_fd, POLLIN, 0}};
    int r = ::poll(p, 2, -1);
    if (r < 0) {
      if (errno == EINTR) continue;
      return true;  // the read that follows reports it
    }
    if (p[0].revents != 0) return true;
    if (p[1].revents != 0) return false;
  }
}

void stream::shutdown() noexcept {
  if (fd_ >= 0) ::shutdown(fd_, SHUT_RDWR);
}

std::size_t frame_body_length(const std::uint8_t* header) noexcept {
  return (std::size_t{header[4]} << 24) | (std::size_t{header[5]} << 16) | (std::size_t{header[6]} << 8) |
         std::size_t{header[7]};
}

void set_keepalive(int fd, int idle_s, int interval_s, int count) noexcept {
  sockaddr_storage ss{};
  socklen_t len = sizeof ss;
  if (idle_s <= 0 || ::getsockname(fd, reinterpret_cast<sockaddr*>(&ss), &len) != 0 ||
      (ss.ss_family != AF_INET && ss.ss_family != AF_INET6))
    return;
  int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof one);
  ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle_s, sizeof idle_s);
  ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &interval_s, sizeof interval_s);
  ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &count, sizeof count);
}

std::string openssl_errors() {
  std::string out;
  while (unsigned long e = ERR_get_error()) {
    char buf[256];
    ERR_error_string_n(e, buf, sizeof buf);
    if (!out.empty()) out += "; ";
    out += buf;
  }
  return out.empty() ? "no OpenSSL error queued" : out;
}

result<std::shared_ptr<SSL_CTX>> make_tls_context(const tls_options& tls, bool server) {
  auto fail = [](const std::string& field, const std::string& what) {
    return decode_error{mq::make_mqrc(mq::MQRC_HOST_NOT_AVAILABLE), field, 0, what + ": " + openssl_errors()};
  };
  std::shared_ptr<SSL_CTX> ctx(SSL_CTX_new(server ? TLS_server_method() : TLS_client_method()), SSL_CTX_free);
  if (!ctx) return fail("TLS", "cannot make a TLS context");
  SSL_CTX_set_min_proto_version(ctx.get(), TLS1_2_VERSION);
  if (!tls.cert_file.empty() && SSL_CTX_use_certificate_chain_file(ctx.get(), tls.cert_file.c_str()) != 1)
    return fail(tls.cert_file, "cannot load the certificate");
  if (!tls.key_file.empty() &&
      SSL_CTX_use_PrivateKey_file(ctx.get(), tls.key_file.c_str(), SSL_FILETYPE_PEM) != 1)
    return fail(tls.key_file, "cannot load the private key");
  if (!tls.ca_file.empty()) {
    if (SSL_CTX_load_verify_locations(ctx.get(), tls.ca_file.c_str(), nullptr) != 1)
      return fail(tls.ca_file, "cannot load the CA certificates");
    // The server asks for a client certificate but lets a client without one log in with a password;
    // a certificate that is presented must verify [D]. TLS.RequireClientCert=yes refuses a client
    // without one in the handshake.
    int mode = SSL_VERIFY_PEER;
    if (server && tls.require_client_cert) mode |= SSL_VERIFY_FAIL_IF_NO_PEER_CERT;
    SSL_CTX_set_verify(ctx.get(), mode, nullptr);
  } else if (!server) {
    SSL_CTX_set_default_verify_paths(ctx.get());
    SSL_CTX_set_verify(ctx.get(), SSL_VERIFY_PEER, nullptr);
  }
  return ctx;
}

// ---- the client connection ----------------------------------------------------------------------

namespace {

class client_connection final : public mqi::connection, public consume_backend {
 public:
  client_connection(std::unique_ptr<stream> s, std::string where)
      : s_(std::move(s)), where_(std::move(where)), wake_fd_(::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) {
    sockaddr_storage ss{};
    socklen_t len = sizeof ss;
    tcp_ = ::getsockname(s_->fd(), reinterpret_cast<sockaddr*>(&ss), &len) == 0 && ss.ss_family != AF_UNIX;
    if (const char* env = std::getenv("IMSB_CLIENT_CALL_TIMEOUT_MS")) {
      char* end = nullptr;
      long long v = std::strtoll(env, &end, 10);
      if (end != env && *end == '\0' && v >= 0) margin_ms_ = v;
    }
  }

  ~client_connection() override {
    consume_.halt();
    if (wake_fd_ >= 0) ::close(wake_fd_);
  }
  client_connection(const client_connection&) = delete;
  client_connection& operator=(const client_connection&) = delete;

  result<wire::connect_response> hello(const wire::connect_request& req) {
    auto r = call<wire::connect_response>(req, "MQCONN");
    if (!r) return r.error();
    qmgr_name_ = r->qmgr_name;
    return r;
  }

  const std::string& qmgr_name() const override { return qmgr_name_; }

  mqi::result<mqi::open_result> open(const mqi::object_descriptor& od, std::int32_t options) override {
    auto r = call<wire::open_response>(wire::open_request{od, options}, "MQOPEN");
    if (!r) return r.error();
    opened_[r->result.handle] = options;  // for MQCB's checks
    return completed(r->st, std::move(r->result));
  }
  mqi::result<mqi::done> close(mqi::hobj handle) override {
    auto r = plain(wire::close_request{handle}, "MQCLOSE");
    if (r) {
      opened_.erase(handle);
      consume_.closed(handle);
    }
    return r;
  }
  mqi::result<mqi::put_result> put(mqi::hobj handle, const mq::mqmd& md, bytes_view data,
                                   std::int32_t options) override {
    auto r = call<wire::put_response>(wire::put_request{handle, md, data.to_bytes(), options}, "MQPUT");
    if (!r) return r.error();
    return completed(r->st, std::move(r->result));
  }
  mqi::result<mqi::put_result> put1(const mqi::object_descriptor& od, const mq::mqmd& md, bytes_view data,
                                    std::int32_t options) override {
    auto r = call<wire::put_response>(wire::put1_request{od, md, data.to_bytes(), options}, "MQPUT1");
    if (!r) return r.error();
    return completed(r->st, std::move(r->result));
  }
  mqi::result<mqi::message> get(mqi::hobj handle, const mqi::get_request& request) override {
    // A signal is a call back into this process, which the protocol has no frame for: refused, as IBM MQ
    // refuses MQGMO_SET_SIGNAL outside z/OS (connection.hpp get_request::signal) [D].
    if ((request.options & mq::MQGMO_SET_SIGNAL) != 0)
      return decode_error{mq::make_mqrc(mq::MQRC_OPTIONS_ERROR), "MQGET", 0,
                          "MQGMO_SET_SIGNAL is supported on in-process connections only"};
    // The call may take the wait, and the margin on top; an unlimited wait has no deadline.
    std::optional<std::int64_t> wait = 0;
    if ((request.options & mq::MQGMO_WAIT) != 0)
      wait =
          request.wait_interval_ms < 0 ? std::nullopt : std::optional<std::int64_t>(request.wait_interval_ms);
    auto r = call<wire::get_response>(wire::get_request_frame{handle, request}, "MQGET", wait);
    if (!r) return r.error();
    return completed(r->st, std::move(r->msg));
  }
  mqi::result<mqi::inquiry> inquire(mqi::hobj handle, const std::vector<std::int32_t>& selectors) override {
    auto r = call<wire::inquire_response>(wire::inquire_request{handle, selectors}, "MQINQ");
    if (!r) return r.error();
    return completed(r->st, std::move(r->result));
  }
  mqi::result<mqi::done> set(mqi::hobj handle, const std::vector<std::int32_t>& selectors,
                             const std::vector<std::int32_t>& int_attrs,
                             const std::vector<std::string>& char_attrs) override {
    return plain(wire::set_request{handle, selectors, int_attrs, char_attrs}, "MQSET");
  }
  mqi::result<std::vector<mqi::object_attributes>> inquire_objects(const std::string& type,
                                                                   const std::string& generic) override {
    auto r = call<wire::inquire_objects_response>(wire::inquire_objects_request{type, generic}, "MQINQ");
    if (!r) return r.error();
    return completed(r->st, std::move(r->objects));
  }
  mqi::result<mqi::mqsc_reply> mqsc(const std::string& script) override {
    auto r = call<wire::mqsc_response>(wire::mqsc_request{script}, "MQSC");
    if (!r) return r.error();
    return completed(r->st, std::move(r->reply));
  }
  mqi::result<mqi::done> commit() override { return plain(wire::commit_request{}, "MQCMIT"); }
  mqi::result<mqi::done> backout() override { return plain(wire::backout_request{}, "MQBACK"); }
  // Over TCP, a client: its unit of work cannot be coordinated with other resource managers, MQBEGIN is
  // MQRC_ENVIRONMENT_ERROR [C] the MQBEGIN topic; over the bindings socket, the queue manager answers.
  mqi::result<mqi::done> begin() override {
    if (tcp_) {
      if (auto gone = unusable("MQBEGIN")) return *gone;
      if (auto busy = consume_.refuse("MQBEGIN")) return *busy;
      return decode_error{mq::make_mqrc(mq::MQRC_ENVIRONMENT_ERROR), "MQBEGIN", 0,
                          "MQBEGIN is not supported on a client (TCP) connection"};
    }
    return plain(wire::begin_request{}, "MQBEGIN");
  }
  // MQSTAT answered here: no asynchronous put to count; a TCP client is connected, never reconnecting.
  mqi::result<mqi::status_report> stat(std::int32_t type) override {
    if (auto gone = unusable("MQSTAT")) return *gone;
    if (auto busy = consume_.refuse("MQSTAT")) return *busy;
    if (type == mq::MQSTAT_TYPE_ASYNC_ERROR) return mqi::status_report{};
    if (type == mq::MQSTAT_TYPE_RECONNECTION || type == mq::MQSTAT_TYPE_RECONNECTION_ERROR) {
      if (tcp_) return mqi::status_report{};
      return decode_error{mq::make_mqrc(mq::MQRC_ENVIRONMENT_ERROR), "MQSTAT", 0,
                          "reconnection status is for client connections, not the bindings socket"};
    }
    return decode_error{mq::make_mqrc(mq::MQRC_STAT_TYPE_ERROR), "MQSTAT", 0,
                        "Type " + std::to_string(type) + " is not MQSTAT_TYPE_*"};
  }
  mqi::result<mqi::done> callback(std::int32_t operation, const mqi::callback_descriptor& cbd,
                                  mqi::hobj handle, const mqi::get_request& request) override {
    if (auto gone = unusable("MQCB")) return *gone;
    return consume_.callback(operation, cbd, handle, request);
  }
  mqi::result<mqi::done> control(std::int32_t operation) override {
    if (auto gone = unusable("MQCTL")) return *gone;
    return consume_.control(operation);
  }

  // consume_backend. The dispatcher's thread is the only one that uses the socket while consumption is
  // started; another thread's wake() reaches it through wake_fd_, and it sends the wake frame itself.
  std::uint32_t wait_for_change(std::uint32_t mark, bool wait) override {
    if (unusable("MQCTL") || !s_) return mark;
    const wire::request req = wire::wait_for_change_request{static_cast<std::int32_t>(mark), wait ? 1 : 0};
    if (wait || margin_ms_ <= 0) {
      s_->set_deadline(std::nullopt);  // as a get that waits without limit: keepalive decides
    } else {
      s_->set_deadline(stream::clock::now() + std::chrono::milliseconds(margin_ms_));
    }
    bytes out;
    wire::encode_request(req, out);
    if (!s_->write_all(out.data(), out.size())) {
      (void)broken("MQCTL", why_broken());
      return mark;
    }
    bool wake_sent = false;
    if (wait && !s_->readable_before(wake_fd_)) {
      std::uint64_t n = 0;
      (void)!::read(wake_fd_, &n, sizeof n);
      out.clear();
      wire::encode_request(wire::wake_request{}, out);
      if (!s_->write_all(out.data(), out.size())) {
        (void)broken("MQCTL", why_broken());
        return mark;
      }
      wake_sent = true;
    }
    auto answer = read_response<wire::wait_for_change_response>(wire::frame_type::wait_for_change, "MQCTL");
    if (wake_sent) (void)read_response<wire::plain_response>(wire::frame_type::wake, "MQCTL");
    if (!answer) return mark;
    return static_cast<std::uint32_t>(answer->mark);
  }
  void wake() noexcept override {
    const std::uint64_t one = 1;
    (void)!::write(wake_fd_, &one, sizeof one);
  }
  mqi::result<std::int32_t> open_options(mqi::hobj handle) override {
    auto it = opened_.find(handle);
    if (it == opened_.end())
      return decode_error{mq::make_mqrc(mq::MQRC_HOBJ_ERROR), "MQCB", 0,
                          "handle " + std::to_string(handle) + " is not open"};
    return it->second;
  }
  mqi::result<mqi::message> consumer_get(mqi::hobj handle, const mqi::get_request& request) override {
    return get(handle, request);
  }
  // A stop wakes the read the owning thread may be blocked in by shutting the socket: the server sees the
  // connection end and backs its unit of work out (connection.hpp) [D].
  void stop() noexcept override {
    const sync::lock_guard lock(stream_mu_);
    stopped_ = true;
    if (s_) s_->shutdown();
  }
  mqi::result<mqi::done> disconnect() override {
    if (auto bad = consume_.end_for_disconnect()) return *bad;
    if (stopped_ && !disconnected_) {
      // The stop ended the connection; the server backed its unit of work out when it saw the close.
      const sync::lock_guard lock(stream_mu_);
      disconnected_ = true;
      s_.reset();
      return mqi::done{};
    }
    auto r = plain(wire::disconnect_request{}, "MQDISC");
    // Whatever the answer, the connection is over: the server closes its end after MQDISC.
    if (!broken_) {
      const sync::lock_guard lock(stream_mu_);
      disconnected_ = true;
      s_.reset();
    }
    return r;
  }

 private:
  template <class Response>
  result<Response> call(const wire::request& req, const char* call_name,
                        std::optional<std::int64_t> wait_ms = std::int64_t{0}) {
    if (auto gone = unusable(call_name)) return *gone;
    // MQDISC stopped the consumption before it came here; other calls from other threads while it runs:
    if (std::holds_alternative<wire::disconnect_request>(req) == false) {
      if (auto busy = consume_.refuse(call_name)) return *busy;
    }
    // What the protocol cannot carry (an MQMD of version 3, too long a body) is the caller's error, not
    // the connection's: answered here, nothing sent [D].
    if (auto ok = wire::check_request(req); !ok) return ok.error();
    if (wait_ms && margin_ms_ > 0) {
      s_->set_deadline(stream::clock::now() + std::chrono::milliseconds(*wait_ms + margin_ms_));
    } else {
      s_->set_deadline(std::nullopt);
    }
    auto type = wire::type_of(req);
    bytes out;
    wire::encode_request(req, out);
    bool wrote = s_->write_all(out.data(), out.size());
    std::string write_error = wrote ? std::string() : why_broken();
    // Read even after a failed write: a queue manager that refuses a connection at once (its connection
    // limit) answers and closes without reading, and its answer is worth more than EPIPE [D].
    auto frame = s_->read_frame([&](bytes_view header) -> std::optional<decode_error> {
      auto d = wire::decode_response(header, type);
      if (d && !*d) return d->error();
      return std::nullopt;
    });
    if (!wrote) {
      auto d =
          frame.status == stream::frame_status::ok ? wire::decode_response(frame.data, type) : std::nullopt;
      const Response* resp = d && *d ? std::get_if<Response>(&d->value().value) : nullptr;
      auto e = broken(call_name, write_error);
      if (resp != nullptr && resp->st.completion_code == mq::MQCC_FAILED)
        return remote_error(resp->st.reason, call_name, resp->st.detail);
      return e;
    }
    return take_response<Response>(frame, type, call_name);
  }

  // The response of type `type` read now (a wait_for_change's, a wake's).
  template <class Response>
  result<Response> read_response(wire::frame_type type, const char* call_name) {
    auto frame = s_->read_frame([&](bytes_view header) -> std::optional<decode_error> {
      auto d = wire::decode_response(header, type);
      if (d && !*d) return d->error();
      return std::nullopt;
    });
    return take_response<Response>(frame, type, call_name);
  }

  template <class Response>
  result<Response> take_response(stream::frame& frame, wire::frame_type type, const char* call_name) {
    if (frame.status == stream::frame_status::closed)
      return broken(call_name,
                    s_->error().empty() ? "the queue manager closed the connection" : why_broken());
    if (frame.status == stream::frame_status::bad)
      return broken(call_name, "bad frame: " + frame.error.to_string());
    auto d = wire::decode_response(frame.data, type);
    if (!d) return broken(call_name, "incomplete response frame");
    if (!*d) return broken(call_name, "bad frame: " + d->error().to_string());
    auto* resp = std::get_if<Response>(&d->value().value);
    if (resp == nullptr) return broken(call_name, "response of the wrong kind");
    if (resp->st.completion_code == mq::MQCC_FAILED)
      return remote_error(resp->st.reason, call_name, resp->st.detail);
    return std::move(*resp);
  }

  // A value that came with MQCC_OK, or with MQCC_WARNING and its reason.
  template <class T>
  static mqi::result<T> completed(const wire::status& st, T value) {
    if (st.completion_code == mq::MQCC_WARNING)
      return mqi::result<T>::warning(std::move(value), st.reason, st.detail);
    return value;
  }

  mqi::result<mqi::done> plain(const wire::request& req, const char* call_name) {
    auto r = call<wire::plain_response>(req, call_name);
    if (!r) return r.error();
    return completed(r->st, mqi::done{});
  }

  std::string why_broken() const {
    if (!s_->timed_out()) return s_->error();
    return "no answer within " + std::to_string(margin_ms_) +
           " ms beyond the call's wait (IMSB_CLIENT_CALL_TIMEOUT_MS)";
  }

  // Why no call can be made on the connection any more, if so.
  std::optional<decode_error> unusable(const char* call_name) const {
    if (disconnected_)
      return decode_error{mq::make_mqrc(mq::MQRC_HCONN_ERROR), call_name, 0,
                          "the connection was disconnected"};
    if (stopped_) return stopped_error(call_name);
    if (broken_)
      return decode_error{mq::make_mqrc(mq::MQRC_CONNECTION_BROKEN), call_name, 0,
                          "the connection to " + where_ + " is broken: " + broken_detail_};
    return std::nullopt;
  }

  static decode_error stopped_error(const char* call_name) {
    return decode_error{mq::make_mqrc(mq::MQRC_CONNECTION_STOPPING), call_name, 0,
                        "the connection was stopped (connection::stop)"};
  }

  decode_error broken(const char* call_name, const std::string& why) {
    // The detail first and once: MQCTL from another thread reads it once broken_ is set (unusable()).
    if (!broken_) {
      broken_detail_ = why;
      broken_ = true;
    }
    if (stopped_) return stopped_error(call_name);  // the stop shut the socket: that is why it broke
    if (s_) s_->shutdown();
    return decode_error{mq::make_mqrc(mq::MQRC_CONNECTION_BROKEN), call_name, 0,
                        "the connection to " + where_ + " broke: " + why};
  }

  // Used by the owning thread without a lock (one call at a time); reset only under stream_mu_, which
  // stop() takes from other threads to shut it: so not annotated as guarded.
  std::unique_ptr<stream> s_;
  std::string where_;
  std::string qmgr_name_;
  std::int64_t margin_ms_ = 30000;
  std::atomic<bool> broken_{false};  // atomic: MQCTL from another thread reads them (unusable())
  std::atomic<bool> disconnected_{false};
  sync::mutex stream_mu_;             // s_'s reset (MQDISC) against stop() from another thread
  std::atomic<bool> stopped_{false};  // stop(): every call but MQDISC fails with 2203
  std::string broken_detail_;
  std::map<mqi::hobj, std::int32_t> opened_;  // open handles and their MQOO options, for MQCB
  int wake_fd_ = -1;                          // an eventfd: wake() from another thread
  bool tcp_ = false;                          // a TCP client, not the bindings socket
  async_consume consume_{*this, *this};       // last: ends first
};

}  // namespace

result<std::unique_ptr<mqi::connection>> make_client_connection(std::unique_ptr<stream> s,
                                                                const wire::connect_request& hello,
                                                                const std::string& where) {
  // Keepalive as the server's: a queue manager host that vanished breaks a get that waits without limit.
  set_keepalive(s->fd(), 60, 10, 3);
  s->keep_deadlines();  // the per-call deadline (stream::set_deadline)
  auto c = std::make_unique<client_connection>(std::move(s), where);
  auto r = c->hello(hello);
  if (!r) {
    auto err = r.error();
    // Nothing answered the connect at all: as MQCONN's "queue manager not available" [I].
    if (err.code == mq::make_mqrc(mq::MQRC_CONNECTION_BROKEN)) {
      err.code = mq::make_mqrc(mq::MQRC_Q_MGR_NOT_AVAILABLE);
    }
    return err;
  }
  return std::unique_ptr<mqi::connection>(std::move(c));
}

}  // namespace imsb::qmgr::detail
