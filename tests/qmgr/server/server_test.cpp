// The server (qmgr/src/server.cpp) with a real engine, and the client connection (client_connection.cpp)
// and connect() (connect.cpp) against it: bindings socket, TCP listener, bad frames, broken connections,
// logins and authorization.

#include "imsb/qmgr/server.hpp"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <pwd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <thread>

#include "held_log.hpp"
#include "imsb/core/messages.hpp"
#include "imsb/mq/constants.hpp"
#include "imsb/mqi/client_protocol.hpp"
#include "imsb/objects/mqsc_exec.hpp"
#include "imsb/qmgr/connect.hpp"
#include "imsb/qmgr/credentials.hpp"
#include "imsb/qmgr/queue_manager.hpp"
#include "imsb/qmgr/recovery_log.hpp"
#include "imsb/qmgr/store.hpp"
#include "process.hpp"

namespace imsb::qmgr {
namespace {

namespace wire = mqi::wire;

std::int32_t rc_of(const decode_error& e) { return static_cast<std::int32_t>(e.code.value()); }
std::string text_of(const bytes& b) { return std::string(b.begin(), b.end()); }

// The name the server gives this test program's OS user.
std::string test_user() {
  const passwd* pw = ::getpwuid(::geteuid());
  return pw != nullptr ? pw->pw_name : std::to_string(::geteuid());
}

class scoped_env {
 public:
  scoped_env(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value != nullptr) {
      ::setenv(name, value, 1);
    } else {
      ::unsetenv(name);
    }
  }
  ~scoped_env() {
    if (old_) {
      ::setenv(name_, old_->c_str(), 1);
    } else {
      ::unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

// Reads until the peer closes (true) or 10 s pass (false); what came is appended to `got`.
bool closed_by_peer(int fd, std::string* got = nullptr) {
  for (;;) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 10000) <= 0) return false;
    char buf[4096];
    auto n = ::recv(fd, buf, sizeof buf, 0);
    if (n == 0) return true;
    if (n < 0) return errno == ECONNRESET;
    if (got != nullptr) got->append(buf, static_cast<std::size_t>(n));
  }
}

class server_test : public ::testing::Test {
 protected:
  void SetUp() override {
    ::mkdir(tmp_.file("run").c_str(), 0700);
    objects::exec_context ctx{"2026-11-30", "01.00.00", false};
    auto cat = objects::new_queue_manager("QM1", names::fs_profile::posix, "", "", ctx);
    ASSERT_TRUE(cat.ok()) << cat.error().to_string();
    auto out = objects::run_script(*cat, "DEFINE QLOCAL(Q1)\nDEFINE QLOCAL(Q2)\n", ctx);
    ASSERT_EQ(out.exit_code(), 0);
    auto st = queue_manager_store::create(prefix(), *cat);
    ASSERT_TRUE(st.ok()) << st.error().to_string();
    store_.emplace(std::move(st).value());
    if (start_engine()) {
      start_qm();
      start_server();
    }
  }
  void TearDown() override {
    srv_.reset();
    qm_.reset();
  }
  virtual bool start_engine() { return true; }
  virtual bool os_administrators() { return true; }
  virtual void tweak(server_options&) {}

  std::string prefix() const { return tmp_.file("prefix"); }
  std::string error_log_path() const { return tmp_.file("AMQERR01.LOG"); }
  std::string credential_file() const { return tmp_.file("credentials"); }

  void start_qm() {
    auto lock = store_->try_lock();
    ASSERT_TRUE(lock.ok()) << lock.error().to_string();
    runtime_options o;
    o.log.fsync = false;
    o.error_log = error_log_path();
    auto qm = queue_manager::start(*store_, std::move(lock).value(), o);
    ASSERT_TRUE(qm.ok()) << qm.error().to_string();
    qm_ = std::move(qm).value();
  }
  void start_server() {
    server_options so;
    auto sock = bindings_socket_path(prefix(), "QM1");
    ASSERT_TRUE(sock.ok()) << sock.error().to_string();
    so.bindings_socket = *sock;
    so.credential_file = credential_file();
    so.os_administrators = os_administrators();
    tweak(so);
    auto srv = server::start(*qm_, so);
    ASSERT_TRUE(srv.ok()) << srv.error().to_string();
    srv_ = std::move(srv).value();
  }

  // The queue manager's own administrator, in-process.
  std::unique_ptr<mqi::connection> admin() {
    auto c = qm_->connect(principal{"admin", {}, true, "server_test"});
    EXPECT_TRUE(c.ok()) << c.error().to_string();
    return c.ok() ? std::move(c).value() : nullptr;
  }
  void mqsc(const std::string& script) {
    auto a = admin();
    auto r = a->mqsc(script);
    ASSERT_TRUE(r.ok()) << r.error().to_string();
    std::string all;
    for (const auto& l : r->lines) all += l + "\n";
    ASSERT_EQ(r->exit_code, 0) << all;
    last_mqsc_ = all;
  }

  result<std::unique_ptr<mqi::connection>> bindings() {
    connect_options o;
    o.target = "QM1";
    o.prefix = prefix();
    o.appl_name = "server_test";
    return connect(o);
  }
  result<std::unique_ptr<mqi::connection>> tcp(std::uint16_t port, const std::string& user,
                                               const std::string& password) {
    connect_options o;
    o.target = "QM1";
    o.mqserver = "SYSTEM.DEF.SVRCONN/TCP/127.0.0.1(" + std::to_string(port) + ")";
    o.user = user;
    o.password = password;
    return connect(o);
  }

  std::string error_log() const {
    std::ifstream in(error_log_path());
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
  }
  static std::size_t count(const std::string& text, std::string_view what) {
    std::size_t n = 0;
    for (auto p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
    return n;
  }

  // A plain TCP socket connected to 127.0.0.1:port, nothing sent.
  static int tcp_socket(std::uint16_t port) {
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0) << std::strerror(errno);
    return fd;
  }
  int raw_socket() {
    auto path = bindings_socket_path(prefix(), "QM1");
    int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, path->c_str(), sizeof addr.sun_path - 1);
    EXPECT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0) << std::strerror(errno);
    return fd;
  }

  // `n` connections through the bindings socket, each with `queue` open with `options` (fewer on a failure,
  // reported).
  void open_each(int n, const std::string& queue, std::int32_t options,
                 std::vector<std::unique_ptr<mqi::connection>>& conns, std::vector<mqi::hobj>& handles) {
    for (int i = 0; i < n; ++i) {
      auto c = bindings();
      ASSERT_TRUE(c.ok()) << c.error().to_string();
      auto h = (*c)->open({queue, ""}, options);
      ASSERT_TRUE(h.ok()) << h.error().to_string();
      handles.push_back(h->handle);
      conns.push_back(std::move(*c));
    }
  }

  static void put(mqi::connection& c, const std::string& q, const std::string& data, std::int32_t pmo) {
    auto h = c.open({q, ""}, mq::MQOO_OUTPUT);
    ASSERT_TRUE(h.ok()) << h.error().to_string();
    mq::mqmd md;
    auto r = c.put(h->handle, md, bytes_view::of(data), pmo);
    ASSERT_TRUE(r.ok()) << r.error().to_string();
    ASSERT_TRUE(c.close(h->handle).ok());
  }

  test::temp_dir tmp_;
  scoped_env runtime_{"IMSBRIDGE_RUNTIME_DIR", (tmp_.path() + "/run").c_str()};
  scoped_env mqserver_{"MQSERVER", nullptr};
  std::optional<queue_manager_store> store_;
  std::unique_ptr<queue_manager> qm_;
  std::unique_ptr<server> srv_;
  std::string last_mqsc_;
};

