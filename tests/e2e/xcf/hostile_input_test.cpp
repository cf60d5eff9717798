// Bytes that are not the protocol, from raw sockets: an oversized frame and 1,000 garbage frames, each
// on a fresh connection, get an ERROR frame (a JOIN with a bad name: JOIN_RSP 8/14) and a close
// (transport/README.md "Connections", "Join" [D]) — while two real members keep exchanging messages,
// none lost or reordered, neither seeing a failure, and the hub keeps answering.

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <random>

#include "imsb/xcf/frame.hpp"
#include "xcf_e2e.hpp"

namespace imsb::test {
namespace {

namespace frame = xcf::frame;

// A plain loopback TCP connection, closed by its destructor.
class raw_socket {
 public:
  explicit raw_socket(std::uint16_t port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd_ < 0) throw std::runtime_error("socket failed");
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd_, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) {
      ::close(fd_);
      throw std::runtime_error("connect to 127.0.0.1:" + std::to_string(port) + " failed");
    }
  }
  ~raw_socket() { ::close(fd_); }
  raw_socket(const raw_socket&) = delete;
  raw_socket& operator=(const raw_socket&) = delete;

  // false when the peer closed first (it may refuse as soon as it has seen enough).
  bool write_all(const bytes& b) {
    std::size_t done = 0;
    while (done < b.size()) {
      const ssize_t n = ::send(fd_, b.data() + done, b.size() - done, MSG_NOSIGNAL);
      if (n <= 0) return false;
      done += static_cast<std::size_t>(n);
    }
    return true;
  }
  void shutdown_write() { ::shutdown(fd_, SHUT_WR); }

  // Reads until the peer closes (true) or `timeout` passes (false).
  bool read_until_close(bytes& out, milliseconds timeout) {
    const auto until = steady::now() + timeout;
    for (;;) {
      const auto left = std::chrono::duration_cast<milliseconds>(until - steady::now()).count();
      if (left <= 0) return false;
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(left)) <= 0) continue;
      std::uint8_t buf[4096];
      const ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
      if (n == 0) return true;
      if (n < 0) return errno == ECONNRESET;
      out.insert(out.end(), buf, buf + n);
    }
  }

  // Reads whole frames until one arrives (or `timeout`).
  std::optional<frame::decoded> read_frame(milliseconds timeout) {
    frame::reader reader(frame::hard_max_payload);
    const auto until = steady::now() + timeout;
    for (;;) {
      frame::decoded f;
      decode_error err;
      const auto st = reader.next(f, err);
      if (st == frame::reader::status::frame) {
        if (f.head.type == frame::frame_type::ping) continue;  // the hub's heartbeat
        return f;
      }
      if (st == frame::reader::status::error) return std::nullopt;
      const auto left = std::chrono::duration_cast<milliseconds>(until - steady::now()).count();
      if (left <= 0) return std::nullopt;
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(left)) <= 0) continue;
      std::uint8_t buf[4096];
      const ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
      if (n <= 0) return std::nullopt;
      reader.feed(bytes_view(buf, static_cast<std::size_t>(n)));
    }
  }

 private:
  int fd_ = -1;
};

bytes header_bytes(std::uint8_t type, std::uint16_t flags, std::uint32_t length, std::uint8_t version = 1) {
  bytes b{'X',
          'C',
          'F',
          'E',
          version,
          type,
          static_cast<std::uint8_t>(flags >> 8),
          static_cast<std::uint8_t>(flags),
          0,
          0,
          0,
          1};
  for (int k = 3; k >= 0; --k) b.push_back(static_cast<std::uint8_t>(length >> (8 * k)));
  return b;
}

// Sends `junk` on a fresh connection; the hub must refuse it (ERROR, or JOIN_RSP 8/14 for a JOIN with a
// bad name) and close once we stop sending. Empty when it did; else why not.
std::string expect_refused(std::uint16_t port, const bytes& junk, std::optional<xcf::return_code> code = {}) {
  raw_socket s(port);
  s.write_all(junk);  // the hub may close before all of it is read
  s.shutdown_write();
  bytes got;
  if (!s.read_until_close(got, milliseconds(10000))) return "the hub did not close the connection";
  frame::reader reader(frame::hard_max_payload);
  reader.feed(got);
  frame::decoded f;
  decode_error err;
  do {  // the hub PINGs every connection each heartbeat: one may come first
    if (reader.next(f, err) != frame::reader::status::frame) return "no whole frame before the close";
  } while (f.head.type == frame::frame_type::ping);
  // A whole JOIN whose names break the XCF rules is a refusal, not a broken protocol: JOIN_RSP 8/14,
  // and the connection may go on (README "Join" [D]).
  if (f.head.type == frame::frame_type::join_rsp) {
    const auto& rsp = std::get<frame::join_rsp_payload>(f.body);
    if (rsp.code == xcf::codes::bad_name) return {};
    return "JOIN_RSP with " + xcf::describe(rsp.code);
  }
  if (f.head.type != frame::frame_type::error)
    return "answered " + std::string(frame::to_string(f.head.type));
  const auto& e = std::get<frame::error_payload>(f.body);
  if (e.code.rc != 8) return "ERROR with " + xcf::describe(e.code);
  if (code && e.code != *code)
    return "ERROR with " + xcf::describe(e.code) + ", expected " + xcf::describe(*code);
  return {};
}

