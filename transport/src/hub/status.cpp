// `xcfhub status`: QUERY with a blank group lists every group (transport/README.md "Status" [D]).

#include <algorithm>
#include <optional>

#include <boost/asio/buffer.hpp>
#include <boost/asio/connect.hpp>
#include <boost/asio/steady_timer.hpp>

#include "imsb/core/messages.hpp"
#include "imsb/transport/hub.hpp"

namespace imsb::transport {

namespace asio = boost::asio;
using asio::ip::tcp;
namespace frame = xcf::frame;

namespace {

constexpr std::uint32_t status_corr = 1;

// The hub's ERROR text is for people but comes off the wire (README "Frame": escaped when printed):
// printable ASCII stays, any other byte is \xNN, so it cannot move the cursor or fake a line.
std::string printable_text(std::string_view text) {
  static constexpr char digits[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto b = static_cast<unsigned char>(c);
    if (b >= 0x20 && b < 0x7F && b != '\\') {
      out += c;
    } else {
      out += "\\x";
      out += digits[b >> 4];
      out += digits[b & 0x0F];
    }
  }
  return out;
}

// One QUERY exchange, driven by the io_context of query_status.
class status_exchange {
 public:
  status_exchange(asio::io_context& io, const status_request& request, status_result& result)
      : io_(io), request_(request), result_(result), timer_(io), reader_(frame::hard_max_payload) {}

  void run(const std::vector<tcp::endpoint>& endpoints, asio::ssl::context* tls) {
    timer_.expires_after(request_.timeout);
    timer_.async_wait([this](const boost::system::error_code& ec) {
      if (!ec)
        fail(msg::IMB3021E, "no answer from " + request_.connect.to_string() + " within " +
                                std::to_string(request_.timeout.count()) + " ms");
    });
    socket_.emplace(io_);
    tls_ = tls;
    asio::async_connect(
        *socket_, endpoints,
        [this](const boost::system::error_code& ec, const tcp::endpoint&) { on_connect(ec); });
    io_.run();
  }

 private:
  void on_connect(const boost::system::error_code& ec) {
    if (done_) return;
    if (ec) {
      fail(msg::IMB3021E, "cannot connect to " + request_.connect.to_string() + ": " + ec.message());
      return;
    }
    stream_ = tls_ ? std::make_unique<stream>(std::move(*socket_), *tls_)
                   : std::make_unique<stream>(std::move(*socket_));
    // The hub's certificate must name the host we asked for (DNS name or IP address in
    // subjectAltName), not merely be signed by the CA (README "TLS").
    stream_->set_verify_host(request_.connect.host);
    stream_->async_handshake(stream::role::client, [this](const boost::system::error_code& hec) {
      if (done_) return;
      if (hec) {
        fail(msg::IMB3021E, "TLS handshake with " + request_.connect.to_string() +
                                " failed: " + stream_->describe_error(hec));
        return;
      }
      frame::encode(frame::frame_type::query, 0, status_corr, frame::query_payload{}, out_);
      stream_->async_write(asio::buffer(out_), [this](const boost::system::error_code& wec, std::size_t) {
        if (done_) return;
        if (wec) {
          fail(msg::IMB3021E, "cannot send to " + request_.connect.to_string() + ": " + wec.message());
          return;
        }
        read();
      });
    });
  }

  void read() {
    stream_->async_read_some(asio::buffer(buf_), [this](const boost::system::error_code& ec, std::size_t n) {
      if (done_) return;
      if (ec) {
        fail(msg::IMB3021E, "the hub at " + request_.connect.to_string() +
                                " closed the connection before answering: " + stream_->describe_error(ec));
        return;
      }
      reader_.feed(bytes_view(buf_.data(), n));
      frame::decoded f;
      decode_error err;
      while (true) {
        const auto st = reader_.next(f, err);
        if (st == frame::reader::status::need_more) break;
        if (st == frame::reader::status::error) {
          fail(msg::IMB3022E, "the answer does not decode: " + err.to_string());
          return;
        }
        if (f.head.type == frame::frame_type::error) {
          const auto& e = std::get<frame::error_payload>(f.body);
          fail(msg::IMB3022E,
               "the hub answered ERROR " + xcf::describe(e.code) + ": " + printable_text(e.text));
          return;
        }
        if (f.head.type == frame::frame_type::query_rsp && f.head.corr == status_corr) {
          auto& rsp = std::get<frame::query_rsp_payload>(f.body);
          if (!rsp.code.ok()) {
            fail(msg::IMB3022E, "the hub answered QUERY with " + xcf::describe(rsp.code));
            return;
          }
          result_.ok = true;
          result_.members = std::move(rsp.members);
          finish();
          return;
        }
        // PING and anything else: not what we wait for.
      }
      read();
    });
  }