TEST_F(server_test, put_get_commit_through_the_bindings_socket) {
  auto c = bindings();
  ASSERT_TRUE(c.ok()) << c.error().to_string();
  auto& conn = **c;
  EXPECT_EQ(conn.qmgr_name(), "QM1");
  put(conn, "Q1", "first", mq::MQPMO_SYNCPOINT);

  // Not committed: another connection sees nothing.
  auto other = bindings();
  ASSERT_TRUE(other.ok());
  auto ho = (*other)->open({"Q1", ""}, mq::MQOO_INPUT_SHARED);
  ASSERT_TRUE(ho.ok()) << ho.error().to_string();
  mqi::get_request req;
  auto none = (*other)->get(ho->handle, req);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(rc_of(none.error()), mq::MQRC_NO_MSG_AVAILABLE);

  ASSERT_TRUE(conn.commit().ok());
  auto m = (*other)->get(ho->handle, req);
  ASSERT_TRUE(m.ok()) << m.error().to_string();
  EXPECT_EQ(text_of(m->data), "first");
  EXPECT_EQ(m->data_length, 5u);
  EXPECT_EQ(m->md.put_appl_name.substr(0, 11), "server_test");

  // An MQI error comes back with its MQRC and words, and the connection goes on.
  auto bad = conn.open({"NO.SUCH.Q", ""}, mq::MQOO_OUTPUT);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(rc_of(bad.error()), mq::MQRC_UNKNOWN_OBJECT_NAME);
  EXPECT_EQ(bad.error().field, "MQOPEN");

  // put1, inquire, inquire_objects and mqsc travel too.
  mq::mqmd md;
  ASSERT_TRUE(conn.put1({"Q2", ""}, md, bytes_view::of("p1"), mq::MQPMO_NO_SYNCPOINT).ok());
  auto hq = conn.open({"Q2", ""}, mq::MQOO_INQUIRE);
  ASSERT_TRUE(hq.ok()) << hq.error().to_string();
  auto st = mqi::inquire_queue(conn, hq->handle);
  ASSERT_TRUE(st.ok()) << st.error().to_string();
  EXPECT_EQ(st->current_depth, 1);
  auto objs = conn.inquire_objects("QLOCAL", "Q*");
  ASSERT_TRUE(objs.ok()) << objs.error().to_string();
  EXPECT_GE(objs->size(), 2u);
  auto reply = conn.mqsc("DISPLAY QLOCAL(Q2) CURDEPTH\n");
  ASSERT_TRUE(reply.ok()) << reply.error().to_string();
  EXPECT_FALSE(reply->lines.empty());

  ASSERT_TRUE(conn.disconnect().ok());
  auto after = conn.open({"Q1", ""}, mq::MQOO_OUTPUT);
  ASSERT_FALSE(after.ok());
  EXPECT_EQ(rc_of(after.error()), mq::MQRC_HCONN_ERROR);
}

TEST_F(server_test, a_wrong_queue_manager_name_is_refused) {
  // The socket of QM1 asked for QM2 (as a hash collision of two sockets would make it): 2058.
  int fd = raw_socket();
  bytes hello;
  wire::encode_request(wire::connect_request{"QM2", "", "", "raw"}, hello);
  ASSERT_EQ(::send(fd, hello.data(), hello.size(), MSG_NOSIGNAL), static_cast<ssize_t>(hello.size()));
  std::string got;
  EXPECT_TRUE(closed_by_peer(fd, &got));
  ::close(fd);
  bytes frame(got.begin(), got.end());
  auto d = wire::decode_response(frame, wire::frame_type::connect);
  ASSERT_TRUE(d.has_value());
  ASSERT_TRUE(d->ok()) << d->error().to_string();
  const auto* r = std::get_if<wire::connect_response>(&d->value().value);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->st.reason, mq::MQRC_Q_MGR_NAME_ERROR);
  EXPECT_NE(error_log().find(imsb::msg::IMB1203E), std::string::npos);

  // A queue manager that does not run: nothing answers on its socket.
  connect_options o;
  o.target = "QM2";
  o.prefix = prefix();
  auto missing = connect(o);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(rc_of(missing.error()), mq::MQRC_Q_MGR_NOT_AVAILABLE) << missing.error().to_string();
  EXPECT_NE(missing.error().detail.find(".sock"), std::string::npos);
}

TEST_F(server_test, bad_frames_close_the_connection_and_are_logged) {
  auto frame_header = [](const char* magic, std::uint32_t length, std::uint16_t type, std::uint16_t version) {
    std::string h(magic, 4);
    for (int s = 24; s >= 0; s -= 8) h += static_cast<char>((length >> s) & 0xff);
    h += static_cast<char>(type >> 8);
    h += static_cast<char>(type & 0xff);
    h += static_cast<char>(version >> 8);
    h += static_cast<char>(version & 0xff);
    return h;
  };
  bytes open_frame;
  wire::encode_request(wire::open_request{{"Q1", ""}, mq::MQOO_OUTPUT}, open_frame);
  struct bad_case {
    const char* what;
    std::string bytes;
  } cases[] = {
      {"bad magic", frame_header("IMQX", 0, 1, 1)},
      {"huge length", frame_header("IMQF", 0xFFFFFFFFu, 1, 1)},
      {"bad version", frame_header("IMQF", 0, 1, 99)},
      {"garbage body", frame_header("IMQF", 7, 1, 1) + "\xff\xff\xff\xffxyz"},
      {"connect not first", std::string(open_frame.begin(), open_frame.end())},
  };
  std::size_t logged = 0;
  for (const auto& bc : cases) {
    int fd = raw_socket();
    ASSERT_EQ(::send(fd, bc.bytes.data(), bc.bytes.size(), MSG_NOSIGNAL),
              static_cast<ssize_t>(bc.bytes.size()));
    std::string got;
    EXPECT_TRUE(closed_by_peer(fd, &got)) << bc.what;
    EXPECT_TRUE(got.empty()) << bc.what;
    ::close(fd);
    auto log = error_log();
    EXPECT_EQ(count(log, imsb::msg::IMB1200E), ++logged) << bc.what << "\n" << log;
    // Still serving.
    auto c = bindings();
    ASSERT_TRUE(c.ok()) << bc.what << ": " << c.error().to_string();
  }

  // A bad frame after a good connect, inside a unit of work: closed, and the put backed out.
  {
    auto c = bindings();
    ASSERT_TRUE(c.ok());
    put(**c, "Q1", "in flight", mq::MQPMO_SYNCPOINT);
    int fd = raw_socket();
    ::close(fd);
  }
  int fd = raw_socket();
  bytes hello;
  wire::encode_request(wire::connect_request{"QM1", "", "", "raw"}, hello);
  auto garbage = frame_header("IMQF", 3, 4, 1) + "abc";
  hello.insert(hello.end(), garbage.begin(), garbage.end());
  ASSERT_EQ(::send(fd, hello.data(), hello.size(), MSG_NOSIGNAL), static_cast<ssize_t>(hello.size()));
  std::string got;
  EXPECT_TRUE(closed_by_peer(fd, &got));
  EXPECT_FALSE(got.empty());  // the connect response came before the close
  ::close(fd);
  EXPECT_EQ(count(error_log(), imsb::msg::IMB1200E), logged + 1);
}

