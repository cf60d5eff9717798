#pragma once
// Private to qmgr/src: the byte stream under the client protocol (a connected socket, plain or
// TLS over it) and the client connection that speaks the protocol over it. The server (server.cpp) reads
// through transport::stream on Asio; both ends check frames with the same codec (frame_body_length,
// mqi::wire).

#include <openssl/ssl.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "imsb/core/bytes.hpp"
#include "imsb/core/result.hpp"
#include "imsb/mqi/client_protocol.hpp"
#include "imsb/mqi/connection.hpp"
#include "imsb/qmgr/connect.hpp"
#include "imsb/qmgr/queue_manager.hpp"

namespace imsb::qmgr::detail {

// OpenSSL writes to the socket with write(), which raises SIGPIPE when the peer has gone; a library must
// not let that kill its program, nor change the program's signal dispositions. While a guard lives, the
// calling thread blocks SIGPIPE; a SIGPIPE raised meanwhile is consumed before the mask is restored
// (the technique of libcurl and OpenSSH) [D]. Plain sockets use send(MSG_NOSIGNAL) instead.
class sigpipe_guard {
 public:
  sigpipe_guard() noexcept;
  ~sigpipe_guard();
  sigpipe_guard(const sigpipe_guard&) = delete;
  sigpipe_guard& operator=(const sigpipe_guard&) = delete;

 private:
  bool was_pending_ = false;
  bool was_blocked_ = false;
};

// A connected socket, optionally with TLS over it. Owns the fd and the SSL (and its SSL_CTX reference).
// Blocking I/O; not thread-safe, except shutdown(), which any thread may call to wake a blocked read.
class stream {
 public:
  explicit stream(int fd) noexcept : fd_(fd) {}
  stream(int fd, SSL* ssl) noexcept : fd_(fd), ssl_(ssl) {}
  ~stream();
  stream(const stream&) = delete;
  stream& operator=(const stream&) = delete;

  int fd() const noexcept { return fd_; }
  SSL* ssl() const noexcept { return ssl_; }
  // Makes the stream keep deadlines: one deadline for a whole login or call, whatever the peer drips [D].
  // The socket is made non-blocking, and each read and write waits in poll() with what is left. (A
  // blocking recv under SO_RCVTIMEO saves the poll, but made persistent round trips 0.80-0.86 of a
  // thread-per-connection server's, where poll then recv made 0.95, on the 2-vCPU test machine:
  // bench/RESULTS.md "The network layer".) Without a deadline it waits as long as it takes.
  bool keep_deadlines() noexcept;
  using clock = std::chrono::steady_clock;
  void set_deadline(std::optional<clock::time_point> deadline) noexcept {
    deadline_ = deadline;
    timed_out_ = false;
  }
  bool timed_out() const noexcept { return timed_out_; }  // the last failure was the deadline's
  // False when the peer closed or the connection broke (errno / SSL error in `error`).
  bool read_exact(std::uint8_t* data, std::size_t length);
  bool write_all(const std::uint8_t* data, std::size_t length);
  void shutdown() noexcept;  // SHUT_RDWR: a blocked read returns false
  // Blocks until the stream has bytes to read (read ahead already, or its socket an error or hangup: the
  // next read tells) — true — or `other_fd` is readable first — false. No deadline.
  bool readable_before(int other_fd);
  const std::string& error() const noexcept { return error_; }

  // One whole frame: the 12-byte header, checked before any body is read (a bad header is an error at
  // once, whatever length it claims), then the body. nullopt when the peer closed or the connection
  // broke before a whole frame came (an error() says why; "" when the peer closed cleanly between frames).
  // An error result: a bad frame (decode_error from the codec).
  enum class frame_status { ok, closed, bad };
  struct frame {
    frame_status status = frame_status::closed;
    bytes data;  // header + body when ok
    decode_error error;
  };
  // `header_check` runs on the 12 header bytes: nullopt = header fine, else the decode error.
  template <class Check>
  frame read_frame(Check header_check);

