// How clients find a daemon's bindings socket (connect.cpp): the daemon's runtime folder,
// the path it records in <qmgr dir>/qmanager/bindings, the server-uid check, no password over bindings;
// and runmqlsr's --address check and strmqm's --ini check (daemon.cpp).

#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <thread>

#include "imsb/core/messages.hpp"
#include "imsb/mq/constants.hpp"
#include "imsb/objects/mqsc_exec.hpp"
#include "imsb/qmgr/connect.hpp"
#include "imsb/qmgr/daemon.hpp"
#include "imsb/qmgr/queue_manager.hpp"
#include "imsb/qmgr/server.hpp"
#include "imsb/qmgr/store.hpp"
#include "process.hpp"

namespace imsb::qmgr {
namespace {

namespace fs = std::filesystem;

std::int32_t rc_of(const decode_error& e) { return static_cast<std::int32_t>(e.code.value()); }

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
  scoped_env(const scoped_env&) = delete;
  scoped_env& operator=(const scoped_env&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

struct owner_reset {
  ~owner_reset() { detail::override_qmgr_owner_for_tests(std::nullopt); }
};

class bindings_test : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(::mkdir(tmp_.file("daemon-run").c_str(), 0700), 0);
    ASSERT_EQ(::mkdir(tmp_.file("client-run").c_str(), 0700), 0);
    objects::exec_context ctx{"2026-11-30", "01.00.00", false};
    auto cat = objects::new_queue_manager("QM1", names::fs_profile::posix, "", "", ctx);
    ASSERT_TRUE(cat.ok()) << cat.error().to_string();
    auto out = objects::run_script(*cat, "DEFINE QLOCAL(Q1)\n", ctx);
    ASSERT_EQ(out.exit_code(), 0);
    auto st = queue_manager_store::create(prefix(), *cat);
    ASSERT_TRUE(st.ok()) << st.error().to_string();
    store_.emplace(std::move(st).value());
  }
  void TearDown() override {
    srv_.reset();
    qm_.reset();
  }
  std::string prefix() const { return tmp_.file("prefix"); }

  // The daemon's side: a queue manager and its server on the socket of the daemon's runtime folder,
  // recorded as the daemon records it.
  void start_daemon() {
    scoped_env rt("IMSBRIDGE_RUNTIME_DIR", tmp_.file("daemon-run").c_str());
    auto lock = store_->try_lock();
    ASSERT_TRUE(lock.ok()) << lock.error().to_string();
    runtime_options o;
    o.log.fsync = false;
    o.error_log = tmp_.file("AMQERR01.LOG");
    auto qm = queue_manager::start(*store_, std::move(lock).value(), o);
    ASSERT_TRUE(qm.ok()) << qm.error().to_string();
    qm_ = std::move(qm).value();
    auto sock = bindings_socket_path(prefix(), "QM1");
    ASSERT_TRUE(sock.ok()) << sock.error().to_string();
    socket_ = *sock;
    server_options so;
    so.bindings_socket = socket_;
    so.credential_file = tmp_.file("credentials");
    auto srv = server::start(*qm_, so);
    ASSERT_TRUE(srv.ok()) << srv.error().to_string();
    srv_ = std::move(srv).value();
    auto rec = record_bindings_socket(store_->directory(), socket_);
    ASSERT_TRUE(rec.ok()) << rec.error().to_string();
  }
  result<std::unique_ptr<mqi::connection>> client(const std::string& password = {}) {
    connect_options o;
    o.target = "QM1";
    o.prefix = prefix();
    o.password = password;
    return connect(o);
  }