// An IBM MQ client (libmqic_r) or channel speaks IBM's protocol, which starts with a transmission segment
// header (TSHM from a client, TSH or TSHC from a channel) [C: WS-C]: one line that says so, not a frame
// error of ours, and the connection closed; the listener goes on serving.
TEST_F(server_test, an_ibm_mq_client_is_told_its_protocol_is_not_spoken) {
  auto port = srv_->start_listener("TEST.TCP", "127.0.0.1", 0);
  ASSERT_TRUE(port.ok()) << port.error().to_string();
  // An IBM client's first segment: TSHM, its length, conversation and request IDs, byte order 1 (big
  // endian), segment type 1 (initial data), then the rest of its 268-byte initial data.
  std::string tshm("TSHM\x00\x00\x01\x0c\x00\x00\x00\x00\x00\x00\x00\x00\x01\x01\x30\x00", 20);
  tshm += std::string(268 - tshm.size(), '\0');
  // A z/OS channel's: "TSH " in EBCDIC, on the bindings socket this time.
  const std::string ebcdic_tsh("\xE3\xE2\xC8\x40\x00\x00\x00\x1c\x01\x01\x30\x00", 12);
  std::size_t refused = 0;
  for (int round = 0; round < 2; ++round) {
    int fd = round == 0 ? tcp_socket(static_cast<std::uint16_t>(*port)) : raw_socket();
    const std::string& first = round == 0 ? tshm : ebcdic_tsh;
    ASSERT_EQ(::send(fd, first.data(), first.size(), MSG_NOSIGNAL), static_cast<ssize_t>(first.size()));
    std::string got;
    EXPECT_TRUE(closed_by_peer(fd, &got));
    EXPECT_TRUE(got.empty());
    ::close(fd);
    const std::string log = error_log();
    EXPECT_EQ(count(log, imsb::msg::IMB1208E), ++refused) << log;
    EXPECT_EQ(count(log, "IBM MQ client protocol is not supported; use libmqic_r from this project"), refused)
        << log;
    EXPECT_EQ(count(log, imsb::msg::IMB1200E), 0u) << log;
  }
  auto c = tcp(*port, "", "");  // still serving: an answer of ours (2035, no credentials), not a close
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(rc_of(c.error()), mq::MQRC_NOT_AUTHORIZED) << c.error().to_string();
  ASSERT_TRUE(bindings().ok());
}

TEST_F(server_test, a_client_that_goes_inside_a_unit_of_work_is_backed_out) {
  auto a = bindings();
  ASSERT_TRUE(a.ok());
  put(**a, "Q1", "precious", mq::MQPMO_NO_SYNCPOINT);
  {
    auto b = bindings();
    ASSERT_TRUE(b.ok());
    auto h = (*b)->open({"Q1", ""}, mq::MQOO_INPUT_SHARED);
    ASSERT_TRUE(h.ok());
    mqi::get_request req;
    req.options = mq::MQGMO_SYNCPOINT | mq::MQGMO_NO_WAIT;
    auto m = (*b)->get(h->handle, req);
    ASSERT_TRUE(m.ok()) << m.error().to_string();
    EXPECT_EQ(text_of(m->data), "precious");
    // b ends here without MQDISC: its socket closes.
  }
  auto h = (*a)->open({"Q1", ""}, mq::MQOO_INPUT_SHARED);
  ASSERT_TRUE(h.ok());
  mqi::get_request req;
  req.options = mq::MQGMO_WAIT | mq::MQGMO_NO_SYNCPOINT;
  req.wait_interval_ms = 10000;  // the server backs out when it sees the socket close
  auto m = (*a)->get(h->handle, req);
  ASSERT_TRUE(m.ok()) << m.error().to_string();
  EXPECT_EQ(text_of(m->data), "precious");
  EXPECT_EQ(m->md.backout_count, 1);
  EXPECT_EQ(count(error_log(), imsb::msg::IMB1202W), 1u) << error_log();
}

TEST_F(server_test, tcp_logins_are_checked_against_the_credential_file) {
  ASSERT_TRUE(credentials::set_password(credential_file(), "alice", "correct horse").ok());
  mqsc(
      "SET AUTHREC OBJTYPE(QMGR) PRINCIPAL('alice') AUTHADD(CONNECT)\n"
      "SET AUTHREC PROFILE(Q1) OBJTYPE(QUEUE) PRINCIPAL('alice') AUTHADD(PUT,GET)\n");
  auto port = srv_->start_listener("TEST.TCP", "127.0.0.1", 0);
  ASSERT_TRUE(port.ok()) << port.error().to_string();
  ASSERT_NE(*port, 0);

  auto wrong = tcp(*port, "alice", "battery staple");
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(rc_of(wrong.error()), mq::MQRC_NOT_AUTHORIZED) << wrong.error().to_string();
  auto unknown = tcp(*port, "mallory", "correct horse");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(rc_of(unknown.error()), mq::MQRC_NOT_AUTHORIZED);
  auto none = tcp(*port, "alice", "");
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(rc_of(none.error()), mq::MQRC_NOT_AUTHORIZED);
  auto log = error_log();
  EXPECT_EQ(count(log, imsb::msg::IMB1201E), 3u) << log;
  EXPECT_NE(log.find("user 'alice' from 127.0.0.1("), std::string::npos) << log;
  EXPECT_EQ(log.find("battery staple"), std::string::npos);  // never a password in the log

  auto ok = tcp(*port, "alice", "correct horse");
  ASSERT_TRUE(ok.ok()) << ok.error().to_string();
  put(**ok, "Q1", "over tcp", mq::MQPMO_NO_SYNCPOINT);
  auto h = (*ok)->open({"Q1", ""}, mq::MQOO_INPUT_SHARED);
  ASSERT_TRUE(h.ok());
  auto m = (*ok)->get(h->handle, mqi::get_request{});
  ASSERT_TRUE(m.ok()) << m.error().to_string();
  EXPECT_EQ(text_of(m->data), "over tcp");
  EXPECT_EQ(m->md.user_identifier.substr(0, 5), "alice");

  // Q2: no authority for alice.
  auto refused = (*ok)->open({"Q2", ""}, mq::MQOO_OUTPUT);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(rc_of(refused.error()), mq::MQRC_NOT_AUTHORIZED);
  EXPECT_GE(count(error_log(), imsb::msg::IMB1180E), 1u);

  ASSERT_TRUE(srv_->stop_listener("TEST.TCP").ok());
  EXPECT_TRUE(srv_->listeners().empty());
  auto gone = tcp(*port, "alice", "correct horse");
  ASSERT_FALSE(gone.ok());
  EXPECT_EQ(rc_of(gone.error()), mq::MQRC_Q_MGR_NOT_AVAILABLE) << gone.error().to_string();
  // The connection the listener accepted goes on.
  put(**ok, "Q1", "still here", mq::MQPMO_NO_SYNCPOINT);
}

TEST_F(server_test, start_and_stop_listener_commands) {
  mqsc("DEFINE LISTENER(L.TEST) TRPTYPE(TCP) PORT(0) IPADDR('127.0.0.1')\nSTART LISTENER(L.TEST)\n");
  EXPECT_NE(last_mqsc_.find(imsb::msg::IMB1204I), std::string::npos) << last_mqsc_;
  auto ls = srv_->listeners();
  ASSERT_EQ(ls.size(), 1u);
  EXPECT_EQ(ls[0].name, "L.TEST");
  EXPECT_EQ(ls[0].address, "127.0.0.1");
  EXPECT_NE(ls[0].port, 0);
  auto refused = tcp(ls[0].port, "nobody", "x");  // something answers there
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(rc_of(refused.error()), mq::MQRC_NOT_AUTHORIZED);

  auto a = admin();
  auto again = a->mqsc("START LISTENER(L.TEST)\n");
  ASSERT_TRUE(again.ok());
  EXPECT_NE(again->exit_code, 0);
  mqsc("STOP LISTENER(L.TEST)\n");
  EXPECT_NE(last_mqsc_.find(imsb::msg::IMB1205I), std::string::npos) << last_mqsc_;
  EXPECT_TRUE(srv_->listeners().empty());
  auto missing = a->mqsc("START LISTENER(NO.SUCH)\n");
  ASSERT_TRUE(missing.ok());
  EXPECT_NE(missing->exit_code, 0);
}

TEST_F(server_test, a_second_server_on_a_live_socket_is_refused) {
  server_options so;
  so.bindings_socket = *bindings_socket_path(prefix(), "QM1");
  auto second = server::start(*qm_, so);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.error().code, std::errc::address_in_use);
}