 private:
  bool await(short events);  // poll until ready or the deadline (false, error_ and timed_out_ set)
  // One read from the socket (or TLS) into data[0, length): the bytes read, 0 with error_ set (or error_
  // "" at a clean end of stream, `eof` set).
  std::size_t read_some(std::uint8_t* data, std::size_t length, bool& eof);

  int fd_ = -1;
  SSL* ssl_ = nullptr;
  std::string error_;
  std::optional<clock::time_point> deadline_;
  bool timed_out_ = false;
  // Read ahead: a response's header and body come in one read, not two [D].
  static constexpr std::size_t read_ahead = 4096;
  bytes rbuf_;
  std::size_t rpos_ = 0;
  std::size_t rend_ = 0;
};

// The body length of a frame header (its bytes 4..7, big-endian).
std::size_t frame_body_length(const std::uint8_t* header) noexcept;

template <class Check>
stream::frame stream::read_frame(Check header_check) {
  frame f;
  f.data.resize(mqi::wire::header_length);
  if (!read_exact(f.data.data(), f.data.size())) return f;
  if (auto bad = header_check(bytes_view(f.data.data(), f.data.size()))) {
    f.status = frame_status::bad;
    f.error = std::move(*bad);
    return f;
  }
  // The body in steps of at most 1 MiB, so that a peer that claims a long body and sends nothing holds
  // no more memory than it sent [D].
  std::size_t left = frame_body_length(f.data.data());
  while (left > 0) {
    std::size_t step = left < (std::size_t{1} << 20) ? left : (std::size_t{1} << 20);
    std::size_t at = f.data.size();
    f.data.resize(at + step);
    if (!read_exact(f.data.data() + at, step)) return f;
    left -= step;
  }
  f.status = frame_status::ok;
  return f;
}

// A TLS context for one end: the CA to verify the peer (required of a client certificate on the server
// side when ca_file is given), our certificate and key. Errors name the file and carry OpenSSL's words.
result<std::shared_ptr<SSL_CTX>> make_tls_context(const tls_options& tls, bool server);
std::string openssl_errors();

// TCP keepalive on a socket (nothing on a Unix socket): probes after `idle_s` seconds of silence, every
// `interval_s`, `count` unanswered ones and the connection is broken, so that a peer host that vanished
// (power off, cable) ends the connection instead of holding it for ever [D]. idle_s <= 0: left off.
void set_keepalive(int fd, int idle_s, int interval_s, int count) noexcept;

// The client connection (client_connection.cpp): sends `hello` as the connect frame and returns the
// connection once the queue manager accepted it; its MQRC otherwise (MQRC_NOT_AUTHORIZED ...).
// `where` (the socket path or host(port)) goes into error details. Each call has a deadline: the get's
// wait (none for MQWI_UNLIMITED: keepalive decides) plus a margin, 30 s or IMSB_CLIENT_CALL_TIMEOUT_MS
// (0: none); past it the socket is shut down and the call answers MQRC_CONNECTION_BROKEN [D]. A request
// that wire::check_request refuses answers its MQRC without being sent (the connection goes on).
result<std::unique_ptr<mqi::connection>> make_client_connection(std::unique_ptr<stream> s,
                                                                const mqi::wire::connect_request& hello,
                                                                const std::string& where);

// The principal of an OS user (server.cpp): its name (getpwuid_r; the uid in decimal when it has none),
// its groups (getgrouplist) and whether it administers this queue manager — the user the queue manager
// runs as (geteuid) or a member of group mqm [C] IBM's mqm group.
principal os_principal(unsigned uid, unsigned gid);
// The principal of a user name authenticated over TCP: as os_principal when the name is an OS user's,
// else the name with no groups and no administration [D].
principal named_principal(const std::string& user);

}  // namespace imsb::qmgr::detail
