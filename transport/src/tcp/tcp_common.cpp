#include "imsb/transport/tcp_common.hpp"

#include <cerrno>
#include <charconv>
#include <fstream>
#include <system_error>
#include <utility>

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/ssl/error.hpp>
#include <boost/asio/ssl/host_name_verification.hpp>
#include <boost/asio/write.hpp>

namespace imsb::transport {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

// ---- Endpoints ---------------------------------------------------------------------------------------

std::string endpoint_spec::to_string() const {
  const bool v6 = host.find(':') != std::string::npos;
  return (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

bool parse_endpoint(std::string_view text, endpoint_spec& out, std::string& error) {
  const std::string quoted = "'" + std::string(text) + "'";
  std::string_view host;
  std::string_view port;
  if (!text.empty() && text.front() == '[') {
    const auto close = text.find(']');
    if (close == std::string_view::npos) {
      error = "missing ']' after the IPv6 address in " + quoted;
      return false;
    }
    host = text.substr(1, close - 1);
    const auto rest = text.substr(close + 1);
    if (rest.empty() || rest.front() != ':') {
      error = "missing ':port' after ']' in " + quoted;
      return false;
    }
    port = rest.substr(1);
  } else {
    const auto colon = text.rfind(':');
    if (colon == std::string_view::npos) {
      error = "missing ':port' in " + quoted + " (write host:port, e.g. 127.0.0.1:5099)";
      return false;
    }
    host = text.substr(0, colon);
    port = text.substr(colon + 1);
    if (host.find(':') != std::string_view::npos) {
      error = "an IPv6 address needs brackets, as [::1]:5099, in " + quoted;
      return false;
    }
  }
  if (host.empty()) {
    error = "missing host in " + quoted;
    return false;
  }
  if (port.empty() || port.size() > 5) {
    error = "port must be a number 0-65535 in " + quoted;
    return false;
  }
  unsigned value = 0;
  const auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
  if (ec != std::errc() || end != port.data() + port.size() || value > 65535) {
    error = "port must be a number 0-65535 in " + quoted;
    return false;
  }
  out.host = std::string(host);
  out.port = static_cast<std::uint16_t>(value);
  return true;
}

std::vector<tcp::endpoint> resolve(asio::io_context& io, const endpoint_spec& spec,
                                   boost::system::error_code& ec) {
  std::vector<tcp::endpoint> result;
  ec.clear();
  // A literal address needs no resolver (and no DNS round trip).
  const auto address = asio::ip::make_address(spec.host, ec);
  if (!ec) {
    result.emplace_back(address, spec.port);
    return result;
  }
  ec.clear();
  tcp::resolver resolver(io);
  const auto found =
      resolver.resolve(spec.host, std::to_string(spec.port), tcp::resolver::numeric_service, ec);
  if (ec) return result;
  for (const auto& entry : found) result.push_back(entry.endpoint());
  if (result.empty()) ec = asio::error::host_not_found;
  return result;
}

std::string to_string(const tcp::endpoint& ep) {
  const auto address = ep.address();
  const std::string host = address.to_string();
  return (address.is_v6() ? "[" + host + "]" : host) + ":" + std::to_string(ep.port());
}

// ---- TLS ---------------------------------------------------------------------------------------------

namespace {

// OpenSSL's error queue as text ("error:0A080002:SSL routines::system lib"), or what Asio said.
std::string openssl_reason(const boost::system::error_code& ec) {
  std::string text;
  while (const unsigned long code = ERR_get_error()) {
    char buf[256];
    ERR_error_string_n(code, buf, sizeof buf);
    if (!text.empty()) text += "; ";
    text += buf;
  }
  if (text.empty()) text = ec.message();
  return text;
}

std::shared_ptr<asio::ssl::context> base_context(asio::ssl::context::method method, std::string& error) {
  ERR_clear_error();
  try {
    auto ctx = std::make_shared<asio::ssl::context>(method);
    ctx->set_options(asio::ssl::context::default_workarounds | asio::ssl::context::no_sslv2 |
                     asio::ssl::context::no_sslv3 | asio::ssl::context::no_tlsv1 |
                     asio::ssl::context::no_tlsv1_1 | asio::ssl::context::single_dh_use);
    return ctx;
  } catch (const boost::system::system_error& e) {
    error = "cannot create a TLS context: " + openssl_reason(e.code());
    return nullptr;
  }
}

// OpenSSL says only "system lib" for a file it cannot open: say which and why first.
bool readable(const std::string& path, const char* what, std::string& error) {
  std::ifstream probe(path);
  if (probe) return true;
  error = std::string("cannot read ") + what + " '" + path + "': " + std::generic_category().message(errno);
  return false;
}

bool load_identity(asio::ssl::context& ctx, const tls_files& files, std::string& error) {
  if (!readable(files.cert_file, "certificate file", error) ||
      !readable(files.key_file, "private key file", error))
    return false;
  boost::system::error_code ec;
  ERR_clear_error();
  ctx.use_certificate_chain_file(files.cert_file, ec);
  if (ec) {
    error = "cannot load certificate file '" + files.cert_file + "': " + openssl_reason(ec);
    return false;
  }
  ctx.use_private_key_file(files.key_file, asio::ssl::context::pem, ec);
  if (ec) {
    error = "cannot load private key file '" + files.key_file + "': " + openssl_reason(ec);
    return false;
  }
  if (SSL_CTX_check_private_key(ctx.native_handle()) != 1) {
    ERR_clear_error();
    error = "private key '" + files.key_file + "' does not match certificate '" + files.cert_file + "'";
    return false;
  }
  return true;
}

bool load_ca(asio::ssl::context& ctx, const std::string& ca_file, std::string& error) {
  if (!readable(ca_file, "CA file", error)) return false;
  boost::system::error_code ec;
  ERR_clear_error();
  ctx.load_verify_file(ca_file, ec);
  if (ec) {
    error = "cannot load CA file '" + ca_file + "': " + openssl_reason(ec);
    return false;
  }
  return true;
}

}  // namespace

std::shared_ptr<asio::ssl::context> make_server_tls_context(const tls_files& files, std::string& error) {
  if (files.cert_file.empty() || files.key_file.empty()) {
    error = "TLS needs both a certificate file and a private key file";
    return nullptr;
  }
  auto ctx = base_context(asio::ssl::context::tls_server, error);
  if (!ctx || !load_identity(*ctx, files, error)) return nullptr;
  if (!files.ca_file.empty()) {
    if (!load_ca(*ctx, files.ca_file, error)) return nullptr;
    // Mutual TLS: a client without a certificate signed by the CA fails the handshake.
    ctx->set_verify_mode(asio::ssl::verify_peer | asio::ssl::verify_fail_if_no_peer_cert);
  } else {
    ctx->set_verify_mode(asio::ssl::verify_none);
  }
  return ctx;
}

std::shared_ptr<asio::ssl::context> make_client_tls_context(const tls_files& files, std::string& error) {
  if (files.cert_file.empty() != files.key_file.empty()) {
    error = "a client certificate needs both a certificate file and a private key file";
    return nullptr;
  }
  auto ctx = base_context(asio::ssl::context::tls_client, error);
  if (!ctx) return nullptr;
  if (!files.cert_file.empty() && !load_identity(*ctx, files, error)) return nullptr;
  if (!files.ca_file.empty()) {
    if (!load_ca(*ctx, files.ca_file, error)) return nullptr;
  } else {
    boost::system::error_code ec;
    ctx->set_default_verify_paths(ec);
    if (ec) {
      error = "cannot load the system's CA certificates: " + openssl_reason(ec);
      return nullptr;
    }
  }
  ctx->set_verify_mode(asio::ssl::verify_peer);
  return ctx;
}

// ---- Stream --------------------------------------------------------------------------------------------

namespace {
std::string peer_of(const tcp::socket& socket) {
  boost::system::error_code ec;
  const auto ep = socket.remote_endpoint(ec);
  return ec ? std::string("(unknown peer)") : to_string(ep);
}
}  // namespace

stream::stream(tcp_socket socket) : peer_(peer_of(socket)) {
  plain_ = std::make_unique<tcp_socket>(std::move(socket));
}

stream::stream(tcp_socket socket, asio::ssl::context& tls_context) : peer_(peer_of(socket)) {
  tls_ = std::make_unique<tls_socket>(std::move(socket), tls_context);
}

stream::stream(local_socket socket) : peer_("(local socket)") {
  local_ = std::make_unique<local_socket>(std::move(socket));
}

stream::~stream() { close(); }

stream::tcp_socket& stream::socket() noexcept { return tls_ ? tls_->next_layer() : *plain_; }

asio::any_io_executor stream::get_executor() noexcept {
  return local_ ? local_->get_executor() : socket().get_executor();
}

int stream::native_handle() noexcept {
  if (local_) return local_->is_open() ? local_->native_handle() : -1;
  return socket().is_open() ? socket().native_handle() : -1;
}

bool stream::is_open() const noexcept {
  if (local_) return local_->is_open();
  return tls_ ? tls_->next_layer().is_open() : plain_->is_open();
}

void stream::set_verify_host(const std::string& host) {
  if (!tls_) return;
  tls_->set_verify_callback(asio::ssl::host_name_verification(host));
  // SNI only for names: RFC 6066 does not allow literal addresses.
  boost::system::error_code ec;
  asio::ip::make_address(host, ec);
  if (ec) {
    // SSL_set_tlsext_host_name is a macro with a C cast; this is what it expands to.
    SSL_ctrl(tls_->native_handle(), SSL_CTRL_SET_TLSEXT_HOSTNAME, TLSEXT_NAMETYPE_host_name,
             const_cast<char*>(host.c_str()));
  }
}

void stream::async_handshake(role r, done_handler handler) {
  if (!tls_) {
    asio::post(get_executor(), [h = std::move(handler)] { h(boost::system::error_code()); });
    return;
  }
  tls_->async_handshake(r == role::client ? asio::ssl::stream_base::client : asio::ssl::stream_base::server,
                        std::move(handler));
}

void stream::async_read_some(asio::mutable_buffer buffer, io_handler handler) {
  on_layer([&](auto& layer) { layer.async_read_some(buffer, std::move(handler)); });
}

void stream::async_wait_readable(done_handler handler) {
  if (local_) {
    local_->async_wait(local_socket::wait_read, std::move(handler));
  } else {
    plain_->async_wait(tcp_socket::wait_read, std::move(handler));
  }
}

namespace {
// One non-blocking read_some or write_some (`op`) on a plain socket, made non-blocking first if it is not.
template <class Socket, class Op>
std::size_t now_on(Socket& socket, boost::system::error_code& ec, Op op) {
  if (!socket.non_blocking()) socket.non_blocking(true, ec);
  return ec ? 0 : op(socket);
}
}  // namespace

std::size_t stream::read_available(asio::mutable_buffer buffer, boost::system::error_code& ec) {
  auto op = [&](auto& s) { return s.read_some(buffer, ec); };
  return local_ ? now_on(*local_, ec, op) : now_on(*plain_, ec, op);
}

std::size_t stream::write_available(asio::const_buffer buffer, boost::system::error_code& ec) {
  auto op = [&](auto& s) { return s.write_some(buffer, ec); };
  return local_ ? now_on(*local_, ec, op) : now_on(*plain_, ec, op);
}

void stream::async_read(asio::mutable_buffer buffer, io_handler handler) {
  on_layer([&](auto& layer) { asio::async_read(layer, buffer, std::move(handler)); });
}

void stream::async_write(asio::const_buffer buffer, io_handler handler) {
  on_layer([&](auto& layer) { asio::async_write(layer, buffer, std::move(handler)); });
}

void stream::shutdown_send() noexcept {
  boost::system::error_code ec;
  if (local_) {
    local_->shutdown(local_socket::shutdown_send, ec);
  } else {
    socket().shutdown(tcp_socket::shutdown_send, ec);
  }
}

void stream::close() noexcept {
  boost::system::error_code ec;
  if (local_) {
    if (local_->is_open()) {
      local_->cancel(ec);
      local_->close(ec);
    }
    return;
  }
  auto& s = socket();
  if (s.is_open()) {
    s.cancel(ec);
    s.close(ec);
  }
}

std::string stream::describe_error(const boost::system::error_code& ec) const {
  std::string text = ec.message();
  if (ec.category() == asio::error::get_ssl_category() || ec == asio::ssl::error::stream_truncated) {
    if (tls_) {
      const long verify = SSL_get_verify_result(tls_->native_handle());
      if (verify != X509_V_OK) {
        text += " (";
        text += X509_verify_cert_error_string(verify);
        text += ")";
      }
    }
  }
  return text;
}

}  // namespace imsb::transport