TEST_F(server_test, stop_breaks_connections) {
  auto c = bindings();
  ASSERT_TRUE(c.ok());
  put(**c, "Q1", "uncommitted", mq::MQPMO_SYNCPOINT);
  srv_->stop();
  auto h = (*c)->open({"Q1", ""}, mq::MQOO_OUTPUT);
  ASSERT_FALSE(h.ok());
  EXPECT_EQ(rc_of(h.error()), mq::MQRC_CONNECTION_BROKEN);
  auto again = (*c)->commit();
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(rc_of(again.error()), mq::MQRC_CONNECTION_BROKEN);
  auto a = admin();
  auto hq = a->open({"Q1", ""}, mq::MQOO_INQUIRE);
  ASSERT_TRUE(hq.ok());
  EXPECT_EQ(mqi::inquire_queue(*a, hq->handle)->current_depth, 0);  // the put was backed out
  auto none = bindings();
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(rc_of(none.error()), mq::MQRC_Q_MGR_NOT_AVAILABLE);
}

// The bindings user as an ordinary user: the server's os_administrators option off, so that the test's
// own user (the daemon's) is not an administrator and AUTHREC applies.
class server_user_test : public server_test {
 protected:
  bool os_administrators() override { return false; }
};

TEST_F(server_user_test, unauthorized_put_and_get_are_refused_and_logged) {
  auto refused = bindings();
  ASSERT_FALSE(refused.ok());  // no CONNECT yet
  EXPECT_EQ(rc_of(refused.error()), mq::MQRC_NOT_AUTHORIZED) << refused.error().to_string();

  // The OS user, as the server names it.
  mqsc("SET AUTHREC OBJTYPE(QMGR) PRINCIPAL('" + test_user() +
       "') AUTHADD(CONNECT)\n"
       "SET AUTHREC PROFILE(Q1) OBJTYPE(QUEUE) PRINCIPAL('someoneelse') AUTHADD(PUT,GET)\n");
  auto c = bindings();
  ASSERT_TRUE(c.ok()) << c.error().to_string();
  std::size_t before = count(error_log(), imsb::msg::IMB1180E);
  auto put_open = (*c)->open({"Q1", ""}, mq::MQOO_OUTPUT);
  ASSERT_FALSE(put_open.ok());
  EXPECT_EQ(rc_of(put_open.error()), mq::MQRC_NOT_AUTHORIZED);
  mq::mqmd md;
  auto put1 = (*c)->put1({"Q1", ""}, md, bytes_view::of("x"), mq::MQPMO_NO_SYNCPOINT);
  ASSERT_FALSE(put1.ok());
  EXPECT_EQ(rc_of(put1.error()), mq::MQRC_NOT_AUTHORIZED);
  auto get_open = (*c)->open({"Q1", ""}, mq::MQOO_INPUT_SHARED);
  ASSERT_FALSE(get_open.ok());
  EXPECT_EQ(rc_of(get_open.error()), mq::MQRC_NOT_AUTHORIZED);
  auto log = error_log();
  EXPECT_GE(count(log, imsb::msg::IMB1180E), before + 3) << log;
  EXPECT_NE(log.find(test_user()), std::string::npos);
}

// connect("local:QM1"): the queue manager inside the test program, still serving its bindings socket.
class local_connect_test : public server_test {
 protected:
  bool start_engine() override { return false; }
};

TEST_F(local_connect_test, in_process_queue_manager_serves_its_socket_and_holds_its_lock) {
  connect_options o;
  o.target = "local:QM1";
  o.prefix = prefix();
  auto a = connect(o);
  ASSERT_TRUE(a.ok()) << a.error().to_string();
  EXPECT_TRUE(store_->locked_by_other());
  auto b = connect(o);  // the same queue manager
  ASSERT_TRUE(b.ok()) << b.error().to_string();
  put(**a, "Q1", "local", mq::MQPMO_NO_SYNCPOINT);
  auto over_socket = bindings();
  ASSERT_TRUE(over_socket.ok()) << over_socket.error().to_string();
  auto h = (*over_socket)->open({"Q1", ""}, mq::MQOO_INPUT_SHARED);
  ASSERT_TRUE(h.ok());
  auto m = (*over_socket)->get(h->handle, mqi::get_request{});
  ASSERT_TRUE(m.ok()) << m.error().to_string();
  EXPECT_EQ(text_of(m->data), "local");
  over_socket->reset();
  a->reset();
  EXPECT_TRUE(store_->locked_by_other());
  b->reset();  // the last one ends the queue manager
  EXPECT_FALSE(store_->locked_by_other());
  auto none = bindings();
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(rc_of(none.error()), mq::MQRC_Q_MGR_NOT_AVAILABLE);
}

TEST_F(local_connect_test, default_queue_manager_is_the_only_one) {
  connect_options o;
  o.target = "local:";
  o.prefix = prefix();
  auto a = connect(o);
  ASSERT_TRUE(a.ok()) << a.error().to_string();
  EXPECT_EQ((*a)->qmgr_name(), "QM1");
}

}  // namespace
}  // namespace imsb::qmgr