  test::temp_dir tmp_;
  std::optional<queue_manager_store> store_;
  std::unique_ptr<queue_manager> qm_;
  std::unique_ptr<server> srv_;
  fs::path socket_;
};

TEST_F(bindings_test, a_client_with_another_runtime_folder_finds_the_recorded_socket) {
  start_daemon();
  ASSERT_FALSE(HasFatalFailure());
  EXPECT_EQ(socket_.parent_path(), fs::path(tmp_.file("daemon-run")));
  struct stat st {};
  ASSERT_EQ(::stat(socket_.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0777u);  // every user may connect; SO_PEERCRED and AUTHREC decide
  std::ifstream recorded(store_->directory() / "qmanager" / "bindings");
  std::string line;
  ASSERT_TRUE(std::getline(recorded, line));
  EXPECT_EQ(line, socket_.string());

  // The client's environment names other folders: the recorded path wins.
  scoped_env rt("IMSBRIDGE_RUNTIME_DIR", tmp_.file("client-run").c_str());
  scoped_env xdg("XDG_RUNTIME_DIR", nullptr);
  auto c = client();
  ASSERT_TRUE(c.ok()) << c.error().to_string();
  auto h = (*c)->open({"Q1", ""}, mq::MQOO_INQUIRE);
  EXPECT_TRUE(h.ok()) << h.error().to_string();
  (void)(*c)->disconnect();
  {
    scoped_env rt2("IMSBRIDGE_RUNTIME_DIR", nullptr);
    auto c2 = client();
    ASSERT_TRUE(c2.ok()) << c2.error().to_string();
    (void)(*c2)->disconnect();
  }

  // Without the recorded file, the client computes the path in its own folder (compatibility): there
  // nothing answers.
  fs::remove(store_->directory() / "qmanager" / "bindings");
  auto none = client();
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(rc_of(none.error()), mq::MQRC_Q_MGR_NOT_AVAILABLE);
  EXPECT_NE(none.error().detail.find(tmp_.file("client-run")), std::string::npos) << none.error().to_string();
}

TEST_F(bindings_test, a_socket_served_by_another_uid_is_refused) {
  start_daemon();
  ASSERT_FALSE(HasFatalFailure());
  owner_reset reset;
  // The same uid serves it: accepted.
  detail::override_qmgr_owner_for_tests(static_cast<unsigned>(::geteuid()));
  auto ok = client();
  ASSERT_TRUE(ok.ok()) << ok.error().to_string();
  (void)(*ok)->disconnect();
  // The queue manager belongs to someone else than whoever serves the socket.
  detail::override_qmgr_owner_for_tests(static_cast<unsigned>(::geteuid()) + 1);
  auto refused = client();
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(rc_of(refused.error()), mq::MQRC_Q_MGR_NOT_AVAILABLE);
  EXPECT_NE(refused.error().detail.find("socket not served by the queue manager's owner"), std::string::npos)
      << refused.error().to_string();
}

TEST_F(bindings_test, no_password_goes_over_the_bindings_socket) {
  // A listener of our own on the recorded path: whatever the client sends is read and kept.
  const fs::path path = tmp_.file("fake.sock");
  const int lfd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(lfd, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, path.c_str(), sizeof addr.sun_path - 1);
  ASSERT_EQ(::bind(lfd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(::listen(lfd, 1), 0);
  ASSERT_TRUE(record_bindings_socket(store_->directory(), path).ok());
  std::string got;
  std::thread peer([&] {
    const int fd = ::accept(lfd, nullptr, nullptr);
    if (fd < 0) return;
    for (;;) {
      pollfd p{fd, POLLIN, 0};
      if (::poll(&p, 1, 500) <= 0) break;  // the client waits for an answer: all it sends has come
      char buf[4096];
      const auto n = ::recv(fd, buf, sizeof buf, 0);
      if (n <= 0) break;
      got.append(buf, static_cast<std::size_t>(n));
    }
    ::close(fd);
  });
  auto c = client("Sup3rSecretPassw0rd");
  peer.join();
  ::close(lfd);
  EXPECT_FALSE(c.ok());
  EXPECT_FALSE(got.empty());
  EXPECT_EQ(got.find("Sup3rSecretPassw0rd"), std::string::npos);
}

TEST_F(bindings_test, runtime_folder_rules) {
  // IMSBRIDGE_RUNTIME_DIR missing: made 0755, so other users reach the socket.
  const std::string made = tmp_.file("made");
  {
    scoped_env rt("IMSBRIDGE_RUNTIME_DIR", made.c_str());
    auto p = bindings_socket_path(prefix(), "QM1");
    ASSERT_TRUE(p.ok()) << p.error().to_string();
    EXPECT_EQ(p->parent_path(), fs::path(made));
    struct stat st {};
    ASSERT_EQ(::stat(made.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0755u);
  }
  // Writable by others without the sticky bit: refused (another user could put a socket there).
  const std::string open_dir = tmp_.file("open");
  ASSERT_EQ(::mkdir(open_dir.c_str(), 0700), 0);
  ASSERT_EQ(::chmod(open_dir.c_str(), 0777), 0);
  {
    scoped_env rt("IMSBRIDGE_RUNTIME_DIR", open_dir.c_str());
    auto p = bindings_socket_path(prefix(), "QM1");
    ASSERT_FALSE(p.ok());
    EXPECT_EQ(p.error().code, std::errc::permission_denied);
  }
  // With the sticky bit (as /tmp): accepted.
  ASSERT_EQ(::chmod(open_dir.c_str(), 01777), 0);
  {
    scoped_env rt("IMSBRIDGE_RUNTIME_DIR", open_dir.c_str());
    EXPECT_TRUE(bindings_socket_path(prefix(), "QM1").ok());
  }
  // XDG_RUNTIME_DIR that others cannot traverse (0700, as systemd makes it): not used.
  const std::string xdg = tmp_.file("xdg");
  ASSERT_EQ(::mkdir(xdg.c_str(), 0700), 0);
  {
    scoped_env rt("IMSBRIDGE_RUNTIME_DIR", nullptr);
    scoped_env x("XDG_RUNTIME_DIR", xdg.c_str());
    auto p = bindings_socket_path(prefix(), "QM1");
    ASSERT_TRUE(p.ok()) << p.error().to_string();
    EXPECT_EQ(p->parent_path(), fs::path("/tmp/imsbridge-" + std::to_string(::geteuid())));
    struct stat st {};
    ASSERT_EQ(::stat(p->parent_path().c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0755, 0755u);
    ASSERT_EQ(::chmod(xdg.c_str(), 0711), 0);
    auto q = bindings_socket_path(prefix(), "QM1");
    ASSERT_TRUE(q.ok()) << q.error().to_string();
    EXPECT_EQ(q->parent_path(), fs::path(xdg) / "imsbridge");
  }
}

TEST(runmqlsr_address, is_checked_before_it_goes_into_mqsc) {
  std::ostringstream out, err;
  const int rc = runmqlsr({"-m", "QM1", "-p", "1414", "--address", "127.0.0.1') CONTROL(QMGR"}, out, err);
  EXPECT_EQ(rc, 20);
  EXPECT_NE(err.str().find(imsb::msg::IMB1155E), std::string::npos) << err.str();
  EXPECT_NE(err.str().find("--address"), std::string::npos) << err.str();
}

TEST_F(bindings_test, strmqm_refuses_an_ini_with_an_unknown_key_or_half_a_tls_setting) {
  const std::string ini = tmp_.file("qm.ini");
  for (const std::string& text :
       {std::string("TLS.CertFlie=srv.crt\n"), std::string("TLS.CertFile=srv.crt\n"),
        std::string("TLS.CertFile=a\nTLS.KeyFile=b\nTLS.RequireClientCert=yes\n"),
        std::string("TLS.CertFile=a\nTLS.KeyFile=b\nTLS.RequireClientCert=maybe\n")}) {
    std::ofstream(ini) << text;
    std::ostringstream out, err;
    const int rc = strmqm({"--prefix", prefix(), "--ini", ini, "QM1"}, out, err);
    EXPECT_EQ(rc, 20) << text;
    EXPECT_NE(err.str().find(imsb::msg::IMB1155E), std::string::npos) << text << err.str();
  }
}

}  // namespace
}  // namespace imsb::qmgr
