#pragma once
// What xcfhub and the TCP client backend share (transport/README.md): "host:port" endpoints, OpenSSL
// contexts built from PEM files, and one stream type that is either a plain TCP socket or TLS over it,
// so that connection code is written once. Frames are encoded and decoded by imsb/xcf/frame.hpp; this
// header only moves bytes (docs/design/style.md: sockets apart from codecs).
//
// Errors: configuration (endpoint text, certificate files) is reported through an error string, never an
// exception, so callers decide whether that is a start-up failure (xcfhub) or a return code (client).

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/system/error_code.hpp>

namespace imsb::transport {

// ---- Endpoints ---------------------------------------------------------------------------------------

// "host:port", "[v6-address]:port" ("[::1]:0"). The host may be a name ("localhost"), an IPv4 or a
// bracketed IPv6 address; the port is decimal 0-65535 (0 = let the system choose, for listeners).
struct endpoint_spec {
  std::string host;  // without brackets
  std::uint16_t port = 0;
  // "127.0.0.1:5099", "[::1]:5099" — the form parse_endpoint accepts.
  std::string to_string() const;
};

// true and `out` set, or false and `error` says what is wrong ("missing port in 'x'", ...).
bool parse_endpoint(std::string_view text, endpoint_spec& out, std::string& error);

// Blocking name resolution (start-up, or the client's connect thread). An empty result sets `ec`.
std::vector<boost::asio::ip::tcp::endpoint> resolve(boost::asio::io_context& io, const endpoint_spec& spec,
                                                    boost::system::error_code& ec);

// "127.0.0.1:40312" / "[::1]:40312".
std::string to_string(const boost::asio::ip::tcp::endpoint& ep);

// ---- TLS ---------------------------------------------------------------------------------------------

// PEM files. Server: cert + key required; ca set → clients must present a certificate signed by it
// (mutual TLS). Client: ca set → the hub's certificate is verified against it (otherwise against the
// system's default paths); cert + key, when set, are presented to the hub.
struct tls_files {
  std::string cert_file;
  std::string key_file;
  std::string ca_file;
  bool any() const noexcept { return !cert_file.empty() || !key_file.empty() || !ca_file.empty(); }
};

// TLS 1.2 or later. nullptr and `error` set ("cannot read certificate file 'x': <OpenSSL reason>",
// "private key 'k' does not match certificate 'c'", ...) when a file is missing, unreadable or wrong.
std::shared_ptr<boost::asio::ssl::context> make_server_tls_context(const tls_files& files,
                                                                   std::string& error);
std::shared_ptr<boost::asio::ssl::context> make_client_tls_context(const tls_files& files,
                                                                   std::string& error);

// ---- Stream --------------------------------------------------------------------------------------------

using io_handler = std::function<void(const boost::system::error_code&, std::size_t)>;
using done_handler = std::function<void(const boost::system::error_code&)>;

// A connection's byte stream: plain TCP, TLS over TCP, or a Unix socket (the queue manager's bindings
// socket). Not thread-safe: use it from the thread (or strand) that runs its handlers (one outstanding
// read and one outstanding write at a time, as Asio requires).
class stream {
 public:
  using tcp_socket = boost::asio::ip::tcp::socket;
  using tls_socket = boost::asio::ssl::stream<tcp_socket>;
  using local_socket = boost::asio::local::stream_protocol::socket;
  enum class role { client, server };

  explicit stream(tcp_socket socket);                                 // plain TCP
  stream(tcp_socket socket, boost::asio::ssl::context& tls_context);  // TLS; the context must outlive us
  explicit stream(local_socket socket);                               // a Unix socket
  ~stream();
  stream(const stream&) = delete;
  stream& operator=(const stream&) = delete;

  bool is_tls() const noexcept { return tls_ != nullptr; }
  bool is_local() const noexcept { return local_ != nullptr; }
  tcp_socket& socket() noexcept;                     // the TCP layer (endpoints, options); TCP streams only
  tls_socket* tls() noexcept { return tls_.get(); }  // nullptr for plain TCP and Unix sockets
  boost::asio::any_io_executor get_executor() noexcept;
  // The socket's descriptor (socket options, SO_PEERCRED); -1 once closed.
  int native_handle() noexcept;
  // Client side: check that the hub's certificate names `host` (DNS name or IP address) and send it
  // as SNI. Call before async_handshake. No effect on plain TCP.
  void set_verify_host(const std::string& host);

  // TLS handshake; for plain TCP the handler is posted at once with success.
  void async_handshake(role r, done_handler handler);
  // Reads what is there (at least one byte), as Asio's async_read_some.
  void async_read_some(boost::asio::mutable_buffer buffer, io_handler handler);
  // Plain TCP and Unix sockets: waits until the socket has bytes (or an end) to read, reading nothing, so
  // that the reader chooses how much to take (read_available); no read is tried before the wait, as
  // async_read_some would. Not for TLS.
  void async_wait_readable(done_handler handler);
  // Plain TCP and Unix sockets: what the socket holds now, at most the buffer; would_block when nothing,
  // eof at the end. Never waits.
  std::size_t read_available(boost::asio::mutable_buffer buffer, boost::system::error_code& ec);
  // Plain TCP and Unix sockets: writes what the socket takes now, at most the buffer; would_block when it
  // takes nothing. Never waits. (A reply written here needs no completion handler queued: the caller goes
  // on at once, async_write only for what is left.)
  std::size_t write_available(boost::asio::const_buffer buffer, boost::system::error_code& ec);
  // Reads until the buffer is full (or an error: the handler then has the bytes read so far).
  void async_read(boost::asio::mutable_buffer buffer, io_handler handler);
  // Writes the whole buffer; the bytes must stay alive until the handler runs.
  void async_write(boost::asio::const_buffer buffer, io_handler handler);

  // Sends FIN after the last write (the peer reads what was written, then end of stream); reads may go
  // on. For TLS no close_notify is sent (that would need the peer's answer).
  void shutdown_send() noexcept;
  // Cancels outstanding operations and closes the socket. Never throws; safe to call twice.
  void close() noexcept;
  bool is_open() const noexcept;

  // The peer as "host:port", remembered at construction (still valid after close()).
  const std::string& peer() const noexcept { return peer_; }

  // Text for a failed TLS handshake or read: OpenSSL's reason, plus the certificate verification result
  // when that is what failed ("certificate verify failed (unable to get local issuer certificate)").
  std::string describe_error(const boost::system::error_code& ec) const;

 private:
  // `f` on the layer that moves the bytes: the TLS stream, the Unix socket or the plain TCP socket.
  template <class F>
  void on_layer(F&& f) {
    if (tls_) {
      f(*tls_);
    } else if (local_) {
      f(*local_);
    } else {
      f(*plain_);
    }
  }

  std::unique_ptr<tcp_socket> plain_;
  std::unique_ptr<tls_socket> tls_;
  std::unique_ptr<local_socket> local_;
  std::string peer_;
};

}  // namespace imsb::transport