namespace imsb::qmgr {
namespace {

// TLS listeners: certificates made with the openssl command (skipped where there is none).
class server_tls_test : public server_test {
 protected:
  bool make_certs() {
    if (std::system("openssl version >/dev/null 2>&1") != 0) return false;
    const std::string d = tmp_.path();
    std::ofstream(d + "/san.ext") << "subjectAltName=IP:127.0.0.1\n";
    std::string ec = " -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes ";
    std::string cmd =
        "cd " + d + " && openssl req -x509" + ec + "-keyout ca.key -out ca.crt -subj /CN=test-ca -days 2" +
        " && openssl req" + ec + "-keyout srv.key -out srv.csr -subj /CN=server" +
        " && openssl x509 -req -in srv.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out srv.crt -days 2"
        " -extfile san.ext" +
        " && openssl req" + ec + "-keyout alice.key -out alice.csr -subj /CN=alice" +
        " && openssl x509 -req -in alice.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out alice.crt -days 2";
    return std::system(("(" + cmd + ") >/dev/null 2>&1").c_str()) == 0;
  }
  void restart_with_tls() {
    srv_.reset();
    server_options so;
    so.bindings_socket = *bindings_socket_path(prefix(), "QM1");
    so.credential_file = credential_file();
    so.tls = {true, tmp_.file("ca.crt"), tmp_.file("srv.crt"), tmp_.file("srv.key")};
    auto srv = server::start(*qm_, so);
    ASSERT_TRUE(srv.ok()) << srv.error().to_string();
    srv_ = std::move(srv).value();
  }
  result<std::unique_ptr<mqi::connection>> tls_client(std::uint16_t port, const std::string& user,
                                                      const std::string& password, bool with_cert) {
    connect_options o;
    o.target = "QM1";
    o.mqserver = "SYSTEM.DEF.SVRCONN/TCP/127.0.0.1(" + std::to_string(port) + ")";
    o.user = user;
    o.password = password;
    o.tls.enabled = true;
    o.tls.ca_file = tmp_.file("ca.crt");
    if (with_cert) {
      o.tls.cert_file = tmp_.file("alice.crt");
      o.tls.key_file = tmp_.file("alice.key");
    }
    return connect(o);
  }
};

TEST_F(server_tls_test, client_certificate_or_password_over_tls) {
  if (!make_certs()) GTEST_SKIP() << "no openssl command to make test certificates";
  restart_with_tls();
  ASSERT_TRUE(credentials::set_password(credential_file(), "bob", "pw").ok());
  mqsc(
      "SET AUTHREC OBJTYPE(QMGR) PRINCIPAL('alice') AUTHADD(CONNECT)\n"
      "SET AUTHREC OBJTYPE(QMGR) PRINCIPAL('bob') AUTHADD(CONNECT)\n"
      "SET AUTHREC PROFILE(Q1) OBJTYPE(QUEUE) PRINCIPAL('alice') AUTHADD(PUT)\n");
  auto port = srv_->start_listener("TLS", "127.0.0.1", 0);
  ASSERT_TRUE(port.ok()) << port.error().to_string();

  auto alice = tls_client(*port, "", "", true);  // the certificate's CN is the user
  ASSERT_TRUE(alice.ok()) << alice.error().to_string();
  put(**alice, "Q1", "signed", mq::MQPMO_NO_SYNCPOINT);
  auto a = admin();
  auto h = a->open({"Q1", ""}, mq::MQOO_INPUT_SHARED);
  ASSERT_TRUE(h.ok());
  auto m = a->get(h->handle, mqi::get_request{});
  ASSERT_TRUE(m.ok()) << m.error().to_string();
  EXPECT_EQ(m->md.user_identifier.substr(0, 6), "alice ");

  auto bob = tls_client(*port, "bob", "pw", false);
  ASSERT_TRUE(bob.ok()) << bob.error().to_string();
  auto bob_wrong = tls_client(*port, "bob", "nope", false);
  ASSERT_FALSE(bob_wrong.ok());
  EXPECT_EQ(rc_of(bob_wrong.error()), mq::MQRC_NOT_AUTHORIZED);
  // A certificate does not make its holder someone else.
  auto not_bob = tls_client(*port, "bob", "", true);
  ASSERT_FALSE(not_bob.ok());
  EXPECT_EQ(rc_of(not_bob.error()), mq::MQRC_NOT_AUTHORIZED);

  // A plain client on a TLS listener: no MQI, and the server logs the failed handshake.
  auto plain = tcp(*port, "bob", "pw");
  ASSERT_FALSE(plain.ok());
  EXPECT_NE(error_log().find(imsb::msg::IMB1203E), std::string::npos) << error_log();
}

TEST_F(server_tls_test, a_consumer_over_tls_is_woken_by_a_put_and_by_mqctl) {
  // MQCB over TLS: the dispatcher's wait is ended by a put (the server's answer) and by MQCTL SUSPEND
  // and STOP from this thread (the wake frame, written by the dispatcher's own thread: one thread uses
  // the SSL at a time).
  if (!make_certs()) GTEST_SKIP() << "no openssl command to make test certificates";
  restart_with_tls();
  ASSERT_TRUE(credentials::set_password(credential_file(), "bob", "pw").ok());
  mqsc(
      "SET AUTHREC OBJTYPE(QMGR) PRINCIPAL('bob') AUTHADD(CONNECT)\n"
      "SET AUTHREC PROFILE(Q1) OBJTYPE(QUEUE) PRINCIPAL('bob') AUTHADD(GET,PUT)\n");
  auto port = srv_->start_listener("TLS", "127.0.0.1", 0);
  ASSERT_TRUE(port.ok()) << port.error().to_string();
  auto bob = tls_client(*port, "bob", "pw", false);
  ASSERT_TRUE(bob.ok()) << bob.error().to_string();
  auto h = (*bob)->open({"Q1", ""}, mq::MQOO_INPUT_SHARED);
  ASSERT_TRUE(h.ok()) << h.error().to_string();
  std::mutex mu;
  std::condition_variable cv;
  std::vector<std::string> got;
  mqi::callback_descriptor cbd;
  cbd.function = [&](mqi::connection&, const mqi::message* m, const mqi::callback_context&) {
    const std::lock_guard<std::mutex> lock(mu);
    if (m != nullptr) got.push_back(text_of(m->data));
    cv.notify_all();
  };
  ASSERT_TRUE((*bob)->callback(mq::MQOP_REGISTER, cbd, h->handle, mqi::get_request{}).ok());
  ASSERT_TRUE((*bob)->control(mq::MQOP_START).ok());
  auto a = admin();
  auto wait_for = [&](std::size_t n) {
    std::unique_lock<std::mutex> lock(mu);
    return cv.wait_for(lock, std::chrono::seconds(10), [&] { return got.size() >= n; });
  };
  put(*a, "Q1", "first", mq::MQPMO_NO_SYNCPOINT);
  ASSERT_TRUE(wait_for(1));
  ASSERT_TRUE((*bob)->control(mq::MQOP_SUSPEND).ok());
  put(*a, "Q1", "second", mq::MQPMO_NO_SYNCPOINT);
  ASSERT_TRUE((*bob)->control(mq::MQOP_RESUME).ok());
  ASSERT_TRUE(wait_for(2));
  ASSERT_TRUE((*bob)->control(mq::MQOP_STOP).ok());
  // The stream is in step after the wake frames: plain calls work on.
  put(**bob, "Q1", "third", mq::MQPMO_NO_SYNCPOINT);
  auto m = (*bob)->get(h->handle, mqi::get_request{});
  ASSERT_TRUE(m.ok()) << m.error().to_string();
  EXPECT_EQ(text_of(m->data), "third");
  EXPECT_EQ(got, (std::vector<std::string>{"first", "second"}));
  EXPECT_TRUE((*bob)->disconnect().ok());
}

}  // namespace
}  // namespace imsb::qmgr