  void fail(std::string_view id, std::string text) {
    if (done_) return;
    result_.ok = false;
    result_.error_id = id;
    result_.error = std::move(text);
    finish();
  }

  void finish() {
    done_ = true;
    boost::system::error_code ignored;
    timer_.cancel(ignored);
    if (stream_) stream_->close();
    if (socket_ && socket_->is_open()) socket_->close(ignored);
  }

  asio::io_context& io_;
  const status_request& request_;
  status_result& result_;
  asio::steady_timer timer_;
  std::optional<tcp::socket> socket_;
  asio::ssl::context* tls_ = nullptr;
  std::unique_ptr<stream> stream_;
  frame::reader reader_;
  bytes out_;
  std::array<std::uint8_t, 16 * 1024> buf_{};
  bool done_ = false;
};

bool all_zero(const xcf::user_state& u) {
  return std::all_of(u.begin(), u.end(), [](std::uint8_t b) { return b == 0; });
}

std::string hex(const std::uint8_t* p, std::size_t n) { return to_hex(bytes_view(p, n)); }

std::string pad(std::string s, std::size_t n) {
  if (s.size() < n) s.append(n - s.size(), ' ');
  return s;
}

std::string json_string(std::string_view s) {
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      static constexpr char digits[] = "0123456789abcdef";
      out += "\\u00";
      out += digits[(c >> 4) & 0x0F];
      out += digits[c & 0x0F];
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::vector<xcf::member_info> sorted(std::vector<xcf::member_info> members) {
  std::stable_sort(members.begin(), members.end(), [](const auto& a, const auto& b) {
    return a.group != b.group ? a.group < b.group : a.name < b.name;
  });
  return members;
}

}  // namespace

status_result query_status(const status_request& request) {
  status_result result;
  asio::io_context io;
  boost::system::error_code ec;
  const auto endpoints = resolve(io, request.connect, ec);
  if (ec) {
    result.error_id = msg::IMB3021E;
    result.error = "cannot resolve '" + request.connect.host + "': " + ec.message();
    return result;
  }
  std::shared_ptr<asio::ssl::context> tls;
  if (request.tls.any()) {
    std::string error;
    tls = make_client_tls_context(request.tls, error);
    if (!tls) {
      result.error_id = msg::IMB3021E;
      result.error = error;
      return result;
    }
  }
  status_exchange exchange(io, request, result);
  exchange.run(endpoints, tls.get());
  return result;
}

std::string format_status(const std::vector<xcf::member_info>& members) {
  if (members.empty()) return "no groups\n";
  std::string out;
  const auto list = sorted(members);
  for (std::size_t i = 0; i < list.size();) {
    std::size_t end = i;
    while (end < list.size() && list[end].group == list[i].group) ++end;
    out += "group " + list[i].group + " (" + std::to_string(end - i) +
           (end - i == 1 ? " member)\n" : " members)\n");
    for (; i < end; ++i) {
      const auto& m = list[i];
      out += "  " + pad(m.name, xcf::member_name_length) + " " +
             pad(std::string(xcf::to_string(m.state)), 11) + " token " + hex(m.token.data(), m.token.size()) +
             "  system " + pad(m.system, 8);
      if (!all_zero(m.ustate)) out += "  user state " + hex(m.ustate.data(), m.ustate.size());
      while (!out.empty() && out.back() == ' ') out.pop_back();
      out += '\n';
    }
  }
  return out;
}

std::string format_status_json(const std::vector<xcf::member_info>& members) {
  const auto list = sorted(members);
  std::string out = "{\"groups\":[";
  for (std::size_t i = 0; i < list.size();) {
    if (i != 0) out += ',';
    out += "{\"group\":" + json_string(list[i].group) + ",\"members\":[";
    const std::string group = list[i].group;
    for (bool first = true; i < list.size() && list[i].group == group; ++i, first = false) {
      const auto& m = list[i];
      if (!first) out += ',';
      out += "{\"name\":" + json_string(m.name) + ",\"state\":" + json_string(xcf::to_string(m.state)) +
             ",\"token\":\"" + hex(m.token.data(), m.token.size()) +
             "\",\"system\":" + json_string(m.system) + ",\"user_state\":\"" +
             hex(m.ustate.data(), m.ustate.size()) + "\",\"member_data\":\"" +
             hex(m.memdata.data(), m.memdata.size()) + "\"}";
    }
    out += "]}";
  }
  return out + "]}\n";
}

}  // namespace imsb::transport