// Garbage of several kinds, each sure to break the protocol (checked against the codec where it could
// by chance be valid): bad magic, bad version, unknown type, reserved flag bits, frames a client may
// not send before JOIN, and JOIN / QUERY / PING payloads of the wrong shape.
bytes make_garbage(std::mt19937_64& rng) {
  auto byte = [&] { return static_cast<std::uint8_t>(rng()); };
  auto random_payload = [&](std::size_t max) {
    bytes p(rng() % (max + 1));
    for (auto& c : p) c = byte();
    return p;
  };
  bytes b;
  bytes payload;
  switch (rng() % 8) {
    case 0: {  // not XCFE at all
      b = random_payload(200);
      b.resize(std::max<std::size_t>(b.size(), 16));
      if (b[0] == 'X') b[0] = 'Y';
      return b;
    }
    case 1: {  // wrong version
      std::uint8_t v = byte();
      if (v == frame::version) v = 2;
      payload = random_payload(64);
      b = header_bytes(byte(), 0, static_cast<std::uint32_t>(payload.size()), v);
      break;
    }
    case 2: {  // unknown type
      std::uint8_t t = byte();
      while (frame::known_type(t)) t = byte();
      payload = random_payload(64);
      b = header_bytes(t, 0, static_cast<std::uint32_t>(payload.size()));
      break;
    }
    case 3: {  // reserved flag bits
      const std::uint16_t flags = static_cast<std::uint16_t>((rng() | 0x0008) & 0xFFF8);
      payload = random_payload(64);
      b = header_bytes(static_cast<std::uint8_t>(frame::frame_type::query), flags,
                       static_cast<std::uint32_t>(payload.size()));
      break;
    }
    case 4: {  // frames not allowed before JOIN (README "Connections")
      static constexpr frame::frame_type not_yet[] = {
          frame::frame_type::send,           frame::frame_type::leave,     frame::frame_type::quiesce,
          frame::frame_type::set_user_state, frame::frame_type::remove,    frame::frame_type::deliver,
          frame::frame_type::event,          frame::frame_type::join_rsp,  frame::frame_type::send_rsp,
          frame::frame_type::query_rsp,      frame::frame_type::leave_rsp, frame::frame_type::error};
      const auto t = not_yet[rng() % std::size(not_yet)];
      payload = random_payload(120);
      b = header_bytes(static_cast<std::uint8_t>(t), 0, static_cast<std::uint32_t>(payload.size()));
      break;
    }
    case 5: {  // JOIN of the wrong length, or with a name that is not EBCDIC A-Z 0-9 $ # @
      payload = random_payload(100);
      if (payload.size() == 68 || rng() % 2 == 0) {
        payload.resize(68);
        payload[0] = 0x00;
      }
      b = header_bytes(static_cast<std::uint8_t>(frame::frame_type::join), 0,
                       static_cast<std::uint32_t>(payload.size()));
      break;
    }
    case 6: {  // QUERY of the wrong length
      payload = random_payload(60);
      if (payload.size() == 24) payload.push_back(0x40);
      b = header_bytes(static_cast<std::uint8_t>(frame::frame_type::query), 0,
                       static_cast<std::uint32_t>(payload.size()));
      break;
    }
    default: {  // PING of the wrong length
      payload = random_payload(30);
      if (payload.size() == 8) payload.push_back(0);
      b = header_bytes(static_cast<std::uint8_t>(frame::frame_type::ping), 0,
                       static_cast<std::uint32_t>(payload.size()));
      break;
    }
  }
  b.insert(b.end(), payload.begin(), payload.end());
  return b;
}