namespace imsb::qmgr {
namespace {

TEST_F(server_test, a_large_message_travels_whole) {
  mqsc("ALTER QLOCAL(Q1) MAXMSGL(8388608)\nALTER QMGR MAXMSGL(8388608)\n");
  std::string big(3 * 1024 * 1024 + 17, '\0');
  for (std::size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>(i * 7 + i / 4096);
  auto c = bindings();
  ASSERT_TRUE(c.ok()) << c.error().to_string();
  put(**c, "Q1", big, mq::MQPMO_NO_SYNCPOINT);
  auto h = (*c)->open({"Q1", ""}, mq::MQOO_INPUT_SHARED);
  ASSERT_TRUE(h.ok());
  auto m = (*c)->get(h->handle, mqi::get_request{});
  ASSERT_TRUE(m.ok()) << m.error().to_string();
  EXPECT_EQ(m->data_length, big.size());
  EXPECT_TRUE(text_of(m->data) == big);
}

}  // namespace
}  // namespace imsb::qmgr

namespace imsb::qmgr {
namespace {

class server_limits_test : public server_test {
 protected:
  void tweak(server_options& so) override {
    so.max_connections = 1;
    so.login_timeout_ms = 300;
  }
};

TEST_F(server_limits_test, connection_limit_and_login_timeout) {
  auto first = bindings();
  ASSERT_TRUE(first.ok()) << first.error().to_string();
  auto second = bindings();
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(rc_of(second.error()), mq::MQRC_MAX_CONNS_LIMIT_REACHED) << second.error().to_string();
  ASSERT_TRUE((*first)->disconnect().ok());
  first->reset();

  // A peer that never sends its connect frame is closed after the login timeout... (The first
  // connection's session may not have ended yet when disconnect() returns: until it has, a new
  // socket is refused at once by the limit of 1, so try again until one is accepted.)
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (error_log().find("login timeout") == std::string::npos && std::chrono::steady_clock::now() < until) {
    int fd = raw_socket();
    EXPECT_TRUE(closed_by_peer(fd));
    ::close(fd);
  }
  EXPECT_NE(error_log().find("login timeout"), std::string::npos) << error_log();
  // ...while a logged-in connection may wait longer than that in a get.
  auto c = bindings();
  ASSERT_TRUE(c.ok()) << c.error().to_string();
  auto h = (*c)->open({"Q1", ""}, mq::MQOO_INPUT_SHARED);
  ASSERT_TRUE(h.ok());
  mqi::get_request req;
  req.options = mq::MQGMO_WAIT | mq::MQGMO_NO_SYNCPOINT;
  req.wait_interval_ms = 600;
  auto m = (*c)->get(h->handle, req);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(rc_of(m.error()), mq::MQRC_NO_MSG_AVAILABLE) << m.error().to_string();
}

}  // namespace
}  // namespace imsb::qmgr

namespace imsb::qmgr {
namespace {

std::string be32(std::uint32_t v) {
  std::string out;
  for (int s = 24; s >= 0; s -= 8) out += static_cast<char>((v >> s) & 0xff);
  return out;
}
std::string raw_connect_frame(const std::string& qmgr_name) {
  std::string body =
      be32(static_cast<std::uint32_t>(qmgr_name.size())) + qmgr_name + be32(0) + be32(0) + be32(1) + "x";
  return "IMQF" + be32(static_cast<std::uint32_t>(body.size())) + std::string("\0\1\0\1", 4) + body;
}
std::size_t thread_count() {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator("/proc/self/task")) ++n;
  return n;
}

// An unauthenticated peer cannot fill the error log. The connect frame's body is capped
// before it is read, and a peer's strings are cut and escaped in log lines.
TEST_F(server_test, a_huge_connect_frame_cannot_fill_the_log) {
  auto before = error_log().size();
  int fd = raw_socket();
  timeval tv{3, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  auto frame = raw_connect_frame(std::string(2 * 1024 * 1024, 'Q'));
  (void)::send(fd, frame.data(), frame.size(), MSG_NOSIGNAL);  // the server may close before it all goes
  EXPECT_TRUE(closed_by_peer(fd));
  ::close(fd);
  auto log = error_log();
  EXPECT_LT(log.size() - before, 4096u);
  EXPECT_EQ(count(log, imsb::msg::IMB1200E), 1u) << log.substr(0, 2000);

  // A small frame with a forged line and a long name: one line, escaped, cut.
  fd = raw_socket();
  frame = raw_connect_frame(
      "EVIL\nIMB"
      "9999E: forged" +
      std::string(200, 'A'));  // split: not a real ID
  ASSERT_EQ(::send(fd, frame.data(), frame.size(), MSG_NOSIGNAL), static_cast<ssize_t>(frame.size()));
  EXPECT_TRUE(closed_by_peer(fd));
  ::close(fd);
  log = error_log();
  EXPECT_EQ(log.find("\nIMB"
                     "9999E"),
            std::string::npos)
      << log;
  EXPECT_NE(log.find("EVIL\\x0aIMB"
                     "9999E"),
            std::string::npos)
      << log;
  EXPECT_EQ(log.find(std::string(100, 'A')), std::string::npos) << log;
  ASSERT_TRUE(bindings().ok());
}

// A request the protocol cannot carry is refused before anything is sent.
TEST_F(server_test, a_request_the_protocol_refuses_is_not_sent) {
  auto c = bindings();
  ASSERT_TRUE(c.ok()) << c.error().to_string();
  auto h = (*c)->open({"Q1", ""}, mq::MQOO_OUTPUT);
  ASSERT_TRUE(h.ok());
  mq::mqmd md;
  md.version = 3;
  auto r = (*c)->put(h->handle, md, bytes_view::of(std::string("x")), mq::MQPMO_NO_SYNCPOINT);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(rc_of(r.error()), mq::MQRC_MD_ERROR) << r.error().to_string();
  put(**c, "Q1", "still connected", mq::MQPMO_NO_SYNCPOINT);
}

// Over TCP nobody administers implicitly, not even the daemon's own user name.
TEST_F(server_test, a_tcp_login_as_the_daemons_user_is_not_an_administrator) {
  auto me = test_user();
  ASSERT_TRUE(credentials::set_password(credential_file(), me, "pw").ok());
  mqsc("SET AUTHREC OBJTYPE(QMGR) PRINCIPAL('" + me + "') AUTHADD(CONNECT)\n");
  auto port = srv_->start_listener("TEST.TCP", "127.0.0.1", 0);
  ASSERT_TRUE(port.ok()) << port.error().to_string();
  auto c = tcp(*port, me, "pw");
  ASSERT_TRUE(c.ok()) << c.error().to_string();
  auto r = (*c)->mqsc("DISPLAY QMGR\n");
  ASSERT_FALSE(r.ok() && r->exit_code == 0) << "MQSC ran for a TCP user without CTRL";
  if (!r.ok()) {
    EXPECT_EQ(rc_of(r.error()), mq::MQRC_NOT_AUTHORIZED) << r.error().to_string();
  }
  // Bindings, the same user: an administrator (os_administrators).
  auto b = bindings();
  ASSERT_TRUE(b.ok());
  auto rb = (*b)->mqsc("DISPLAY QMGR\n");
  ASSERT_TRUE(rb.ok()) << rb.error().to_string();
  EXPECT_EQ(rb->exit_code, 0);
}

// A fake queue manager on a loopback port: it answers the connect frame, then `after_hello(fd)` decides
// what the client hears; the port is returned, the thread runs until after_hello returns.
struct fake_qmgr {
  int lfd = -1;
  std::uint16_t port = 0;
  std::thread t;
  explicit fake_qmgr(std::function<void(int)> after_hello) {
    lfd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::bind(lfd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(lfd, 4) != 0) return;
    socklen_t len = sizeof addr;
    ::getsockname(lfd, reinterpret_cast<sockaddr*>(&addr), &len);
    port = ntohs(addr.sin_port);
    t = std::thread([this, after_hello] {
      int fd = ::accept(lfd, nullptr, nullptr);
      if (fd < 0) return;
      std::uint8_t header[12];
      std::size_t got = 0;
      while (got < sizeof header) {
        auto n = ::recv(fd, header + got, sizeof header - got, 0);
        if (n <= 0) break;
        got += static_cast<std::size_t>(n);
      }
      std::size_t body = (std::size_t{header[4]} << 24) | (std::size_t{header[5]} << 16) |
                         (std::size_t{header[6]} << 8) | header[7];
      std::vector<char> skip(body);
      got = 0;
      while (got < body) {
        auto n = ::recv(fd, skip.data() + got, body - got, 0);
        if (n <= 0) break;
        got += static_cast<std::size_t>(n);
      }
      wire::connect_response hello;
      hello.qmgr_name = "QM1";
      hello.user = "alice";
      bytes out;
      wire::encode_response(wire::frame_type::connect, hello, out);
      (void)::send(fd, out.data(), out.size(), MSG_NOSIGNAL);
      after_hello(fd);
      ::close(fd);
    });
  }
  ~fake_qmgr() {
    if (t.joinable()) t.join();
    ::close(lfd);
  }
};

// Reads and drops until the client gives up (or 5 s, so that a client without a deadline fails the test
// instead of hanging it); every `drip` (if set), one byte of an answer's header meanwhile.
void drain(int fd, std::optional<std::chrono::milliseconds> drip = std::nullopt) {
  const std::uint8_t header[12] = {'I', 'M', 'Q', 'F', 0, 0, 0, 0, 0, 0, 0, 0};
  std::size_t dripped = 0;
  for (;;) {
    pollfd p{fd, POLLIN, 0};
    const int r = ::poll(&p, 1, drip ? static_cast<int>(drip->count()) : 5000);
    if (r < 0) break;
    if (r == 0) {
      if (!drip || dripped >= sizeof header - 1) break;  // never the whole header
      if (::send(fd, header + dripped++, 1, MSG_NOSIGNAL) != 1) break;
      continue;
    }
    char buf[4096];
    if (::recv(fd, buf, sizeof buf, 0) <= 0) break;
  }
}

// A call on `c`, connected to a fake_qmgr (IMSB_CLIENT_CALL_TIMEOUT_MS 400), answers
// MQRC_CONNECTION_BROKEN after the margin and before `at_most`.
void expect_broken_after_the_margin(mqi::connection& c, std::chrono::milliseconds at_most) {
  auto t0 = std::chrono::steady_clock::now();
  mq::mqmd md;
  auto r = c.put1({"Q1", ""}, md, bytes_view::of(std::string("x")), mq::MQPMO_NO_SYNCPOINT);
  auto took = std::chrono::steady_clock::now() - t0;
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(rc_of(r.error()), mq::MQRC_CONNECTION_BROKEN) << r.error().to_string();
  EXPECT_LT(took, at_most);
  EXPECT_GE(took, std::chrono::milliseconds(350));
}

// A queue manager that stops answering after connect: the call returns
// MQRC_CONNECTION_BROKEN after the call margin instead of blocking for ever.
TEST_F(server_test, a_call_the_server_never_answers_breaks_after_the_margin) {
  scoped_env margin{"IMSB_CLIENT_CALL_TIMEOUT_MS", "400"};
  fake_qmgr fake([](int fd) { drain(fd); });
  ASSERT_NE(fake.port, 0);
  auto c = tcp(fake.port, "alice", "pw");
  ASSERT_TRUE(c.ok()) << c.error().to_string();
  expect_broken_after_the_margin(**c, std::chrono::milliseconds(3000));
  c->reset();
}

// One deadline for the whole call, however the answer drips: a byte every 100 ms (each read the
// client's socket makes gets one) still ends the call at its margin, not one margin after the last byte.
TEST_F(server_test, an_answer_that_drips_still_breaks_at_the_margin) {
  scoped_env margin{"IMSB_CLIENT_CALL_TIMEOUT_MS", "400"};
  fake_qmgr fake([](int fd) { drain(fd, std::chrono::milliseconds(100)); });
  // 11 bytes at 100 ms would take 1.1 s: a deadline renewed by each byte would end later still.
  ASSERT_NE(fake.port, 0);
  auto c = tcp(fake.port, "alice", "pw");
  ASSERT_TRUE(c.ok()) << c.error().to_string();
  expect_broken_after_the_margin(**c, std::chrono::milliseconds(1000));
  c->reset();
}

class server_login_limits_test : public server_test {
 protected:
  void tweak(server_options& so) override {
    so.max_connections = 4;
    so.max_login_pending = 2;
    so.login_timeout_ms = 20000;  // long: the pending limit, not the timeout, must shed the silent sockets
  }
};

// Silent sockets hold no thread, at most max_login_pending slots, and lock nobody out.
TEST_F(server_login_limits_test, silent_sockets_cannot_lock_out_a_real_user) {
  auto threads_before = thread_count();
  std::vector<int> silent;
  for (int i = 0; i < 10; ++i) silent.push_back(raw_socket());
  auto c = bindings();  // accepted after the ten
  ASSERT_TRUE(c.ok()) << c.error().to_string();
  put(**c, "Q1", "got in", mq::MQPMO_NO_SYNCPOINT);
  // Evicted connections end on their own: await the bound, don't sleep.
  auto bound = threads_before + 2 + 1;
  auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (thread_count() > bound && std::chrono::steady_clock::now() < until) std::this_thread::yield();
  EXPECT_LE(thread_count(), bound);
  std::size_t closed = 0;
  for (int fd : silent) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 0) == 1) ++closed;
    ::close(fd);
  }
  EXPECT_GE(closed, 8u);
  EXPECT_LE(count(error_log(), imsb::msg::IMB1203E), 2u) << error_log();  // once per burst, not per socket
}

// A silent peer, over TCP and over the bindings socket, sees its connection closed only after the session
// was counted out and its line logged: the next one, opened the moment the close is seen, is let in (the
// limit is 1) and finds the line there. A refused one would get an answer (MQRC 2025) before the close.
TEST_F(server_limits_test, a_silent_peer_sees_the_close_only_after_the_line_and_the_room) {
  auto port = srv_->start_listener("TCP", "127.0.0.1", 0);
  ASSERT_TRUE(port.ok()) << port.error().to_string();
  for (int round = 0; round < 6; ++round) {
    const int fd = round % 2 == 0 ? tcp_socket(static_cast<std::uint16_t>(*port)) : raw_socket();
    std::string answer;
    ASSERT_TRUE(closed_by_peer(fd, &answer)) << "round " << round;
    ::close(fd);
    EXPECT_EQ(answer.size(), 0U) << "round " << round << ": refused, the one before still counted";
    EXPECT_EQ(count(error_log(), "login timeout"), static_cast<std::size_t>(round + 1))
        << "round " << round << "\n"
        << error_log();
  }
}

// One login deadline, not one per read: a peer dripping a byte at a time is closed.
TEST_F(server_limits_test, a_dripping_peer_is_closed_at_the_login_deadline) {
  int fd = raw_socket();
  std::string header = "IMQF" + be32(100) + std::string("\0\1\0\1", 4);
  ASSERT_EQ(::send(fd, header.data(), header.size(), MSG_NOSIGNAL), 12);
  auto t0 = std::chrono::steady_clock::now();
  bool closed = false;
  while (std::chrono::steady_clock::now() - t0 < std::chrono::seconds(3)) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 200) == 1) {
      char b;
      if (::recv(fd, &b, 1, 0) <= 0) {
        closed = true;
        break;
      }
    }
    if (::send(fd, "\0", 1, MSG_NOSIGNAL) != 1) {
      closed = true;
      break;
    }
  }
  auto took = std::chrono::steady_clock::now() - t0;
  ::close(fd);
  EXPECT_TRUE(closed);
  EXPECT_LT(took, std::chrono::milliseconds(1200));
}

}  // namespace
}  // namespace imsb::qmgr