TEST(XcfHostileInput, OversizedAndGarbageFramesAreRefusedWhileMembersCarryOn) {
  constexpr std::uint32_t max_message = 65536;
  temp_dir dir;
  hub_process hub(dir, {"--heartbeat-ms", "1000", "--max-message", std::to_string(max_message), "--log-level",
                        "warning"});

  // Two members exchange messages (up to 4 KiB) the whole time.
  duplex_exchange::settings settings;
  settings.count = 0;
  settings.max_size = 4096;
  settings.pace = std::chrono::microseconds(300);
  duplex_exchange exchange(settings);
  transport::tcp_service service(client_options(hub.endpoint()));
  auto a = service.join(join_as("IMSBGRP", "STEADY1"), exchange.handler(0));
  ASSERT_TRUE(a.code.ok());
  auto b = service.join(join_as("IMSBGRP", "STEADY2"), exchange.handler(1));
  ASSERT_TRUE(b.code.ok());
  // The exchange outlives a and b (declared first): a failed ASSERT below must stop its threads before
  // a and b go.
  const exchange_stopper stopper(exchange);
  exchange.start(*a.joined, *b.joined);

  // A header whose length is over --max-message: refused at the header (8/10), payload never read.
  EXPECT_EQ(
      expect_refused(hub.port(),
                     header_bytes(static_cast<std::uint8_t>(frame::frame_type::join), 0, max_message + 1),
                     xcf::codes::too_big),
      "");
  {  // ...also with bytes following, and after a valid PING on the same connection.
    raw_socket s(hub.port());
    bytes ping;
    ASSERT_TRUE(frame::encode(frame::frame_type::ping, 0, 5, frame::ping_payload{42}, ping));
    ASSERT_TRUE(s.write_all(ping));
    const auto pong = s.read_frame(milliseconds(5000));
    ASSERT_TRUE(pong);
    EXPECT_EQ(pong->head.type, frame::frame_type::pong);
    EXPECT_EQ(std::get<frame::ping_payload>(pong->body).nonce, 42u);
    bytes big = header_bytes(static_cast<std::uint8_t>(frame::frame_type::query), 0, 200000);
    big.resize(big.size() + 100000, 0x40);
    s.write_all(big);
    s.shutdown_write();
    bytes got;
    ASSERT_TRUE(s.read_until_close(got, milliseconds(10000)));
    frame::reader reader(frame::hard_max_payload);
    reader.feed(got);
    frame::decoded f;
    decode_error err;
    do {
      ASSERT_EQ(reader.next(f, err), frame::reader::status::frame);
    } while (f.head.type == frame::frame_type::ping);
    EXPECT_EQ(f.head.type, frame::frame_type::error);
  }

  std::mt19937_64 rng(20240917);
  int refused = 0;
  std::string first_problem;
  const std::uint64_t before[2] = {exchange.stats(0).delivered, exchange.stats(1).delivered};
  const auto started = steady::now();
  for (int i = 0; i < 1000; ++i) {
    const bytes junk = make_garbage(rng);
    const std::string problem = expect_refused(hub.port(), junk);
    if (problem.empty()) {
      ++refused;
    } else if (first_problem.empty()) {
      first_problem = "garbage #" + std::to_string(i) + " (" + to_hex(junk) + "): " + problem;
    }
  }
  const auto garbage_ms = std::chrono::duration_cast<milliseconds>(steady::now() - started).count();
  const std::uint64_t after[2] = {exchange.stats(0).delivered, exchange.stats(1).delivered};
  EXPECT_EQ(refused, 1000) << first_problem;
  std::cout << "[ timing   ] 1000 garbage connections in " << garbage_ms << " ms\n";
  // The members made progress during the attack, not only before or after it.
  for (int lane = 0; lane < 2; ++lane) {
    EXPECT_GT(after[lane], before[lane]) << "lane " << lane << " stood still during the attack";
    std::cout << "[ stats    ] lane " << lane << ": " << after[lane] - before[lane]
              << " delivered in order during the attack\n";
  }

  // The hub still answers: PING on a raw connection, and a status query.
  {
    raw_socket s(hub.port());
    bytes ping;
    ASSERT_TRUE(frame::encode(frame::frame_type::ping, 0, 9, frame::ping_payload{0xC0FFEE}, ping));
    ASSERT_TRUE(s.write_all(ping));
    const auto pong = s.read_frame(milliseconds(5000));
    ASSERT_TRUE(pong);
    EXPECT_EQ(std::get<frame::ping_payload>(pong->body).nonce, 0xC0FFEEu);
  }
  std::vector<xcf::member_info> members;
  ASSERT_EQ(service.query(members, "IMSBGRP"), xcf::codes::ok);
  EXPECT_EQ(members.size(), 2u);

  // Let the members run on for a while after the attack too.
  std::this_thread::sleep_for(milliseconds(500));
  exchange.finish();
  ASSERT_TRUE(exchange.wait_while_moving(milliseconds(10000), milliseconds(60000))) << exchange.error();
  exchange.stop();
  EXPECT_EQ(exchange.error(), "");
  for (int lane = 0; lane < 2; ++lane) {
    const auto st = exchange.stats(lane);
    EXPECT_GT(st.delivered, 100u) << "lane " << lane << " hardly ran";
    EXPECT_EQ(st.unanswered, 0u) << "lane " << lane;
  }
  // Neither member saw the other (or itself) fail or leave: the attack touched only its own connections.
  for (int side = 0; side < 2; ++side) {
    for (const auto& e : exchange.events(side)) {
      EXPECT_NE(e.kind, xcf::event_kind::failed) << "side " << side << ": " << e.member.name;
      EXPECT_NE(e.kind, xcf::event_kind::left) << "side " << side << ": " << e.member.name;
      EXPECT_NE(e.kind, xcf::event_kind::status_missing) << "side " << side << ": " << e.member.name;
    }
  }
  EXPECT_EQ(a.joined->leave(), xcf::codes::ok);
  EXPECT_EQ(b.joined->leave(), xcf::codes::ok);
}

}  // namespace
}  // namespace imsb::test