namespace imsb::qmgr {
namespace {

// Gets that wait without limit hold a runner each, never the sockets: the other connections — one
// of them the putter that ends the waits, logging in after they began — are served meanwhile, on every
// io_context of the server (qmgr/src/server.cpp "the runners"). With the hand-over broken, the putter's
// login or puts would wait behind the waits and the test would time out.
TEST_F(server_test, gets_that_wait_do_not_hold_up_the_other_connections) {
  constexpr int waiters = 8;
  std::vector<std::unique_ptr<mqi::connection>> conns;
  std::vector<mqi::hobj> handles;
  open_each(waiters, "Q1", mq::MQOO_INPUT_SHARED, conns, handles);
  ASSERT_EQ(conns.size(), static_cast<std::size_t>(waiters));
  std::atomic<int> got{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < waiters; ++i) {
    threads.emplace_back([&, i] {
      mqi::get_request req;
      req.options = mq::MQGMO_WAIT | mq::MQGMO_NO_SYNCPOINT;
      req.wait_interval_ms = mq::MQWI_UNLIMITED;
      auto m = conns[static_cast<std::size_t>(i)]->get(handles[static_cast<std::size_t>(i)], req);
      if (m.ok()) ++got;
    });
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // the gets are waiting (none can end)
  EXPECT_EQ(got.load(), 0);
  auto putter = bindings();  // logs in while every waiter's runner waits
  ASSERT_TRUE(putter.ok()) << putter.error().to_string();
  for (int i = 0; i < waiters; ++i) put(**putter, "Q1", "wake " + std::to_string(i), mq::MQPMO_NO_SYNCPOINT);
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (got.load() < waiters && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_EQ(got.load(), waiters);
  for (auto& c : conns) c->stop();  // (a failure above: end what still waits)
  for (auto& t : threads) t.join();
  EXPECT_EQ(got.load(), waiters);
}

// The server's runner threads (named qm-runner) in this process.
std::size_t runner_threads() {
  std::size_t n = 0;
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task")) {
    std::ifstream comm(task.path() / "comm");
    std::string name;
    std::getline(comm, name);
    if (name == "qm-runner") ++n;
  }
  return n;
}

class server_shared_context_test : public server_test {
 protected:
  void tweak(server_options& o) override { o.session_contexts = 1; }  // every session on one runner
};

// A persistent put outside syncpoint ends in a log force. Every session shares one io_context here: a call
// that waited for the log in its runner would hand the other sockets to another runner, one more thread for
// each call waiting. The server leaves the force to the log's callback instead (blocking.hpp): while the
// log is held, twelve puts wait with no thread each, unanswered, and another connection is served; once
// the log writes, every put is answered and on the queue.
TEST_F(server_shared_context_test, persistent_calls_wait_for_the_log_without_a_thread_each) {
  constexpr int putters = 12;
  std::vector<std::unique_ptr<mqi::connection>> conns;
  std::vector<mqi::hobj> handles;
  open_each(putters, "Q1", mq::MQOO_OUTPUT, conns, handles);
  ASSERT_EQ(conns.size(), static_cast<std::size_t>(putters));
  auto other = bindings();
  ASSERT_TRUE(other.ok()) << other.error().to_string();
  const std::size_t runners_before = runner_threads();
  const std::uint64_t puts_before = qm_->statistics().puts;
  std::optional<imsb::test::held_log> log(std::in_place);
  std::atomic<int> answered{0}, ok{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < putters; ++i) {
    threads.emplace_back([&, i] {
      mq::mqmd md;
      md.persistence = mq::MQPER_PERSISTENT;
      const std::string data = "persistent " + std::to_string(i);
      auto r = conns[static_cast<std::size_t>(i)]->put(handles[static_cast<std::size_t>(i)], md,
                                                       bytes_view::of(data), mq::MQPMO_NO_SYNCPOINT);
      ++answered;
      if (r.ok()) ++ok;
    });
  }
  ASSERT_TRUE(log->writer_held());
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (qm_->statistics().puts < puts_before + putters && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  EXPECT_EQ(qm_->statistics().puts, puts_before + putters);      // every put is in the engine, its force held
  put(**other, "Q2", "not persistent", mq::MQPMO_NO_SYNCPOINT);  // served meanwhile
  EXPECT_EQ(answered.load(), 0);                                 // no answer before the log has the message
  const std::size_t runners_waiting = runner_threads();
  EXPECT_LE(runners_waiting, runners_before + 1) << "before the puts: " << runners_before;
  log->release();
  for (auto& t : threads) t.join();
  log.reset();
  EXPECT_EQ(ok.load(), putters);
  auto a = admin();
  const auto h = a->open({"Q1", ""}, mq::MQOO_INQUIRE);
  ASSERT_TRUE(h.ok());
  auto st = mqi::inquire_queue(*a, h->handle);
  ASSERT_TRUE(st.ok()) << st.error().to_string();
  EXPECT_EQ(st->current_depth, putters);
}

std::atomic<std::int32_t> failing_wait{0};
std::int32_t failing_hook(detail::log_hook_point where) {
  return where == detail::log_hook_point::wait ? failing_wait.load() : 0;
}

// The log fails after the call left its wait to the callback: the client gets the failure the call would
// have had waiting (2102 named), and the call changed nothing — the put is not on the queue, the message
// a get took is back.
TEST_F(server_test, a_log_force_that_fails_after_the_call_returned_fails_the_call) {
  auto c = bindings();
  ASSERT_TRUE(c.ok()) << c.error().to_string();
  auto a = admin();
  mq::mqmd pmd;
  pmd.persistence = mq::MQPER_PERSISTENT;
  {
    const auto h = a->open({"Q2", ""}, mq::MQOO_OUTPUT);
    ASSERT_TRUE(h.ok());
    ASSERT_TRUE(a->put(h->handle, pmd, bytes_view::of(std::string("kept")), mq::MQPMO_NO_SYNCPOINT).ok());
  }
  failing_wait = mq::MQRC_RESOURCE_PROBLEM;
  detail::engine_log_hook = &failing_hook;
  const auto out = (*c)->open({"Q1", ""}, mq::MQOO_OUTPUT);
  ASSERT_TRUE(out.ok());
  auto put_r = (*c)->put(out->handle, pmd, bytes_view::of(std::string("lost")), mq::MQPMO_NO_SYNCPOINT);
  const auto in = (*c)->open({"Q2", ""}, mq::MQOO_INPUT_SHARED);
  ASSERT_TRUE(in.ok());
  mqi::get_request req;
  req.options = mq::MQGMO_NO_SYNCPOINT;
  auto get_r = (*c)->get(in->handle, req);
  detail::engine_log_hook = nullptr;
  ASSERT_FALSE(put_r.ok());
  EXPECT_EQ(rc_of(put_r.error()), mq::MQRC_RESOURCE_PROBLEM) << put_r.error().to_string();
  ASSERT_FALSE(get_r.ok());
  EXPECT_EQ(rc_of(get_r.error()), mq::MQRC_RESOURCE_PROBLEM) << get_r.error().to_string();
  for (const char* q : {"Q1", "Q2"}) {
    const auto h = a->open({q, ""}, mq::MQOO_INQUIRE);
    ASSERT_TRUE(h.ok());
    auto st = mqi::inquire_queue(*a, h->handle);
    ASSERT_TRUE(st.ok());
    EXPECT_EQ(st->current_depth, std::string(q) == "Q1" ? 0 : 1) << q;
  }
  auto again = (*c)->get(in->handle, req);  // the log works again: the message is there to get
  ASSERT_TRUE(again.ok()) << again.error().to_string();
  EXPECT_EQ(text_of(again->data), "kept");
}

}  // namespace
}  // namespace imsb::qmgr

namespace imsb::qmgr {
namespace {

// Whole response frames from a raw socket, one at a time; what came after a frame waits for the next call.
struct raw_frames {
  int fd;
  std::string got;
  // The next frame, within 5 s ("" when none came).
  std::string next() {
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (std::chrono::steady_clock::now() < until) {
      if (got.size() >= wire::header_length) {
        const auto at = [&](std::size_t i) { return std::size_t{static_cast<std::uint8_t>(got[i])}; };
        const std::size_t whole =
            wire::header_length + ((at(4) << 24) | (at(5) << 16) | (at(6) << 8) | at(7));
        if (got.size() >= whole) {
          std::string frame = got.substr(0, whole);
          got.erase(0, whole);
          return frame;
        }
      }
      pollfd p{fd, POLLIN, 0};
      if (::poll(&p, 1, 100) != 1) continue;
      char buf[4096];
      const auto n = ::recv(fd, buf, sizeof buf, 0);
      if (n <= 0) return "";
      got.append(buf, static_cast<std::size_t>(n));
    }
    return "";
  }
};

bool send_frames(int fd, std::initializer_list<wire::request> reqs) {
  bytes all;
  for (const auto& r : reqs) {
    bytes one;
    wire::encode_request(r, one);
    all.insert(all.end(), one.begin(), one.end());
  }
  return ::send(fd, all.data(), all.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(all.size());
}

// A consumer's wait and the wake frame that ends it, sent together (MQDISC or MQCTL from another thread
// right after the dispatcher began its wait): the server reads both at once, and the wait must still end.
TEST_F(server_test, a_wake_frame_read_with_its_wait_ends_the_wait) {
  int fd = raw_socket();
  raw_frames in{fd, {}};
  ASSERT_TRUE(send_frames(fd, {wire::connect_request{"QM1", "", "", "wake_test"}}));
  auto hello = in.next();
  ASSERT_FALSE(hello.empty());
  auto ok = wire::decode_response(bytes_view::of(hello), wire::frame_type::connect);
  ASSERT_TRUE(ok && *ok);
  // The mark as it is now, then a wait for a change of it with the wake right behind.
  ASSERT_TRUE(send_frames(fd, {wire::wait_for_change_request{0, 0}}));
  auto now = in.next();
  auto mark = wire::decode_response(bytes_view::of(now), wire::frame_type::wait_for_change);
  ASSERT_TRUE(mark && *mark);
  const auto current = std::get<wire::wait_for_change_response>(mark->value().value).mark;
  ASSERT_TRUE(send_frames(fd, {wire::wait_for_change_request{current, 1}, wire::wake_request{}}));
  auto waited = in.next();
  EXPECT_FALSE(waited.empty()) << "the wait did not end";
  auto after_wake = in.next();  // the wake's own answer
  EXPECT_FALSE(after_wake.empty());
  ::close(fd);
}

}  // namespace
}  // namespace imsb::qmgr
